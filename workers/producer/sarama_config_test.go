package producer

import (
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
)

func TestSaramaConfigMapping(t *testing.T) {
	s := trial.Settings{Mode: "batch", BatchSizeBytes: 100000, LingerMs: 100, Acks: "1", Compression: "snappy", MaxInFlight: 3}
	c, err := SaramaConfig(s, "x", 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The partition cap is the byte trigger (a full partition sends the broker's
	// pending set, as Java drains a ready node); no broker-wide byte trigger.
	if c.Producer.Flush.Bytes != 0 || c.Producer.Flush.Frequency != 100*time.Millisecond || c.Producer.MaxMessageBytes != 100000 {
		t.Errorf("batch/linger: flush bytes %d frequency %s cap %d", c.Producer.Flush.Bytes, c.Producer.Flush.Frequency, c.Producer.MaxMessageBytes)
	}
	if c.Net.Proxy.Enable {
		t.Error("socket buffers left to the OS must keep sarama's own dialer")
	}
	s.SendBufferBytes, s.ReceiveBufferBytes = 1<<20, 65536
	if c, err := SaramaConfig(s, "x", 1000, 0); err != nil || !c.Net.Proxy.Enable || c.Net.Proxy.Dialer == nil {
		t.Errorf("socket buffers must install a dialer: %v", err)
	}
	s.SendBufferBytes, s.ReceiveBufferBytes = -1, -1
	if c.Producer.RequiredAcks != sarama.WaitForLocal || c.Producer.Compression != sarama.CompressionSnappy || c.Net.MaxOpenRequests != 3 {
		t.Errorf("acks %v compression %v inflight %d", c.Producer.RequiredAcks, c.Producer.Compression, c.Net.MaxOpenRequests)
	}
	if !c.Producer.Return.Successes || c.Producer.Idempotent {
		t.Error("successes must be returned; idempotence must be off")
	}

	for acks, want := range map[string]sarama.RequiredAcks{"0": sarama.NoResponse, "1": sarama.WaitForLocal, "all": sarama.WaitForAll} {
		s.Acks = trial.Acks(acks)
		c, err := SaramaConfig(s, "x", 1000, 0)
		if err != nil || c.Producer.RequiredAcks != want {
			t.Errorf("acks %s: %v %v", acks, c.Producer.RequiredAcks, err)
		}
	}
	for name, want := range map[string]sarama.CompressionCodec{"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP,
		"snappy": sarama.CompressionSnappy, "lz4": sarama.CompressionLZ4, "zstd": sarama.CompressionZSTD} {
		s.Compression = trial.Compression(name)
		c, err := SaramaConfig(s, "x", 1000, 0)
		if err != nil || c.Producer.Compression != want {
			t.Errorf("compression %s: %v %v", name, c.Producer.Compression, err)
		}
	}
}

func TestSaramaConfigSingleAndIdempotent(t *testing.T) {
	c, err := SaramaConfig(trial.Settings{Mode: "single", BatchSizeBytes: 100000, LingerMs: 100, Acks: "1", Compression: "none", MaxInFlight: 5}, "x", 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Producer.Flush.Frequency != 0 || c.Producer.Flush.Bytes != 0 || c.Producer.Flush.MaxMessages != 1 {
		t.Errorf("single mode must not batch or linger: %+v", c.Producer.Flush)
	}
	c, err = SaramaConfig(trial.Settings{Mode: "batch", Acks: "all", Compression: "none", MaxInFlight: 1, Idempotent: true}, "x", 1000, 0)
	if err != nil || !c.Producer.Idempotent {
		t.Fatalf("idempotent: %v", err)
	}
	if _, err := SaramaConfig(trial.Settings{Mode: "batch", Acks: "1", Compression: "none", MaxInFlight: 5, Idempotent: true}, "x", 1000, 0); err == nil {
		t.Error("idempotent with acks=1 must be rejected")
	}
	if _, err := SaramaConfig(trial.Settings{Mode: "batch", Acks: "2", Compression: "none", MaxInFlight: 5}, "x", 1000, 0); err == nil {
		t.Error("acks=2 must be rejected")
	}
}

// TestLingerAndBatchMapping: linger 0 sends as soon as possible (all of sarama's
// flush triggers at zero: a byte trigger without a timer would strand the last
// partial batch), batch.size caps each partition's batch, batch 0 disables batching,
// and the cap never rejects a record larger than batch.size.
func TestLingerAndBatchMapping(t *testing.T) {
	base := trial.Settings{Mode: "batch", Acks: "1", Compression: "none", MaxInFlight: 5}
	for _, c := range []struct {
		batch, linger      int32
		bytes, maxMessages int
		frequency          time.Duration
		partitionCap       int
	}{
		{batch: 65536, linger: 0, partitionCap: 65536},
		// The partition cap is the byte trigger; no broker-wide Flush.Bytes.
		{batch: 16384, linger: 100, frequency: 100 * time.Millisecond, partitionCap: 16384},
		{batch: 0, linger: 100, maxMessages: 1, partitionCap: 1000 + recordOverheadBytes},
		{batch: 0, linger: 0, maxMessages: 1, partitionCap: 1000 + recordOverheadBytes},
		{batch: 512, linger: 5, frequency: 5 * time.Millisecond, partitionCap: 1000 + recordOverheadBytes},
		// Above the broker's default max.message.bytes: capped below it.
		{batch: 64 << 20, linger: 5, frequency: 5 * time.Millisecond, partitionCap: DefaultMaxMessageBytes - batchOverheadBytes},
	} {
		s := base
		s.BatchSizeBytes, s.LingerMs = c.batch, c.linger
		cfg, err := SaramaConfig(s, "x", 1000, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := cfg.Producer.Flush
		if f.Bytes != c.bytes || f.Frequency != c.frequency || f.Messages != 0 || f.MaxMessages != c.maxMessages || cfg.Producer.MaxMessageBytes != c.partitionCap {
			t.Errorf("batch %d linger %d: flush %+v, partition cap %d; want bytes %d frequency %s max messages %d cap %d",
				c.batch, c.linger, f, cfg.Producer.MaxMessageBytes, c.bytes, c.frequency, c.maxMessages, c.partitionCap)
		}
		// A byte trigger must always come with a timer, or a partial batch waits forever.
		if f.Bytes > 0 && f.Frequency == 0 {
			t.Errorf("batch %d linger %d: byte trigger without a timer", c.batch, c.linger)
		}
	}
}

// TestBatchCapFollowsTopicLimit: a topic that allows larger batches lets batch.size
// go further.
func TestBatchCapFollowsTopicLimit(t *testing.T) {
	s := trial.Settings{Mode: "batch", BatchSizeBytes: 8 << 20, LingerMs: 5, Acks: "1", Compression: "none", MaxInFlight: 5}
	c, err := SaramaConfig(s, "x", 1000, 16<<20)
	if err != nil || c.Producer.MaxMessageBytes != 8<<20 {
		t.Fatalf("cap %d, %v", c.Producer.MaxMessageBytes, err)
	}
}
