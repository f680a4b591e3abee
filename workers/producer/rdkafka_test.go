//go:build cgo

package producer

import (
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/serdebench/serdebench/api/trial"
)

// TestRdkafkaConfigMapping: the plan's decisions become librdkafka's properties
// (the runner's tests check their effect on a real broker), and librdkafka itself
// accepts every configuration a valid plan makes.
func TestRdkafkaConfigMapping(t *testing.T) {
	s := trial.Settings{Mode: "batch", BatchSizeBytes: 100000, LingerMs: 100, Acks: "1", Compression: "snappy", MaxInFlight: 3, Client: trial.ClientRdkafka}
	cm, eff, err := RdkafkaConfig(s, "p", 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"client": "librdkafka", "batch.size": "100000", "linger.ms": "100",
		"max.in.flight.requests.per.connection": "3", "message.send.max.retries": "3"}
	for k, v := range want {
		if eff[k] != v {
			t.Errorf("%s = %q, want %q", k, eff[k], v)
		}
	}
	if cm["acks"] != "1" || cm["compression.type"] != "snappy" || eff["librdkafka"] == "" {
		t.Errorf("acks %v, compression %v, version %q", cm["acks"], cm["compression.type"], eff["librdkafka"])
	}
	accepted := func(cm kafka.ConfigMap) {
		t.Helper()
		cm["bootstrap.servers"] = "127.0.0.1:1"
		p, err := kafka.NewProducer(&cm)
		if err != nil {
			t.Fatalf("librdkafka refuses %v: %v", cm, err)
		}
		p.Close()
	}
	accepted(cm)
	// The cap never falls below the largest record, nor rises past the topic's limit.
	for _, c := range []struct {
		batch, maxValue, topicMax int
		want                      string
	}{{16384, 20000, 0, "20256"}, {1 << 24, 1000, 0, "1048527"}, {0, 1176, 0, "1432"}} {
		s.BatchSizeBytes = int32(c.batch)
		cm, eff, err := RdkafkaConfig(s, "p", c.maxValue, c.topicMax)
		if err != nil || eff["batch.size"] != c.want {
			t.Errorf("batch %d, largest record %d, topic max %d: batch.size %s (%v), want %s", c.batch, c.maxValue, c.topicMax, eff["batch.size"], err, c.want)
		}
		accepted(cm)
	}
	s.BatchSizeBytes = 0
	if _, eff, _ := RdkafkaConfig(s, "p", 1000, 0); eff["linger.ms"] != "0" || eff["batch.num.messages"] != "1" {
		t.Errorf("batch.size 0: one record per batch, no linger: %v", eff)
	}
	s.Mode = trial.ModeSingle
	if _, eff, _ := RdkafkaConfig(s, "p", 1000, 0); eff["linger.ms"] != "0" || eff["batch.num.messages"] != "1" {
		t.Errorf("single mode: %v", eff)
	}
	s.Mode, s.Idempotent, s.Acks, s.MaxInFlight = trial.ModeBatch, true, trial.AcksAll, 1
	cm, eff, _ = RdkafkaConfig(s, "p", 1000, 0)
	if eff["enable.idempotence"] != "true" || eff["max.in.flight.requests.per.connection"] != "1" {
		t.Errorf("idempotent: %v", eff)
	}
	accepted(cm)
	// Transactional: the id, a timeout of twice a transaction's expected span
	// (at least Java's 60 s), and a record life librdkafka accepts under it.
	s.Idempotent, s.MaxInFlight, s.RecordsPerSecond, s.Transactions = false, 5, 100, trial.Transactions{RecordsPerTransaction: 5000}
	cm, eff, _ = RdkafkaConfig(s, "serdebench-topic-p0", 1000, 0)
	if eff["transactional.id"] != "serdebench-topic-p0" || eff["transaction.timeout.ms"] != "110000" || eff["message.timeout.ms"] != "110000" ||
		eff["enable.idempotence"] != "true" || eff["max.in.flight.requests.per.connection"] != "5" {
		t.Errorf("transactional: %v", eff)
	}
	accepted(cm)
	for _, bad := range []trial.Settings{{Mode: "batch", Acks: "2", Compression: "none"}, {Mode: "batch", Acks: "1", Compression: "brotli"}} {
		if _, _, err := RdkafkaConfig(bad, "p", 1000, 0); err == nil {
			t.Errorf("%+v must be rejected", bad)
		}
	}
}
