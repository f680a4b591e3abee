package producer

import (
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// TestNewPlan: the Java client's rules, decided once for both clients.
func TestNewPlan(t *testing.T) {
	base := trial.Settings{Mode: trial.ModeBatch, Acks: trial.AcksLeader, Compression: trial.CompressionNone, MaxInFlight: 5}
	with := func(f func(*trial.Settings)) trial.Settings { s := base; f(&s); return s }
	const value = 1000
	floor := value + recordOverheadBytes
	for _, c := range []struct {
		name     string
		s        trial.Settings
		topicMax int
		want     Plan
	}{
		{"linger", with(func(s *trial.Settings) { s.BatchSizeBytes, s.LingerMs = 100000, 100 }), 0,
			Plan{BatchMaxBytes: 100000, Linger: 100 * time.Millisecond}},
		{"linger 0 sends when free", with(func(s *trial.Settings) { s.BatchSizeBytes = 16384 }), 0,
			Plan{BatchMaxBytes: 16384}},
		{"batch.size 0: one per batch, linger ignored", with(func(s *trial.Settings) { s.LingerMs = 100 }), 0,
			Plan{BatchMaxBytes: floor, OnePerBatch: true}},
		{"single mode", with(func(s *trial.Settings) { s.Mode, s.BatchSizeBytes, s.LingerMs = trial.ModeSingle, 100000, 100 }), 0,
			Plan{BatchMaxBytes: floor, OnePerBatch: true}},
		{"capped by the default max.message.bytes", with(func(s *trial.Settings) { s.BatchSizeBytes = 8 << 20 }), 0,
			Plan{BatchMaxBytes: DefaultMaxMessageBytes - batchOverheadBytes}},
		{"capped by the topic's", with(func(s *trial.Settings) { s.BatchSizeBytes = 1 << 20 }), 200000,
			Plan{BatchMaxBytes: 200000 - batchOverheadBytes}},
		{"never below the largest record", with(func(s *trial.Settings) { s.BatchSizeBytes, s.LingerMs = 100, 5 }), 0,
			Plan{BatchMaxBytes: floor, Linger: 5 * time.Millisecond}},
	} {
		got, err := NewPlan(c.s, value, c.topicMax)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		c.want.Acks, c.want.Compression, c.want.MaxInFlight = base.Acks, base.Compression, 5
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
	for _, bad := range []trial.Settings{with(func(s *trial.Settings) { s.Acks = "2" }),
		with(func(s *trial.Settings) { s.Compression = "brotli" }), with(func(s *trial.Settings) { s.Mode = "x" })} {
		if _, err := NewPlan(bad, value, 0); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

// TestAdaptersCoverEveryValue: every acks and compression value a plan admits has a
// value in both clients' tables.
func TestAdaptersCoverEveryValue(t *testing.T) {
	for _, a := range []trial.Acks{trial.AcksNone, trial.AcksLeader, trial.AcksAll} {
		if _, ok := saramaAcks[a]; !ok {
			t.Errorf("sarama: no acks %q", a)
		}
		if _, ok := franzAcks[a]; !ok {
			t.Errorf("franz-go: no acks %q", a)
		}
	}
	for _, c := range []trial.Compression{trial.CompressionNone, trial.CompressionGzip, trial.CompressionSnappy, trial.CompressionLZ4, trial.CompressionZstd} {
		if _, ok := saramaCompression[c]; !ok {
			t.Errorf("sarama: no compression %q", c)
		}
		if _, ok := franzCompression[c]; !ok {
			t.Errorf("franz-go: no compression %q", c)
		}
	}
}
