package producer

import (
	"fmt"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/kafkaconn"
)

// saramaAcks and saramaCompression are sarama's values of the settings' enums.
var (
	saramaAcks = map[trial.Acks]sarama.RequiredAcks{
		trial.AcksNone: sarama.NoResponse, trial.AcksLeader: sarama.WaitForLocal, trial.AcksAll: sarama.WaitForAll,
	}
	saramaCompression = map[trial.Compression]sarama.CompressionCodec{
		trial.CompressionNone: sarama.CompressionNone, trial.CompressionGzip: sarama.CompressionGZIP,
		trial.CompressionSnappy: sarama.CompressionSnappy, trial.CompressionLZ4: sarama.CompressionLZ4,
		trial.CompressionZstd: sarama.CompressionZSTD,
	}
)

// saramaChannelBuffer is sarama's ChannelBufferSize for a producer (see
// SaramaConfig).
const saramaChannelBuffer = 32

// SaramaConfig applies a trial's producer plan (NewPlan: maxValueBytes is the
// largest value the producer will send, topicMaxBytes the topic's
// max.message.bytes, 0 for Kafka's default) to sarama.
func SaramaConfig(s trial.Settings, clientID string, maxValueBytes, topicMaxBytes int) (*sarama.Config, error) {
	if topicMaxBytes <= 0 {
		topicMaxBytes = DefaultMaxMessageBytes
	}
	p, err := NewPlan(s, maxValueBytes, topicMaxBytes)
	if err != nil {
		return nil, err
	}
	c := kafkaconn.Base(clientID)
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	// The worker chooses partitions itself (round-robin) so that sequence numbers are
	// per partition and the consumer can detect loss exactly.
	c.Producer.Partitioner = sarama.NewManualPartitioner
	c.Producer.RequiredAcks = saramaAcks[p.Acks]
	c.Producer.Compression = saramaCompression[p.Compression]
	c.Net.MaxOpenRequests = p.MaxInFlight
	kafkaconn.ApplyBuffers(c, kafkaconn.Buffers{Send: int(s.SendBufferBytes), Receive: int(s.ReceiveBufferBytes)})
	// The batch cap is sarama's MaxMessageBytes, its per-partition limit (a record
	// that would overflow it waits for the next request). A partition whose batch is
	// full makes sarama send what the broker has pending, as a full batch makes Java
	// drain every partition of that broker.
	c.Producer.MaxMessageBytes = p.BatchMaxBytes
	// sarama's topic producer and each partition producer take records through a
	// channel of this size (its other channels are unbuffered). At its default of
	// 256 they ran ahead in bursts, and its broker producer sent half-full batches
	// in three times as many requests: 1,176 B records at batch.size 100,000 and
	// linger.ms 100 went 41 to a batch instead of 76, at 0.79x Kafka's
	// ProducerPerformance. At 32 they keep in step and batches fill: 1.27x the
	// throughput at 256, and 100 B records run alike at either
	// (docs/measurement.md, "Throughput of the worker itself").
	c.ChannelBufferSize = saramaChannelBuffer
	switch {
	case p.OnePerBatch:
		c.Producer.Flush.MaxMessages = 1
	case p.Linger > 0:
		// No byte trigger on top: sarama's Flush.Bytes counts the broker's whole
		// pending set, so it would send once all partitions together held one
		// batch.size, earlier than Java.
		c.Producer.Flush.Frequency = p.Linger
		// (Linger 0 is all flush triggers at zero: sarama sends when it is free. A
		// byte trigger without a timer would hold the last partial batch forever.)
	}
	if p.Idempotent {
		c.Producer.Idempotent = true
		c.Producer.Retry.Max = max(c.Producer.Retry.Max, 1)
		c.Version = sarama.V2_8_0_0
	}
	if p.Transactional {
		// Refused by the planner (api/trial.Features): sarama's transaction
		// manager races when a send fails.
		return nil, fmt.Errorf("settings %s: sarama's transactional producer is not supported (api/trial.Features)", s.Describe())
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("sarama rejects settings %s: %w", s.Describe(), err)
	}
	return c, nil
}
