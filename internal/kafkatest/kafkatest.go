// Package kafkatest gives integration tests the address of the real local broker that
// `make test` starts (hack/kafka/kafka.sh). A missing broker fails the test loudly:
// integration tests never skip.
package kafkatest

import (
	"net"
	"os"
	"testing"
	"time"
)

// Brokers returns the bootstrap servers from SERDEBENCH_KAFKA (default
// 127.0.0.1:9092) after checking that something listens there.
func Brokers(t testing.TB) []string {
	t.Helper()
	return listening(t, "SERDEBENCH_KAFKA", "127.0.0.1:9092")
}

// SASL user of the local broker's PLAIN mechanism (hack/kafka/server.properties).
const (
	SASLUser     = "serdebench"
	SASLPassword = "serdebench-secret"
)

// SASLBrokers returns the local broker's SASL_PLAINTEXT listener, from
// SERDEBENCH_KAFKA_SASL (default 127.0.0.1:9094).
func SASLBrokers(t testing.TB) []string {
	t.Helper()
	return listening(t, "SERDEBENCH_KAFKA_SASL", "127.0.0.1:9094")
}

func listening(t testing.TB, env, def string) []string {
	t.Helper()
	addr := os.Getenv(env)
	if addr == "" {
		addr = def
	}
	conn, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		t.Fatalf("no Kafka broker at %s (%v): run `make kafka-up` or `make test`, which starts one", addr, err)
	}
	_ = conn.Close()
	return []string{addr}
}
