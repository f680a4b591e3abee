package trial

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
