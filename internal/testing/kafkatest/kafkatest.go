// Package kafkatest gives integration tests the address of the real local broker that
// `make test` starts (hack/kafka/kafka.sh). A missing broker fails the test loudly:
// integration tests never skip.
package kafkatest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
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

// TLSBrokers returns the local broker's SSL listener, from SERDEBENCH_KAFKA_TLS
// (default 127.0.0.1:9095).
func TLSBrokers(t testing.TB) []string {
	t.Helper()
	return listening(t, "SERDEBENCH_KAFKA_TLS", "127.0.0.1:9095")
}

// TLSCA returns the PEM CA that signed the local broker's certificate, from
// SERDEBENCH_KAFKA_TLS_CA (default: the state dir hack/kafka/kafka.sh writes).
func TLSCA(t testing.TB) []byte {
	t.Helper()
	path := os.Getenv("SERDEBENCH_KAFKA_TLS_CA")
	if path == "" {
		path = filepath.Join(repoRoot(t), ".state", "kafka-9092", "tls", "ca.crt")
	}
	ca, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the local broker's CA (written by `make kafka-up`): %v", err)
	}
	return ca
}

func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
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

// Topics returns the names of the topics the brokers hold.
func Topics(t testing.TB, brokers []string) map[string]bool {
	t.Helper()
	c, err := sarama.NewClient(brokers, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	names, err := c.Topics()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// Groups returns the names of the consumer groups the brokers know.
func Groups(t testing.TB, brokers []string) map[string]bool {
	t.Helper()
	ad, err := sarama.NewClusterAdmin(brokers, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ad.Close() }()
	groups, err := ad.ListConsumerGroups()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for g := range groups {
		out[g] = true
	}
	return out
}

// WaitForRecords waits (up to timeout) until a topic whose name starts with prefix
// and that is not in before holds more than min records, and returns its name: a
// test that disturbs a run (a signal, a broker restart) does it once the run is
// sending, however slowly the machine got it there.
func WaitForRecords(t testing.TB, brokers []string, before map[string]bool, prefix string, min int64, timeout time.Duration) string {
	t.Helper()
	// Short network timeouts: one pass must not outlast the wait.
	cfg := sarama.NewConfig()
	cfg.Net.DialTimeout, cfg.Net.ReadTimeout, cfg.Net.WriteTimeout = 5*time.Second, 5*time.Second, 5*time.Second
	cfg.Metadata.Retry.Max = 0
	c, err := sarama.NewClient(brokers, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	deadline := time.Now().Add(timeout)
	most, mostIn := int64(0), "none"
	for {
		_ = c.RefreshMetadata()
		names, err := c.Topics()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if before[n] || !strings.HasPrefix(n, prefix) {
				continue
			}
			held := records(c, n)
			if held > min {
				return n
			}
			if held >= most {
				most, mostIn = held, n
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new topic %s* held more than %d records within %s (the most: %d, in %s)", prefix, min, timeout, most, mostIn)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// records sums a topic's end offsets (0 while they cannot be read).
func records(c sarama.Client, topic string) int64 {
	parts, err := c.Partitions(topic)
	if err != nil {
		return 0
	}
	var n int64
	for _, p := range parts {
		if off, err := c.GetOffset(topic, p, sarama.OffsetNewest); err == nil {
			n += off
		}
	}
	return n
}

// Release is the broker's Kafka release (SERDEBENCH_KAFKA_VERSION, which the Makefile
// sets to the version it starts: the current line, or the previous one under make
// test-kafka-previous); unset fails the test, as a version-dependent check must
// know which broker it judges.
func Release(t testing.TB) string {
	t.Helper()
	v := os.Getenv("SERDEBENCH_KAFKA_VERSION")
	if v == "" {
		t.Fatal("SERDEBENCH_KAFKA_VERSION is not set: run through `make test`, which names the broker's release")
	}
	return v
}

// Line is the broker's release line, major.minor ("4.4" of 4.4.0): what a broker
// says of itself (kafkaconn.ReleaseOf).
func Line(t testing.TB) string {
	t.Helper()
	maj, mnr := majorMinor(t)
	return fmt.Sprintf("%d.%d", maj, mnr)
}

// AtLeast says whether the broker's release (Release) is major.minor or later.
func AtLeast(t testing.TB, major, minor int) bool {
	t.Helper()
	maj, mnr := majorMinor(t)
	return maj > major || (maj == major && mnr >= minor)
}

func majorMinor(t testing.TB) (int, int) {
	t.Helper()
	v := Release(t)
	var maj, mnr int
	if _, err := fmt.Sscanf(v, "%d.%d", &maj, &mnr); err != nil {
		t.Fatalf("SERDEBENCH_KAFKA_VERSION %q is no major.minor[.patch]: %v", v, err)
	}
	return maj, mnr
}
