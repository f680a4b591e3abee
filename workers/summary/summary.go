package summary

import (
	"time"

	"github.com/serdebench/serdebench/workers/usage"
)

// Roles of workers.
const (
	RoleProducer = "producer"
	RoleConsumer = "consumer"
)

// Histogram names in summaries. Units are in the names.
const (
	SerializeNanos   = "serialize_ns"
	DeserializeNanos = "deserialize_ns"
	// CompressNanos and DecompressNanos time payload compression of one value.
	CompressNanos    = "compress_ns"
	DecompressNanos  = "decompress_ns"
	AckLatencyMicros = "ack_latency_us"
	SendDelayMicros  = "send_delay_us"
	EndToEndMicros   = "e2e_latency_us"
	// FetchIntervalMicros is the time between a consumer's successive fetch
	// responses that carried records, in the measured window (franz-go only: sarama
	// hides its fetches behind per-partition channels).
	FetchIntervalMicros = "fetch_interval_us"
	histogramsPerTrial  = 9
)

// Summary is one worker's report for one trial: what it did in the measured window,
// with its latency distributions encoded so that workers merge exactly.
type Summary struct {
	// Role is producer or consumer.
	Role string `json:"role"`
	// Worker identifies the worker within the trial (producer index or consumer name).
	Worker     string `json:"worker"`
	Experiment string `json:"experiment"`
	Trial      string `json:"trial"`
	Codec      string `json:"codec"`
	Schema     string `json:"schema"`
	SizeBytes  int    `json:"sizeBytes"`

	// WindowStart and WindowEnd bound the measured window on this worker's wall clock:
	// for a producer from the intended send time of its first measured record (in a
	// closed loop whose warmup ends by the clock, from that instant) to the
	// acknowledgement of its last; for a consumer from its first to its last measured
	// record received.
	WindowStart time.Time `json:"windowStart"`
	WindowEnd   time.Time `json:"windowEnd"`

	// Records in the measured window (producer: acknowledged; consumer: received,
	// duplicates included).
	Records int64 `json:"records"`
	// WarmupRecords were sent or received before the window and are excluded.
	WarmupRecords int64 `json:"warmupRecords"`
	// PayloadBytes is the JSON-encoded size of the measured records (the logical size).
	PayloadBytes int64 `json:"payloadBytes"`
	// SerializedBytes is the size of the measured records' encoded values.
	SerializedBytes int64 `json:"serializedBytes"`
	// StartAt is the instant the trial's coordinator gave a producer to begin
	// at (warmup included), on its clock; zero without one.
	StartAt time.Time `json:"startAt,omitzero"`
	// Commits counts the offset commits a consumer sent and waited for: one per
	// record with commit eachRecord, 0 with interval (the clients commit then).
	// (sarama reports a failed commit only on its error channel, logged.)
	Commits int64 `json:"commits,omitempty"`
	// LingerMicros is how long the producer's client let a batch wait to fill
	// (0 in single mode): records queueing longer waited for something else.
	LingerMicros int64 `json:"lingerMicros,omitempty"`
	// HeaderBytes is what the measured records' serdebench headers took, keys and
	// values (producer only).
	HeaderBytes int64 `json:"headerBytes,omitempty"`
	// CodecNanos is the total time spent in Marshal (producer) or Unmarshal (consumer)
	// for measured records.
	CodecNanos int64 `json:"codecNanos"`
	// CompressedBytes is the size of the measured records' values after payload
	// compression, as sent (payload.compression only).
	CompressedBytes int64 `json:"compressedBytes,omitempty"`
	// CompressNanos is the total time spent compressing (producer) or decompressing
	// (consumer) measured values.
	CompressNanos int64 `json:"compressNanos,omitempty"`
	// Errors counts failed sends (producer) or failed decodes (consumer).
	Errors int64 `json:"errors"`
	// FirstError is the first error's text, for the result's message.
	FirstError string `json:"firstError,omitempty"`

	// Histograms by name (see the *Nanos and *Micros constants).
	Histograms map[string]*Histogram `json:"histograms"`
	// Series is the worker's measurements per interval (empty in summaries of
	// older versions).
	Series *Series `json:"series,omitempty"`
	// Steps are a rate search's measured records per step (rate.search only).
	Steps Steps `json:"steps,omitempty"`
	// SearchStop says why a producer ended a rate search early.
	SearchStop string `json:"searchStop,omitempty"`

	// Acked is, per partition, the sequence numbers the producer got an
	// acknowledgement for (warmup included; with acks=0, those written to the socket).
	Acked []Delivery `json:"acked,omitempty"`
	// Failed is, per partition, the sequence numbers whose send failed (the client
	// gave up after its retries). The broker may still have stored some of them.
	Failed []Delivery `json:"failed,omitempty"`
	// Aborted is, per partition, the sequence numbers of records in aborted
	// transactions (transactional producers; Acked then holds only committed
	// transactions' records).
	Aborted []Delivery `json:"aborted,omitempty"`
	// InDoubt is, per partition, the sequence numbers of records in
	// transactions whose commit went unanswered: neither acknowledged nor
	// aborted (a consumer that received one shows it committed).
	InDoubt []Delivery `json:"inDoubt,omitempty"`
	// Transactions are a transactional producer's transactions.
	Transactions *TransactionStats `json:"transactions,omitempty"`
	// Unacknowledged counts records handed to the client that had neither an
	// acknowledgement nor an error when the producer stopped (only when interrupted).
	Unacknowledged int64 `json:"unacknowledged,omitempty"`
	// Received is the consumer's record of which sequence numbers arrived, warmup
	// included, by producer and partition.
	Received []Delivery `json:"received,omitempty"`
	// Segments are the consumer's uninterrupted runs of consumption, per
	// partition (the merge finds stalls between them: Stalls).
	Segments []Segment `json:"segments,omitempty"`
	// Share are a share-group consumer's deliveries (nil: a consumer group).
	Share *ShareStats `json:"share,omitempty"`
	// ReadCommitted is whether the consumer read with read-committed isolation.
	ReadCommitted bool `json:"readCommitted,omitempty"`
	// Foreign counts records the consumer skipped because they belong to another
	// run (other traffic or earlier trials on a shared topic).
	Foreign int64 `json:"foreign,omitempty"`
	// ClientSettings are the client library's own settings this worker ran with, by
	// the library's names, where their meaning differs between clients.
	ClientSettings map[string]string `json:"clientSettings,omitempty"`
	// Client are the Kafka client's own statistics over the worker's run (nil in
	// summaries of older versions).
	Client *ClientStats `json:"client,omitempty"`
	// Registry is what the worker's schema registry client cost (registry codecs
	// only).
	Registry *RegistryStats `json:"registry,omitempty"`
	// Usage is what the worker's process spent in its measured window: CPU time,
	// peak resident set and Go heap (nil: not measured, as when workers share a
	// process in `serdebench run`).
	Usage *usage.Window `json:"usage,omitempty"`
	// Build is what the worker ran on besides its settings: its runtime, its Kafka
	// client library and its machine (nil in summaries of older versions).
	Build *Build `json:"build,omitempty"`
	// Probe is the producer's machine, measured without Kafka before its schedule
	// began, its CPU part again after the window (producer 0 of a trial only: two
	// probes at once would measure each other).
	Probe *Probe `json:"probe,omitempty"`
	// Left is true when a consumer left its group before the trial was complete
	// on purpose (a fault scenario's leave): its summary is whole up to then.
	Left bool `json:"left,omitempty"`
	// Interrupted is true when the worker stopped before its trial was complete
	// (SIGTERM, timeout): its numbers are partial and the trial must not count.
	Interrupted bool `json:"interrupted,omitempty"`
}

// RegistryStats is one worker's schema registry cost.
type RegistryStats struct {
	// Requests are the HTTP requests its client sent over the whole run
	// (registrations, lookups, retries), and RequestNanos their total time.
	Requests     int64 `json:"requests"`
	RequestNanos int64 `json:"requestNanos"`
	// LookupNanos is what the measured records spent outside CodecNanos on the
	// registry's account: a producer's schema id from its client and the header
	// written, a consumer's header read and writer schema looked up by id (cache
	// hits, after each schema's first).
	LookupNanos int64 `json:"lookupNanos"`
	// LookupInCodec says the worker's serializer or deserializer does the id and
	// the header inside its codec call (the JVM worker's Apicurio serdes): its
	// header time is in CodecNanos, and LookupNanos measures nothing.
	LookupInCodec bool `json:"lookupInCodec,omitempty"`
}

// Delivery is a set of sequence numbers of one producer on one partition, as sorted
// half-open intervals: what a consumer received (Total counts duplicates too), or
// what a producer got acknowledged or saw fail.
type Delivery struct {
	Producer  int       `json:"producer"`
	Partition int       `json:"partition"`
	Total     int64     `json:"total"`
	Intervals Intervals `json:"intervals"`
}

// Histogram returns the named histogram, creating it if needed.
func (s *Summary) Histogram(name string, newFn func() *Histogram) *Histogram {
	if s.Histograms == nil {
		s.Histograms = make(map[string]*Histogram, histogramsPerTrial)
	}
	h, ok := s.Histograms[name]
	if !ok {
		h = newFn()
		s.Histograms[name] = h
	}
	return h
}
