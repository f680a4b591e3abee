package producer

import (
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

// TestFranzOptionsMapping checks the settings franz-go reports it got; the options
// themselves are opaque, so a real run (internal/cli/runner) checks their effect.
func TestFranzOptionsMapping(t *testing.T) {
	s := trial.Settings{Mode: "batch", BatchSizeBytes: 100000, LingerMs: 100, Acks: "1", Compression: "snappy", MaxInFlight: 3, Client: trial.ClientFranz}
	_, eff, err := FranzOptions(s, "p", 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"client": "franz-go", "ProducerBatchMaxBytes": "100000", "ProducerLinger": "100ms",
		"MaxProduceRequestsInflightPerBroker": "3", "RecordRetries": "3"}
	for k, v := range want {
		if eff[k] != v {
			t.Errorf("%s = %q, want %q", k, eff[k], v)
		}
	}
	// The cap never falls below the largest record, nor rises past the topic's limit.
	for _, c := range []struct {
		batch, maxValue, topicMax int
		want                      string
	}{{16384, 20000, 0, "20256"}, {1 << 24, 1000, 0, "1048527"}, {1 << 24, 1000, 500000, "499939"}, {0, 1176, 0, "1432"}} {
		s.BatchSizeBytes = int32(c.batch)
		_, eff, err := FranzOptions(s, "p", c.maxValue, c.topicMax)
		if err != nil || eff["ProducerBatchMaxBytes"] != c.want {
			t.Errorf("batch %d, largest record %d, topic max %d: cap %s (%v), want %s", c.batch, c.maxValue, c.topicMax, eff["ProducerBatchMaxBytes"], err, c.want)
		}
	}
	s.BatchSizeBytes = 0
	if _, eff, _ := FranzOptions(s, "p", 1000, 0); eff["ProducerLinger"] != "0s" {
		t.Errorf("batch.size 0 must not linger: %s", eff["ProducerLinger"])
	}
	s.Mode = trial.ModeSingle
	if _, eff, _ := FranzOptions(s, "p", 1000, 0); eff["ProducerLinger"] != "0s" || eff["ProducerBatchMaxBytes"] != "1256" {
		t.Errorf("single mode: %v", eff)
	}
	s.Mode, s.Idempotent, s.Acks, s.MaxInFlight = trial.ModeBatch, true, trial.AcksAll, 1
	if _, eff, _ := FranzOptions(s, "p", 1000, 0); eff["idempotent"] != "true" {
		t.Errorf("idempotent: %v", eff)
	}
	for _, bad := range []trial.Settings{{Mode: "batch", Acks: "2", Compression: "none"}, {Mode: "batch", Acks: "1", Compression: "brotli"}, {Mode: "x", Acks: "1", Compression: "none"}} {
		if _, _, err := FranzOptions(bad, "p", 1000, 0); err == nil {
			t.Errorf("%+v must be rejected", bad)
		}
	}
}
