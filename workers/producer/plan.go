package producer

import (
	"fmt"
	"time"

	"github.com/serdebench/serdebench/api/trial"
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

// Plan is a trial's producer settings resolved for any client, as the Java client
// would apply them: how large one partition's batch may grow, how long it may
// wait, whether each record goes alone. NewPlan decides it once; each client's
// adapter (SaramaConfig in sarama_config.go, FranzOptions in franz.go, RdkafkaConfig in
// rdkafka.go) only applies
// it. docs/producer-settings.md explains each rule and where a client differs
// from the Java client.
type Plan struct {
	// Acks and Compression are the trial's, checked.
	Acks        trial.Acks
	Compression trial.Compression
	// BatchMaxBytes caps one partition's batch: batch.size within the topic's
	// max.message.bytes, never below the largest record (Java sends a record larger
	// than batch.size in a batch of its own; sarama would hold it, franz-go fail it).
	BatchMaxBytes int
	// Linger is how long a batch may wait to fill; 0 sends as soon as the sender is
	// free, and records that arrive meanwhile join the next request.
	Linger time.Duration
	// OnePerBatch sends every record in a batch of its own, at once: single mode
	// (one record in flight) and Java's batch.size=0 (batching off).
	OnePerBatch bool
	// MaxInFlight is requests per broker connection; Idempotent the idempotent
	// producer (also a transactional one's).
	MaxInFlight int
	Idempotent  bool
	// Transactional is a transactional producer (its id: transactionalID);
	// TransactionTimeout bounds a transaction at the coordinator
	// (transactionTimeout).
	Transactional      bool
	TransactionTimeout time.Duration
}

// javaTransactionTimeout is the Java client's transaction.timeout.ms default.
const javaTransactionTimeout = time.Minute

// NewPlan resolves s for a producer whose largest value is maxValueBytes on a
// topic whose max.message.bytes is topicMaxBytes (0: Kafka's default).
func NewPlan(s trial.Settings, maxValueBytes, topicMaxBytes int) (Plan, error) {
	if topicMaxBytes <= 0 {
		topicMaxBytes = DefaultMaxMessageBytes
	}
	switch s.Acks {
	case trial.AcksNone, trial.AcksLeader, trial.AcksAll:
	default:
		return Plan{}, fmt.Errorf("acks %q: want 0, 1 or all", s.Acks)
	}
	switch s.Compression {
	case trial.CompressionNone, trial.CompressionGzip, trial.CompressionSnappy, trial.CompressionLZ4, trial.CompressionZstd:
	default:
		return Plan{}, fmt.Errorf("compression %q: want none, gzip, snappy, lz4 or zstd", s.Compression)
	}
	p := Plan{Acks: s.Acks, Compression: s.Compression, MaxInFlight: int(s.MaxInFlight), Idempotent: s.Idempotent}
	if s.Transactions.Enabled() {
		if s.Acks != trial.AcksAll {
			return Plan{}, fmt.Errorf("transactions need acks all, not %s", s.Acks)
		}
		p.Idempotent, p.Transactional, p.TransactionTimeout = true, true, transactionTimeout(s.Transactions, s.RecordsPerSecond)
	}
	floor := maxValueBytes + recordOverheadBytes
	switch {
	case s.Mode == trial.ModeSingle, s.Mode == trial.ModeBatch && s.BatchSizeBytes == 0:
		p.OnePerBatch, p.BatchMaxBytes = true, floor
	case s.Mode == trial.ModeBatch:
		p.BatchMaxBytes = max(min(int(s.BatchSizeBytes), topicMaxBytes-batchOverheadBytes), floor)
		p.Linger = time.Duration(s.LingerMs) * time.Millisecond
	default:
		return Plan{}, fmt.Errorf("mode %q: want batch or single", s.Mode)
	}
	return p, nil
}
