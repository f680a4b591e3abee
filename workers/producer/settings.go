package producer

import (
	"fmt"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/kafkaconn"
	"github.com/serdebench/serdebench/internal/plan"
)

// SaramaConfig maps a trial's producer settings onto sarama. docs/producer-settings.md
// explains each mapping and where sarama differs from the Java client.
func SaramaConfig(s plan.Settings, clientID string) (*sarama.Config, error) {
	c := kafkaconn.Base(clientID)
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	// The worker chooses partitions itself (round-robin) so that sequence numbers are
	// per partition and the consumer can detect loss exactly.
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Producer.MaxMessageBytes = 10 << 20

	switch s.Acks {
	case v1alpha1.AcksNone:
		c.Producer.RequiredAcks = sarama.NoResponse
	case v1alpha1.AcksLeader:
		c.Producer.RequiredAcks = sarama.WaitForLocal
	case v1alpha1.AcksAll:
		c.Producer.RequiredAcks = sarama.WaitForAll
	default:
		return nil, fmt.Errorf("acks %q: want 0, 1 or all", s.Acks)
	}

	switch s.Compression {
	case v1alpha1.CompressionNone:
		c.Producer.Compression = sarama.CompressionNone
	case v1alpha1.CompressionGzip:
		c.Producer.Compression = sarama.CompressionGZIP
	case v1alpha1.CompressionSnappy:
		c.Producer.Compression = sarama.CompressionSnappy
	case v1alpha1.CompressionLZ4:
		c.Producer.Compression = sarama.CompressionLZ4
	case v1alpha1.CompressionZstd:
		c.Producer.Compression = sarama.CompressionZSTD
	default:
		return nil, fmt.Errorf("compression %q: want none, gzip, snappy, lz4 or zstd", s.Compression)
	}

	c.Net.MaxOpenRequests = int(s.MaxInFlight)

	switch s.Mode {
	case v1alpha1.ModeSingle:
		// One record in flight: nothing to batch or wait for.
		c.Producer.Flush.Bytes = 0
		c.Producer.Flush.Frequency = 0
		c.Producer.Flush.MaxMessages = 1
	case v1alpha1.ModeBatch:
		c.Producer.Flush.Bytes = int(s.BatchSizeBytes)
		c.Producer.Flush.Frequency = time.Duration(s.LingerMs) * time.Millisecond
		if s.BatchSizeBytes == 0 {
			// Java's batch.size=0 disables batching.
			c.Producer.Flush.MaxMessages = 1
		}
	default:
		return nil, fmt.Errorf("mode %q: want batch or single", s.Mode)
	}

	if s.Idempotent {
		c.Producer.Idempotent = true
		c.Producer.Retry.Max = max(c.Producer.Retry.Max, 1)
		c.Version = sarama.V2_8_0_0
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("sarama rejects settings %s: %w", s.Describe(), err)
	}
	return c, nil
}
