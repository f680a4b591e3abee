// Package kafkaconn holds how to reach the brokers (security: TLS, SASL; socket
// buffers; a bounded dial) and applies it to sarama, the same way for the workers,
// local runs and the operator's topic provisioning. Its subpackages franz and
// rdkafka apply it to the other two clients, so the operator links neither.
package kafkaconn

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/IBM/sarama"
	"github.com/xdg-go/scram"
)

// Base returns the connection settings every serdebench client shares: sarama's
// default protocol version (Kafka 2.8, accepted by every 4.x broker) and a bounded
// failure on an unreachable broker (~3 dial attempts of 5 s).
func Base(clientID string) *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = clientID
	c.Version = sarama.DefaultVersion
	c.Net.DialTimeout = DialTimeout
	c.Metadata.Retry.Max = 2
	c.Metadata.Retry.Backoff = 500 * time.Millisecond
	return c
}

// Security is how to reach the brokers. The zero value is plaintext without auth.
type Security struct {
	// TLS enables TLS.
	TLS bool
	// CAPEM is the CA bundle; empty means the system roots.
	CAPEM []byte
	// InsecureSkipVerify disables certificate verification.
	InsecureSkipVerify bool
	// SASLMechanism is "", PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	SASLMechanism string
	// Username and Password for SASL.
	Username, Password string
}

// TLSConfig is the TLS configuration, nil without TLS.
func (s Security) TLSConfig() (*tls.Config, error) {
	if !s.TLS {
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: s.InsecureSkipVerify} //nolint:gosec // opt-in for test clusters
	if len(s.CAPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(s.CAPEM) {
			return nil, errors.New("tls: the CA bundle holds no PEM certificate")
		}
		tc.RootCAs = pool
	}
	return tc, nil
}

// Apply sets c's TLS and SASL fields.
func (s Security) Apply(c *sarama.Config) error {
	tc, err := s.TLSConfig()
	if err != nil {
		return err
	}
	if tc != nil {
		c.Net.TLS.Enable = true
		c.Net.TLS.Config = tc
	}
	if s.SASLMechanism == "" {
		return nil
	}
	if s.Username == "" {
		return fmt.Errorf("sasl %s: username is empty", s.SASLMechanism)
	}
	c.Net.SASL.Enable = true
	c.Net.SASL.User = s.Username
	c.Net.SASL.Password = s.Password
	switch s.SASLMechanism {
	case sarama.SASLTypePlaintext:
		c.Net.SASL.Mechanism = sarama.SASLTypePlaintext
	case sarama.SASLTypeSCRAMSHA256:
		c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA256
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: sha256.New} }
	case sarama.SASLTypeSCRAMSHA512:
		c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: sha512.New} }
	default:
		return fmt.Errorf("sasl mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", s.SASLMechanism)
	}
	return nil
}

// scramClient adapts xdg-go/scram to sarama's SCRAMClient.
type scramClient struct {
	hash func() hash.Hash
	conv *scram.ClientConversation
}

func (s *scramClient) Begin(user, password, authzID string) error {
	c, err := scram.HashGeneratorFcn(s.hash).NewClient(user, password, authzID)
	if err != nil {
		return fmt.Errorf("scram: %w", err)
	}
	s.conv = c.NewConversation()
	return nil
}

func (s *scramClient) Step(challenge string) (string, error) { return s.conv.Step(challenge) }

func (s *scramClient) Done() bool { return s.conv.Done() }
