// Package franz applies kafkaconn's connection settings (security, socket buffers,
// the bounded dial) to franz-go, for the workers that use it; the operator, which
// does not, links none of it.
package franz

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"github.com/twmb/franz-go/plugin/kslog"

	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// Opts are franz-go's connection options: brokers, client ID, security and
// socket buffers, with the same bounded dial as sarama's (kafkaconn.Base).
func Opts(s kafkaconn.Security, brokers []string, clientID string, b kafkaconn.Buffers) ([]kgo.Opt, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ClientID(clientID)}
	tc, err := s.TLSConfig()
	if err != nil {
		return nil, err
	}
	d := b.Dialer()
	if tc != nil {
		opts = append(opts, kgo.Dialer(func(ctx context.Context, network, host string) (net.Conn, error) {
			c := tc.Clone()
			if c.ServerName == "" {
				if h, _, err := net.SplitHostPort(host); err == nil {
					c.ServerName = h
				}
			}
			return (&tls.Dialer{NetDialer: d, Config: c}).DialContext(ctx, network, host)
		}))
	} else {
		opts = append(opts, kgo.Dialer(d.DialContext))
	}
	switch s.SASLMechanism {
	case "":
	case sarama.SASLTypePlaintext:
		opts = append(opts, kgo.SASL(plain.Auth{User: s.Username, Pass: s.Password}.AsMechanism()))
	case sarama.SASLTypeSCRAMSHA256:
		opts = append(opts, kgo.SASL(scram.Auth{User: s.Username, Pass: s.Password}.AsSha256Mechanism()))
	case sarama.SASLTypeSCRAMSHA512:
		opts = append(opts, kgo.SASL(scram.Auth{User: s.Username, Pass: s.Password}.AsSha512Mechanism()))
	default:
		return nil, fmt.Errorf("sasl mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", s.SASLMechanism)
	}
	if s.SASLMechanism != "" && s.Username == "" {
		return nil, fmt.Errorf("sasl %s: username is empty", s.SASLMechanism)
	}
	return opts, nil
}

// New creates a franz-go client and checks, within ctx, that a broker answers:
// kgo.NewClient itself connects lazily.
func New(ctx context.Context, brokers []string, opts ...kgo.Opt) (*kgo.Client, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("franz-go client: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 3*kafkaconn.DialTimeout)
	defer cancel()
	if err := cl.Ping(pctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("connect to Kafka at %v: %w", brokers, err)
	}
	return cl, nil
}

// Logger passes franz-go's own log to the worker's, at the worker's level: at
// Info it says why the client did what a trial shows (a batch that failed the
// producer ID, a coordinator it looked for again), which the trial's numbers
// cannot.
func Logger(l *slog.Logger) kgo.Opt {
	return kgo.WithLogger(kslog.New(l.With("client", "franz-go")))
}
