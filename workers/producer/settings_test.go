package producer

import (
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
)

func TestSaramaConfigMapping(t *testing.T) {
	s := plan.Settings{Mode: "batch", BatchSizeBytes: 100000, LingerMs: 100, Acks: "1", Compression: "snappy", MaxInFlight: 3}
	c, err := SaramaConfig(s, "x")
	if err != nil {
		t.Fatal(err)
	}
	if c.Producer.Flush.Bytes != 100000 || c.Producer.Flush.Frequency != 100*time.Millisecond {
		t.Errorf("batch/linger: bytes %d frequency %s", c.Producer.Flush.Bytes, c.Producer.Flush.Frequency)
	}
	if c.Producer.RequiredAcks != sarama.WaitForLocal || c.Producer.Compression != sarama.CompressionSnappy || c.Net.MaxOpenRequests != 3 {
		t.Errorf("acks %v compression %v inflight %d", c.Producer.RequiredAcks, c.Producer.Compression, c.Net.MaxOpenRequests)
	}
	if !c.Producer.Return.Successes || c.Producer.Idempotent {
		t.Error("successes must be returned; idempotence must be off")
	}

	for acks, want := range map[string]sarama.RequiredAcks{"0": sarama.NoResponse, "1": sarama.WaitForLocal, "all": sarama.WaitForAll} {
		s.Acks = v1alpha1.Acks(acks)
		c, err := SaramaConfig(s, "x")
		if err != nil || c.Producer.RequiredAcks != want {
			t.Errorf("acks %s: %v %v", acks, c.Producer.RequiredAcks, err)
		}
	}
	for name, want := range map[string]sarama.CompressionCodec{"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP,
		"snappy": sarama.CompressionSnappy, "lz4": sarama.CompressionLZ4, "zstd": sarama.CompressionZSTD} {
		s.Compression = v1alpha1.Compression(name)
		c, err := SaramaConfig(s, "x")
		if err != nil || c.Producer.Compression != want {
			t.Errorf("compression %s: %v %v", name, c.Producer.Compression, err)
		}
	}
}

func TestSaramaConfigSingleAndIdempotent(t *testing.T) {
	c, err := SaramaConfig(plan.Settings{Mode: "single", BatchSizeBytes: 100000, LingerMs: 100, Acks: "1", Compression: "none", MaxInFlight: 5}, "x")
	if err != nil {
		t.Fatal(err)
	}
	if c.Producer.Flush.Frequency != 0 || c.Producer.Flush.Bytes != 0 || c.Producer.Flush.MaxMessages != 1 {
		t.Errorf("single mode must not batch or linger: %+v", c.Producer.Flush)
	}
	c, err = SaramaConfig(plan.Settings{Mode: "batch", Acks: "all", Compression: "none", MaxInFlight: 1, Idempotent: true}, "x")
	if err != nil || !c.Producer.Idempotent {
		t.Fatalf("idempotent: %v", err)
	}
	if _, err := SaramaConfig(plan.Settings{Mode: "batch", Acks: "1", Compression: "none", MaxInFlight: 5, Idempotent: true}, "x"); err == nil {
		t.Error("idempotent with acks=1 must be rejected")
	}
	if _, err := SaramaConfig(plan.Settings{Mode: "batch", Acks: "2", Compression: "none", MaxInFlight: 5}, "x"); err == nil {
		t.Error("acks=2 must be rejected")
	}
}
