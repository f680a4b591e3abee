package v1alpha1

// Codec names a serialization format implementation (docs/formats.md): a format
// with its mandated library, or a library variant named <format>/<library>.
// +kubebuilder:validation:Enum=json;avro;protobuf;msgpack;raw;thrift-binary;thrift-compact;capnproto;capnproto-packed;flatbuffers;gob;cbor;avro/hamba;msgpack/msgp;protobuf/vtproto;json/goccy
type Codec string

// Codecs known to the workers.
const (
	CodecJSON     Codec = "json"
	CodecAvro     Codec = "avro"
	CodecProtobuf Codec = "protobuf"
	CodecMsgpack  Codec = "msgpack"
	// CodecRaw sends the payload's JSON bytes as they are: the transport-only baseline.
	CodecRaw Codec = "raw"
	// CodecThriftBinary and CodecThriftCompact are Apache Thrift's two protocols.
	CodecThriftBinary  Codec = "thrift-binary"
	CodecThriftCompact Codec = "thrift-compact"
	// CodecCapnp and CodecCapnpPacked are Cap'n Proto messages, unpacked or packed.
	CodecCapnp       Codec = "capnproto"
	CodecCapnpPacked Codec = "capnproto-packed"
	CodecFlatbuffers Codec = "flatbuffers"
	// CodecGob is Go's language-native serialization (encoding/gob).
	CodecGob  Codec = "gob"
	CodecCBOR Codec = "cbor"
	// Library variants beside the mandated defaults.
	CodecAvroHamba       Codec = "avro/hamba"
	CodecMsgpackMsgp     Codec = "msgpack/msgp"
	CodecProtobufVtproto Codec = "protobuf/vtproto"
	CodecJSONGoccy       Codec = "json/goccy"
)

// Mode is how the producer sends.
// +kubebuilder:validation:Enum=batch;single
type Mode string

// Producer modes (the thesis' Test 1 and Test 2).
const (
	// ModeBatch sends asynchronously and lets the client batch.
	ModeBatch Mode = "batch"
	// ModeSingle sends one record, waits for its acknowledgement, then sends the next.
	ModeSingle Mode = "single"
)

// Acks is the producer's acknowledgement level.
// +kubebuilder:validation:Enum="0";"1";all
type Acks string

// Acknowledgement levels.
const (
	AcksNone   Acks = "0"
	AcksLeader Acks = "1"
	AcksAll    Acks = "all"
)

// Compression is the producer's batch compression codec.
// +kubebuilder:validation:Enum=none;gzip;snappy;lz4;zstd
type Compression string

// Compression codecs.
const (
	CompressionNone   Compression = "none"
	CompressionGzip   Compression = "gzip"
	CompressionSnappy Compression = "snappy"
	CompressionLZ4    Compression = "lz4"
	CompressionZstd   Compression = "zstd"
)

// PayloadCompression compresses each record value on its own before it is sent
// (docs/formats.md), apart from the producer's batch compression.
// +kubebuilder:validation:Enum=none;deflate;zstd;lz4;snappy;xz
type PayloadCompression string

// Payload compressors.
const (
	PayloadCompressionNone    PayloadCompression = "none"
	PayloadCompressionDeflate PayloadCompression = "deflate"
	PayloadCompressionZstd    PayloadCompression = "zstd"
	PayloadCompressionLZ4     PayloadCompression = "lz4"
	PayloadCompressionSnappy  PayloadCompression = "snappy"
	PayloadCompressionXZ      PayloadCompression = "xz"
)

// Client names the Kafka client library the workers use.
// +kubebuilder:validation:Enum=sarama;franz-go
type Client string

// Kafka clients (docs/producer-settings.md compares how each maps the settings).
const (
	// ClientSarama is github.com/IBM/sarama.
	ClientSarama Client = "sarama"
	// ClientFranz is github.com/twmb/franz-go.
	ClientFranz Client = "franz-go"
)

// Partitioner is how producers spread records over a topic's partitions.
// +kubebuilder:validation:Enum=round-robin;sticky
type Partitioner string

// Partitioning strategies (docs/producer-settings.md). The worker assigns partitions
// itself in both, so loss accounting stays exact.
const (
	// PartitionerRoundRobin sends each record to the next partition.
	PartitionerRoundRobin Partitioner = "round-robin"
	// PartitionerSticky sends records to one partition until batchSizeBytes went
	// there, then moves on: the Java client's default for unkeyed records (KIP-794).
	PartitionerSticky Partitioner = "sticky"
)

// ExperimentSpec is what to measure: which codecs and payloads, with which producer
// settings, how much traffic and how it is shaped. Lists and the matrix multiply into
// trials; every trial runs on a fresh topic.
// +kubebuilder:validation:XValidation:rule="has(self.records) != has(self.durationSeconds)",message="exactly one of records and durationSeconds must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || (has(self.durationSeconds) && has(self.rate.recordsPerSecond) && self.rate.recordsPerSecond > 0)",message="rate.search needs a starting rate.recordsPerSecond and durationSeconds (the longest the search may take)"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || !has(self.durationSeconds) || !has(self.rate.search.stepSeconds) || self.rate.search.stepSeconds <= self.durationSeconds",message="rate.search.stepSeconds must not exceed durationSeconds"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || !has(self.matrix) || !has(self.matrix.recordsPerSecond) || size(self.matrix.recordsPerSecond) == 0",message="rate.search chooses the rates itself: leave matrix.recordsPerSecond empty"
// +kubebuilder:validation:XValidation:rule="!has(self.rate) || !has(self.rate.search) || !has(self.rate.search.maxRecordsPerSecond) || !has(self.rate.recordsPerSecond) || self.rate.search.maxRecordsPerSecond > self.rate.recordsPerSecond",message="rate.search.maxRecordsPerSecond must be above the starting rate.recordsPerSecond"
// +kubebuilder:validation:XValidation:rule="!has(self.producer) || !has(self.producer.idempotent) || !self.producer.idempotent || !has(self.matrix) || ((!has(self.matrix.acks) || self.matrix.acks.all(a, a == 'all')) && (!has(self.matrix.maxInFlight) || self.matrix.maxInFlight.all(m, m == 1)))",message="idempotent producers need acks: all and maxInFlight: 1 in every matrix value"
// +kubebuilder:validation:XValidation:rule="!has(self.warmup) || !(has(self.warmup.records) && self.warmup.records > 0 && has(self.warmup.durationSeconds) && self.warmup.durationSeconds > 0)",message="warmup.records and warmup.durationSeconds are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="size(self.codecs) * (has(self.payload.sizesBytes) ? size(self.payload.sizesBytes) : 1) * (!has(self.matrix) ? 1 : ((has(self.matrix.batchSizeBytes) && size(self.matrix.batchSizeBytes) > 0 ? size(self.matrix.batchSizeBytes) : 1) * (has(self.matrix.lingerMs) && size(self.matrix.lingerMs) > 0 ? size(self.matrix.lingerMs) : 1) * (has(self.matrix.acks) && size(self.matrix.acks) > 0 ? size(self.matrix.acks) : 1) * (has(self.matrix.compression) && size(self.matrix.compression) > 0 ? size(self.matrix.compression) : 1) * (has(self.matrix.maxInFlight) && size(self.matrix.maxInFlight) > 0 ? size(self.matrix.maxInFlight) : 1) * (has(self.matrix.mode) && size(self.matrix.mode) > 0 ? size(self.matrix.mode) : 1) * (has(self.matrix.recordsPerSecond) && size(self.matrix.recordsPerSecond) > 0 ? size(self.matrix.recordsPerSecond) : 1) * (has(self.matrix.client) && size(self.matrix.client) > 0 ? size(self.matrix.client) : 1) * (has(self.matrix.payloadCompression) && size(self.matrix.payloadCompression) > 0 ? size(self.matrix.payloadCompression) : 1))) <= 256",message="the matrix expands to more than 256 trials"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || self.codecs.all(c, c in ['json', 'json/goccy', 'avro', 'protobuf', 'msgpack', 'cbor', 'raw'])",message="with payload.source only json, json/goccy, avro, protobuf, msgpack, cbor and raw apply: the other codecs need code generated from the schema"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || !self.codecs.exists(c, c == 'avro') || self.payload.source.format == 'avro'",message="codec avro with payload.source needs an Avro schema (format: avro)"
// +kubebuilder:validation:XValidation:rule="!has(self.payload.source) || !self.codecs.exists(c, c == 'protobuf') || self.payload.source.format == 'protobuf'",message="codec protobuf with payload.source needs a .proto (format: protobuf)"
type ExperimentSpec struct {
	// Codecs to compare; each is a separate trial.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=24
	// +listType=set
	Codecs []Codec `json:"codecs"`

	// Payload is the record schema and its sizes.
	Payload PayloadSpec `json:"payload"`

	// Producer holds the base producer settings; the matrix overrides them per trial.
	// +kubebuilder:default={}
	// +optional
	Producer ProducerSettings `json:"producer,omitempty"`

	// Client is the Kafka client library of the producers and consumers: sarama or
	// franz-go. Default sarama. Where their settings differ in meaning is in
	// docs/producer-settings.md and in each trial result's effectiveSettings.
	// +kubebuilder:default=sarama
	// +optional
	Client Client `json:"client,omitempty"`

	// Consumer holds the consumers' fetch and socket settings.
	// +kubebuilder:default={}
	// +optional
	Consumer ConsumerSettings `json:"consumer,omitempty"`

	// Matrix sweeps producer settings: every combination of the listed values becomes a
	// trial (times codecs times sizes).
	// +optional
	Matrix *Matrix `json:"matrix,omitempty"`

	// Mode is batch (asynchronous) or single (one record in flight). Default batch.
	// +kubebuilder:default=batch
	// +optional
	Mode Mode `json:"mode,omitempty"`

	// Records is the number of measured records each producer sends per trial
	// (warmup records come on top). Exactly one of records and durationSeconds is set.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1099511627776
	// +optional
	Records *int64 `json:"records,omitempty"`

	// DurationSeconds is the length of each trial's measured window.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=86400
	// +optional
	DurationSeconds *int32 `json:"durationSeconds,omitempty"`

	// Warmup is sent before the measured window and excluded from every metric except
	// delivery completeness.
	// +optional
	Warmup Warmup `json:"warmup,omitempty"`

	// Rate is the target send rate per producer; unset means as fast as possible.
	// +optional
	Rate Rate `json:"rate,omitempty"`

	// IntervalSeconds is the length of the intervals each trial result reports
	// throughput, latency percentiles and consumer backlog for. Long trials get
	// longer intervals (doubled until at most 60 remain). Default 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	IntervalSeconds int32 `json:"intervalSeconds,omitempty"`

	// Producers is the number of producer workers per trial. Default 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Producers int32 `json:"producers,omitempty"`

	// Consumers is the number of consumers in the trial's consumer group. Default 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Consumers int32 `json:"consumers,omitempty"`

	// Topic shapes the per-trial topic.
	// +kubebuilder:default={}
	// +optional
	Topic TopicSpec `json:"topic,omitempty"`

	// Seed makes payload generation reproducible; any value, 0 included. Default 1.
	// +kubebuilder:default=1
	// +optional
	Seed *int64 `json:"seed,omitempty"`

	// PoolSize is the number of distinct records each producer pre-builds and cycles
	// through. Default 1024.
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1048576
	// +optional
	PoolSize int32 `json:"poolSize,omitempty"`
}

// PayloadSpec selects the records: a built-in schema at chosen sizes, or the user's
// own schema and sample records (source).
// +kubebuilder:validation:XValidation:rule="has(self.schema) != has(self.source)",message="exactly one of payload.schema and payload.source must be set"
// +kubebuilder:validation:XValidation:rule="!has(self.schema) || has(self.sizesBytes)",message="payload.schema needs sizesBytes"
// +kubebuilder:validation:XValidation:rule="!has(self.source) || !has(self.sizesBytes)",message="payload.source records have their own sizes: leave sizesBytes unset"
type PayloadSpec struct {
	// Schema is a built-in payload schema: business-record, simple, complex or nested.
	// +kubebuilder:validation:Enum=business-record;simple;complex;nested
	// +optional
	Schema string `json:"schema,omitempty"`

	// SizesBytes are target sizes of one record's JSON encoding; each is a trial.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Minimum=64
	// +kubebuilder:validation:items:Maximum=1048576
	// +listType=set
	// +optional
	SizesBytes []int32 `json:"sizesBytes,omitempty"`

	// Source is the user's own schema and sample records, sent in turn. Only codecs
	// that work from a schema at run time apply (json, json/goccy, avro with an Avro
	// schema, protobuf with a .proto, msgpack, cbor, raw); the others need code
	// generated from the schema. Every sample is checked against the schema and
	// round-tripped through each codec before a trial runs.
	// +optional
	Source *PayloadSource `json:"source,omitempty"`

	// Compression compresses each encoded value on its own before it is sent and
	// decompresses it before it is decoded: none, deflate, zstd, lz4, snappy or xz.
	// Separate from producer.compression (Kafka's batch compression); both can be
	// swept (matrix.payloadCompression). Default none.
	// +kubebuilder:default=none
	// +optional
	Compression PayloadCompression `json:"compression,omitempty"`
}

// PayloadSource is a schema plus a JSON-lines file of sample records (one JSON object
// per line, in plain JSON: a union's value without a type wrapper).
// +kubebuilder:validation:XValidation:rule="has(self.configMap) != (has(self.schemaPath) || has(self.samplesPath))",message="payload.source needs either configMap (in a cluster) or schemaPath and samplesPath (serdebench run)"
// +kubebuilder:validation:XValidation:rule="has(self.schemaPath) == has(self.samplesPath)",message="payload.source.schemaPath and samplesPath go together"
type PayloadSource struct {
	// Format is the schema's: avro (.avsc), protobuf (.proto) or json-schema.
	// +kubebuilder:validation:Enum=avro;protobuf;json-schema
	Format string `json:"format"`

	// Message is the protobuf message of each sample, needed when the .proto defines
	// more than one top-level message.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Message string `json:"message,omitempty"`

	// ConfigMap holds the schema and the samples, in the experiment's namespace. The
	// operator reads it before the first trial and mounts it into the workers.
	// +optional
	ConfigMap *SourceConfigMap `json:"configMap,omitempty"`

	// SchemaPath and SamplesPath are files for serdebench run, relative to the
	// experiment file.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	SchemaPath string `json:"schemaPath,omitempty"`
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	SamplesPath string `json:"samplesPath,omitempty"`
}

// SourceConfigMap names a ConfigMap and the keys of its schema and samples.
type SourceConfigMap struct {
	// Name of the ConfigMap.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// SchemaKey is the key holding the schema. Default schema.
	// +kubebuilder:default=schema
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	SchemaKey string `json:"schemaKey,omitempty"`
	// SamplesKey is the key holding the samples. Default samples.jsonl.
	// +kubebuilder:default=samples.jsonl
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	// +optional
	SamplesKey string `json:"samplesKey,omitempty"`
}

// ProducerSettings are the producer knobs the papers vary. Unset fields take the
// defaults documented on each field (docs/producer-settings.md maps them onto sarama).
// +kubebuilder:validation:XValidation:rule="!has(self.idempotent) || !self.idempotent || (has(self.acks) && self.acks == 'all' && has(self.maxInFlight) && self.maxInFlight == 1)",message="idempotent producers need acks: all and maxInFlight: 1"
type ProducerSettings struct {
	// BatchSizeBytes flushes a batch once it holds this many bytes (Java batch.size).
	// Default 16384. Ignored in single mode.
	// +kubebuilder:default=16384
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=67108864
	// +optional
	BatchSizeBytes *int32 `json:"batchSizeBytes,omitempty"`

	// LingerMs is how long a batch may wait to fill (Java linger.ms). Default 5.
	// Ignored in single mode.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=60000
	// +optional
	LingerMs *int32 `json:"lingerMs,omitempty"`

	// Acks is the acknowledgement level: "0", "1" or "all". Default "all".
	// +kubebuilder:default=all
	// +optional
	Acks Acks `json:"acks,omitempty"`

	// Compression is none, gzip, snappy, lz4 or zstd. Default none.
	// +kubebuilder:default=none
	// +optional
	Compression Compression `json:"compression,omitempty"`

	// MaxInFlight is the number of unacknowledged requests per broker connection
	// (Java max.in.flight.requests.per.connection). Default 5.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	MaxInFlight *int32 `json:"maxInFlight,omitempty"`

	// Idempotent enables the idempotent producer (needs acks=all and maxInFlight 1 in
	// sarama). Default false.
	// +kubebuilder:default=false
	// +optional
	Idempotent *bool `json:"idempotent,omitempty"`

	// SendBufferBytes is the producer sockets' send buffer (Java send.buffer.bytes,
	// whose default is 131072); -1 leaves it to the operating system, which autotunes
	// it. Default -1.
	// +kubebuilder:default=-1
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=67108864
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"
	// +optional
	SendBufferBytes *int32 `json:"sendBufferBytes,omitempty"`

	// ReceiveBufferBytes is the producer sockets' receive buffer (Java
	// receive.buffer.bytes, default 32768); -1 leaves it to the operating system.
	// Default -1.
	// +kubebuilder:default=-1
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=67108864
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"
	// +optional
	ReceiveBufferBytes *int32 `json:"receiveBufferBytes,omitempty"`

	// Partitioner is round-robin (each record to the next partition) or sticky
	// (batchSizeBytes to one partition, then the next: the Java client's default,
	// which fills batches sooner at low rates per partition). Default round-robin.
	// +kubebuilder:default=round-robin
	// +optional
	Partitioner Partitioner `json:"partitioner,omitempty"`
}

// ConsumerSettings are the consumers' fetch and socket settings, with the Java
// client's names and defaults (docs/measurement.md derives how they shape
// end-to-end latency).
type ConsumerSettings struct {
	// FetchMinBytes is how much data a fetch waits for at the broker before it
	// returns (Java fetch.min.bytes). Default 1: a fetch returns as soon as any record
	// is there.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=67108864
	// +optional
	FetchMinBytes *int32 `json:"fetchMinBytes,omitempty"`

	// FetchMaxWaitMs is how long the broker holds a fetch that has less than
	// fetchMinBytes (Java fetch.max.wait.ms). Default 500; at least 10, franz-go's
	// lower bound.
	// +kubebuilder:default=500
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=60000
	// +optional
	FetchMaxWaitMs *int32 `json:"fetchMaxWaitMs,omitempty"`

	// MaxPartitionFetchBytes caps one partition's data in a fetch response (Java
	// max.partition.fetch.bytes). Default 1048576.
	// +kubebuilder:default=1048576
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=67108864
	// +optional
	MaxPartitionFetchBytes *int32 `json:"maxPartitionFetchBytes,omitempty"`

	// ReceiveBufferBytes is the consumer sockets' receive buffer (Java
	// receive.buffer.bytes, default 65536); -1 leaves it to the operating system,
	// which autotunes it. Default -1.
	// +kubebuilder:default=-1
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=67108864
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"
	// +optional
	ReceiveBufferBytes *int32 `json:"receiveBufferBytes,omitempty"`

	// SendBufferBytes is the consumer sockets' send buffer (Java send.buffer.bytes,
	// default 131072); -1 leaves it to the operating system. Default -1.
	// +kubebuilder:default=-1
	// +kubebuilder:validation:Minimum=-1
	// +kubebuilder:validation:Maximum=67108864
	// +kubebuilder:validation:XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"
	// +optional
	SendBufferBytes *int32 `json:"sendBufferBytes,omitempty"`
}

// Matrix lists values to sweep; each non-empty list multiplies the trial count.
type Matrix struct {
	// BatchSizeBytes values to sweep.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=67108864
	// +listType=set
	// +optional
	BatchSizeBytes []int32 `json:"batchSizeBytes,omitempty"`
	// LingerMs values to sweep.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=60000
	// +listType=set
	// +optional
	LingerMs []int32 `json:"lingerMs,omitempty"`
	// Acks values to sweep.
	// +kubebuilder:validation:MaxItems=16
	// +listType=set
	// +optional
	Acks []Acks `json:"acks,omitempty"`
	// Compression values to sweep.
	// +kubebuilder:validation:MaxItems=16
	// +listType=set
	// +optional
	Compression []Compression `json:"compression,omitempty"`
	// MaxInFlight values to sweep.
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=64
	// +listType=set
	// +optional
	MaxInFlight []int32 `json:"maxInFlight,omitempty"`
	// Mode values to sweep.
	// +kubebuilder:validation:MaxItems=16
	// +listType=set
	// +optional
	Mode []Mode `json:"mode,omitempty"`
	// RecordsPerSecond values to sweep (0 means as fast as possible).
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:Maximum=10000000
	// +listType=set
	// +optional
	RecordsPerSecond []int64 `json:"recordsPerSecond,omitempty"`
	// Client values to sweep: the same trials with each Kafka client.
	// +kubebuilder:validation:MaxItems=2
	// +listType=set
	// +optional
	Client []Client `json:"client,omitempty"`
	// PayloadCompression values to sweep (payload.compression).
	// +kubebuilder:validation:MaxItems=6
	// +listType=set
	// +optional
	PayloadCompression []PayloadCompression `json:"payloadCompression,omitempty"`
}

// Warmup is excluded from the measured window: by record count or by time.
type Warmup struct {
	// Records sent per producer before measuring starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1099511627776
	// +optional
	Records int64 `json:"records,omitempty"`
	// DurationSeconds of sending before measuring starts.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	DurationSeconds int32 `json:"durationSeconds,omitempty"`
}

// Rate shapes the send schedule.
type Rate struct {
	// RecordsPerSecond per producer. Unset or 0 is a closed loop (as fast as possible);
	// a positive value is an open loop: record i is due at start + i/rate and its
	// latency is measured from that intended time.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10000000
	// +optional
	RecordsPerSecond int64 `json:"recordsPerSecond,omitempty"`

	// Search finds the maximum sustainable rate: each producer starts at
	// recordsPerSecond and raises its rate step by step while latency stays
	// bounded; the result names the highest step every producer sustained.
	// +optional
	Search *RateSearch `json:"search,omitempty"`
}

// RateSearch raises the rate in steps within one trial (docs/measurement.md,
// "Finding the maximum sustainable rate"). Latency is measured from the intended
// send time, so a producer, broker or consumer that cannot keep up shows as growing
// latency (and growing consumer backlog, which by Little's law is rate × latency).
// A step is sustained when every producer sent all of it, none of its sends
// failed, every acknowledged record arrived, and its acknowledgement and
// end-to-end p99 stay within maxP99Millis. A producer ends the search when a send
// fails, when more than 1% of a step's acknowledgements exceed the bound, or when it
// falls a whole step behind its schedule; otherwise the search runs until
// maxRecordsPerSecond or durationSeconds (the consumers' side cannot stop it).
type RateSearch struct {
	// StepPercent is how much each step raises the rate. Default 25.
	// +kubebuilder:default=25
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	StepPercent int32 `json:"stepPercent,omitempty"`
	// StepSeconds is each step's length. Default 10.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	StepSeconds int32 `json:"stepSeconds,omitempty"`
	// MaxRecordsPerSecond per producer ends the search there. Default: no cap but
	// the trial's duration.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	// +optional
	MaxRecordsPerSecond int64 `json:"maxRecordsPerSecond,omitempty"`
	// MaxP99Millis bounds a sustained step's acknowledgement and end-to-end p99.
	// Default 100.
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=600000
	// +optional
	MaxP99Millis int32 `json:"maxP99Millis,omitempty"`
}

// TopicSpec shapes each trial's topic.
// +kubebuilder:validation:XValidation:rule="!has(self.name) || !has(self.config)",message="topic.config cannot be applied to an existing topic (topic.name)"
type TopicSpec struct {
	// Name runs every trial on this existing topic instead of a fresh one per trial.
	// serdebench never creates, changes or deletes it; partitions must match its
	// partition count. Trials tell their own records apart (a run identifier in
	// every record's headers) and start reading at the topic's end, so other
	// traffic and earlier trials do not count.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=249
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9._-]+$`
	// +optional
	Name string `json:"name,omitempty"`
	// Partitions per topic. Default 3.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	// +optional
	Partitions int32 `json:"partitions,omitempty"`
	// Replicas is the replication factor. Default 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Config holds topic-level configuration entries (e.g. min.insync.replicas).
	// +optional
	Config map[string]string `json:"config,omitempty"`
}
