package kafkaconn

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"syscall"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// DialTimeout bounds one connection attempt, in both clients.
const DialTimeout = 5 * time.Second

// Buffers are a connection's socket buffer sizes in bytes; a value <= 0 leaves the
// buffer to the operating system, which autotunes it.
type Buffers struct {
	Send, Receive int
}

// Dialer dials TCP with the given socket buffers, set before connecting so the TCP
// window scale is negotiated for them (as the Java client does).
func (b Buffers) Dialer() *net.Dialer {
	d := &net.Dialer{Timeout: DialTimeout}
	if b.Send <= 0 && b.Receive <= 0 {
		return d
	}
	d.Control = func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			if b.Send > 0 {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, b.Send)
			}
			if serr == nil && b.Receive > 0 {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, b.Receive)
			}
		})
		if err != nil {
			return fmt.Errorf("socket buffers: %w", err)
		}
		if serr != nil {
			return fmt.Errorf("socket buffers: %w", serr)
		}
		return nil
	}
	return d
}

// ApplyBuffers makes sarama dial with the given socket buffers (sarama adds TLS on
// top of whatever its dialer returns).
func ApplyBuffers(c *sarama.Config, b Buffers) {
	if b.Send <= 0 && b.Receive <= 0 {
		return
	}
	c.Net.Proxy.Enable = true
	c.Net.Proxy.Dialer = b.Dialer()
}

// FranzOpts are franz-go's connection options: brokers, client ID, security and
// socket buffers, with the same bounded dial as sarama's Base.
func (s Security) FranzOpts(brokers []string, clientID string, b Buffers) ([]kgo.Opt, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ClientID(clientID)}
	tc, err := s.tlsConfig()
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

// NewFranz creates a franz-go client and checks, within ctx, that a broker answers:
// kgo.NewClient itself connects lazily.
func NewFranz(ctx context.Context, brokers []string, opts ...kgo.Opt) (*kgo.Client, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("franz-go client: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 3*DialTimeout)
	defer cancel()
	if err := cl.Ping(pctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("connect to Kafka at %v: %w", brokers, err)
	}
	return cl, nil
}
