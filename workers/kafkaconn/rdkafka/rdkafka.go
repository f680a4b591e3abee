//go:build cgo

// Package rdkafka applies kafkaconn's connection settings (security, socket
// buffers, the bounded dial) to librdkafka, for the workers that use it; the
// operator, which does not, links none of it.
package rdkafka

import (
	"fmt"
	"strings"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// Config is librdkafka's connection configuration: brokers, client ID, security
// and socket buffers, with the same bounded dial as the others (librdkafka itself
// retries a broker forever: Reachable bounds the wait for the first).
func Config(s kafkaconn.Security, brokers []string, clientID string, b kafkaconn.Buffers) kafka.ConfigMap {
	cm := kafka.ConfigMap{
		"bootstrap.servers":                  strings.Join(brokers, ","),
		"client.id":                          clientID,
		"socket.connection.setup.timeout.ms": int(kafkaconn.DialTimeout.Milliseconds()),
		// librdkafka logs to stderr by default; the worker reports errors itself.
		"log_level": 3,
	}
	if b.Send > 0 {
		cm["socket.send.buffer.bytes"] = b.Send
	}
	if b.Receive > 0 {
		cm["socket.receive.buffer.bytes"] = b.Receive
	}
	proto := "plaintext"
	switch {
	case s.TLS && s.SASLMechanism != "":
		proto = "sasl_ssl"
	case s.TLS:
		proto = "ssl"
	case s.SASLMechanism != "":
		proto = "sasl_plaintext"
	}
	cm["security.protocol"] = proto
	if s.TLS {
		if len(s.CAPEM) > 0 {
			cm["ssl.ca.pem"] = string(s.CAPEM)
		}
		if s.InsecureSkipVerify {
			cm["enable.ssl.certificate.verification"] = false
		}
	}
	if s.SASLMechanism != "" {
		cm["sasl.mechanisms"] = s.SASLMechanism
		cm["sasl.username"] = s.Username
		cm["sasl.password"] = s.Password
	}
	return cm
}

// Reachable waits up to timeoutMs for the cluster's metadata through h (a
// producer or consumer), so an unreachable broker fails at once as with the
// other clients instead of when the first record times out.
func Reachable(h interface {
	GetMetadata(topic *string, allTopics bool, timeoutMs int) (*kafka.Metadata, error)
}, brokers []string, timeoutMs int) error {
	if _, err := h.GetMetadata(nil, false, timeoutMs); err != nil {
		return fmt.Errorf("connect to Kafka at %v: %w", brokers, err)
	}
	return nil
}
