package producer

import (
	"fmt"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/trial"
)

// recordOverheadBytes bounds what a record adds to its value on the wire (record
// framing and serdebench's five headers), for sizing the per-partition batch cap.
const recordOverheadBytes = 256

// DefaultMaxMessageBytes is Kafka's default max.message.bytes: the largest record
// batch a broker accepts. sarama does not split a rejected batch as the Java client
// does, so its per-partition cap stays below it.
const DefaultMaxMessageBytes = 1048588

// batchOverheadBytes is a record batch's header.
const batchOverheadBytes = 61

// SaramaConfig maps a trial's producer settings onto sarama. maxValueBytes is the
// largest value the producer will send: the per-partition batch cap never rejects a
// single record (Java sends a record larger than batch.size in a batch of its own).
// docs/producer-settings.md explains each mapping and where sarama differs from the
// Java client.
//
// topicMaxBytes is the topic's max.message.bytes (0: Kafka's default): batch.size
// beyond it is capped, since the broker would reject such a batch.
func SaramaConfig(s trial.Settings, clientID string, maxValueBytes, topicMaxBytes int) (*sarama.Config, error) {
	if topicMaxBytes <= 0 {
		topicMaxBytes = DefaultMaxMessageBytes
	}
	c := kafkaconn.Base(clientID)
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	// The worker chooses partitions itself (round-robin) so that sequence numbers are
	// per partition and the consumer can detect loss exactly.
	c.Producer.Partitioner = sarama.NewManualPartitioner

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
	kafkaconn.ApplyBuffers(c, kafkaconn.Buffers{Send: int(s.SendBufferBytes), Receive: int(s.ReceiveBufferBytes)})

	switch s.Mode {
	case v1alpha1.ModeSingle:
		// One record in flight: nothing to batch or wait for.
		c.Producer.Flush.Bytes = 0
		c.Producer.Flush.Frequency = 0
		c.Producer.Flush.MaxMessages = 1
		c.Producer.MaxMessageBytes = maxValueBytes + recordOverheadBytes
	case v1alpha1.ModeBatch:
		// batch.size caps each partition's batch in both clients: sarama's
		// MaxMessageBytes is its per-partition limit (a record that would overflow it
		// waits for the next request).
		c.Producer.MaxMessageBytes = max(min(int(s.BatchSizeBytes), topicMaxBytes-batchOverheadBytes), maxValueBytes+recordOverheadBytes)
		switch {
		case s.BatchSizeBytes == 0:
			// Java's batch.size=0 disables batching: every record is its own batch,
			// sent at once whatever linger.ms says.
			c.Producer.Flush.MaxMessages = 1
		case s.LingerMs == 0:
			// Java's linger.ms=0 sends as soon as the sender is free; records that
			// arrive meanwhile join the next request, up to batch.size per partition.
			// In sarama that is all flush triggers at zero. (A byte trigger without a
			// timer would hold the last partial batch forever.)
		default:
			// A partition whose batch is full (MaxMessageBytes) makes sarama send what
			// the broker has pending, as a full batch makes Java drain every
			// partition of that broker. No byte trigger on top: sarama's Flush.Bytes
			// counts the broker's whole pending set, so it would send once all
			// partitions together held one batch.size, earlier than Java.
			c.Producer.Flush.Frequency = time.Duration(s.LingerMs) * time.Millisecond
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
