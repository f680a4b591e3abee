// Package trial defines what one worker is asked to run: a trial's codec, payload
// and fully resolved producer settings. It is the contract between the planner (and
// the operator) above and the workers below.
package trial

import (
	"fmt"
	"strings"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/source"
)

// Settings are a trial's effective producer settings: nothing left unset.
// Field meanings are those of v1alpha1.ProducerSettings and ExperimentSpec.
type Settings struct {
	// Mode is batch or single.
	Mode v1alpha1.Mode `json:"mode"`
	// BatchSizeBytes maps to sarama's Flush.Bytes.
	BatchSizeBytes int32 `json:"batchSizeBytes"`
	// LingerMs maps to sarama's Flush.Frequency.
	LingerMs int32 `json:"lingerMs"`
	// Acks is 0, 1 or all.
	Acks v1alpha1.Acks `json:"acks"`
	// Compression is the batch compression codec.
	Compression v1alpha1.Compression `json:"compression"`
	// MaxInFlight is the number of open requests per connection.
	MaxInFlight int32 `json:"maxInFlight"`
	// Idempotent enables the idempotent producer.
	Idempotent bool `json:"idempotent"`
	// RecordsPerSecond is the open-loop target per producer; 0 is a closed loop.
	RecordsPerSecond int64 `json:"recordsPerSecond"`
	// Client is the Kafka client library (empty in summaries of older versions:
	// sarama).
	Client v1alpha1.Client `json:"client,omitempty"`
	// SendBufferBytes and ReceiveBufferBytes size the producer's sockets (-1: the
	// operating system's).
	SendBufferBytes    int32 `json:"sendBufferBytes"`
	ReceiveBufferBytes int32 `json:"receiveBufferBytes"`
	// Partitioner is round-robin or sticky (empty in older summaries: round-robin).
	Partitioner v1alpha1.Partitioner `json:"partitioner,omitempty"`
	// PayloadCompression compresses each value before it is sent (empty: none).
	PayloadCompression v1alpha1.PayloadCompression `json:"payloadCompression,omitempty"`
}

// ConsumerSettings are a trial's effective consumer settings (v1alpha1.ConsumerSettings).
type ConsumerSettings struct {
	FetchMinBytes          int32 `json:"fetchMinBytes"`
	FetchMaxWaitMs         int32 `json:"fetchMaxWaitMs"`
	MaxPartitionFetchBytes int32 `json:"maxPartitionFetchBytes"`
	ReceiveBufferBytes     int32 `json:"receiveBufferBytes"`
	SendBufferBytes        int32 `json:"sendBufferBytes"`
}

// Trial is one run: a codec and payload size under one set of producer settings.
type Trial struct {
	// Index is the trial's position in the plan, from 0.
	Index int `json:"index"`
	// Name is short, unique within the experiment and usable in Kafka topic and
	// Kubernetes object names.
	Name string `json:"name"`
	// Codec encodes the records.
	Codec v1alpha1.Codec `json:"codec"`
	// Schema is the built-in payload schema (empty with Source).
	Schema string `json:"schema"`
	// Source is the user's own schema and samples, as files the worker reads.
	Source *source.Spec `json:"source,omitempty"`
	// SizeBytes is the payload's target JSON-encoded size.
	SizeBytes int32 `json:"sizeBytes"`
	// Settings are the effective producer settings.
	Settings Settings `json:"settings"`
	// Consumer are the effective consumer settings.
	Consumer ConsumerSettings `json:"consumer"`
	// Records per producer in the measured window (0 when DurationSeconds is set).
	Records int64 `json:"records,omitempty"`
	// DurationSeconds is the measured window's length (0 when Records is set).
	DurationSeconds int32 `json:"durationSeconds,omitempty"`
	// Warmup precedes the measured window.
	Warmup v1alpha1.Warmup `json:"warmup"`
	// IntervalSeconds is the length of the result's intervals (0 in older plans:
	// the default).
	IntervalSeconds int32 `json:"intervalSeconds,omitempty"`
	// Search, if set, raises the rate in steps from Settings.RecordsPerSecond
	// (defaults applied).
	Search *v1alpha1.RateSearch `json:"search,omitempty"`
	// Producers and Consumers are the worker counts.
	Producers int32 `json:"producers"`
	Consumers int32 `json:"consumers"`
	// ExistingTopic, if set, is the topic to run on instead of a fresh one: shared
	// with other traffic and trials, never created or deleted.
	ExistingTopic string `json:"existingTopic,omitempty"`
	// Partitions, Replicas and TopicConfig shape the trial's topic.
	Partitions  int32             `json:"partitions"`
	Replicas    int32             `json:"replicas"`
	TopicConfig map[string]string `json:"topicConfig,omitempty"`
	// Seed and PoolSize drive payload generation.
	Seed     int64 `json:"seed"`
	PoolSize int32 `json:"poolSize"`
}

// Describe is a short human label of the settings that vary, e.g. for table rows.
func (s Settings) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s acks=%s %s", s.Mode, s.Acks, s.Compression)
	if s.Mode == v1alpha1.ModeBatch {
		fmt.Fprintf(&b, " batch=%d linger=%dms", s.BatchSizeBytes, s.LingerMs)
	}
	if s.MaxInFlight != v1alpha1.DefaultMaxInFlight {
		fmt.Fprintf(&b, " inflight=%d", s.MaxInFlight)
	}
	if s.Idempotent {
		b.WriteString(" idempotent")
	}
	if s.Client != "" && s.Client != v1alpha1.DefaultClient {
		fmt.Fprintf(&b, " client=%s", s.Client)
	}
	if s.Partitioner != "" && s.Partitioner != v1alpha1.DefaultPartitioner {
		fmt.Fprintf(&b, " partitioner=%s", s.Partitioner)
	}
	if s.PayloadCompression != "" && s.PayloadCompression != v1alpha1.PayloadCompressionNone {
		fmt.Fprintf(&b, " payload=%s", s.PayloadCompression)
	}
	if s.RecordsPerSecond > 0 {
		fmt.Fprintf(&b, " rate=%d/s", s.RecordsPerSecond)
	}
	return b.String()
}

// SourceSchemaPrefix starts the schema name results give a trial of the user's own
// records: source:<format>.
const SourceSchemaPrefix = "source:"

// PayloadSchema is the schema results name: the built-in schema, or source:<format>
// for the user's own records.
func (t Trial) PayloadSchema() string {
	if t.Source != nil {
		return SourceSchemaPrefix + t.Source.Format
	}
	return t.Schema
}

// IntervalSecondsOrDefault is the length of the result's intervals, the default
// for plans that do not say.
func (t Trial) IntervalSecondsOrDefault() int32 {
	if t.IntervalSeconds <= 0 {
		return v1alpha1.DefaultIntervalSeconds
	}
	return t.IntervalSeconds
}
