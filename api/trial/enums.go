package trial

import "strings"

// Codec names a serialization format implementation (docs/formats.md): a format
// with its mandated library, or a library variant named <format>/<library>.
// +kubebuilder:validation:Enum=json;avro;protobuf;msgpack;raw;thrift-binary;thrift-compact;capnproto;capnproto-packed;flatbuffers;gob;cbor;avro/hamba;msgpack/msgp;protobuf/vtproto;json/goccy;avro/registry;protobuf/registry;json/registry;avro/specific;java-serialization;kryo;kryo/unsafe;fory
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
	// Registry variants: the format's encoding framed in the Confluent wire
	// format, its schema's id from a schema registry (kafka.schemaRegistry).
	CodecAvroRegistry     Codec = "avro" + RegistrySuffix
	CodecProtobufRegistry Codec = "protobuf" + RegistrySuffix
	CodecJSONRegistry     Codec = "json" + RegistrySuffix
	// CodecAvroSpecific is Avro's generated classes beside its generic records (the
	// JVM worker's; the same bytes as avro).
	CodecAvroSpecific Codec = "avro/specific"
	// CodecJavaSerialization is the JDK's ObjectOutputStream: the JVM's own format,
	// the FastormDB thesis's baseline.
	CodecJavaSerialization Codec = "java-serialization"
	// CodecKryo and CodecKryoUnsafe are Kryo with every class registered, the
	// FastormDB thesis's "Kryo (default)" and "Kryo (unsafe)" (JVM only).
	CodecKryo       Codec = "kryo"
	CodecKryoUnsafe Codec = "kryo/unsafe"
	// CodecFory is Apache Fory in its Java mode (JVM only).
	CodecFory Codec = "fory"
)

// RegistrySuffix ends the name of a registry variant.
const RegistrySuffix = "/registry"

// UsesRegistry says whether the codec needs a schema registry.
func (c Codec) UsesRegistry() bool { return strings.HasSuffix(string(c), RegistrySuffix) }

// Mode is how the producer sends.
// +kubebuilder:validation:Enum=batch;single
type Mode string

// Producer modes. Single is not the 2024 thesis's "one by one" test 2: its producer
// still batched and its consumer committed every record (Commit
// CommitEachRecord).
const (
	// ModeBatch sends asynchronously and lets the client batch.
	ModeBatch Mode = "batch"
	// ModeSingle sends one record, waits for its acknowledgement, then sends the next.
	ModeSingle Mode = "single"
)

// Modes are every Mode, as its Enum marker lists them.
var Modes = []Mode{ModeBatch, ModeSingle}

// Acks is the producer's acknowledgement level.
// +kubebuilder:validation:Enum="0";"1";all
type Acks string

// Acknowledgement levels.
const (
	AcksNone   Acks = "0"
	AcksLeader Acks = "1"
	AcksAll    Acks = "all"
)

// AcksLevels are every Acks, as its Enum marker lists them.
var AcksLevels = []Acks{AcksNone, AcksLeader, AcksAll}

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

// Compressions are every Compression, as its Enum marker lists them.
var Compressions = []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd}

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

// PayloadCompressions are every PayloadCompression, as its Enum marker lists them.
var PayloadCompressions = []PayloadCompression{PayloadCompressionNone, PayloadCompressionDeflate, PayloadCompressionZstd,
	PayloadCompressionLZ4, PayloadCompressionSnappy, PayloadCompressionXZ}

// Client names the Kafka client library the workers use.
// +kubebuilder:validation:Enum=sarama;franz-go;librdkafka;java
type Client string

// Kafka clients (docs/producer-settings.md compares how each maps the settings).
const (
	// ClientSarama is github.com/IBM/sarama.
	ClientSarama Client = "sarama"
	// ClientFranz is github.com/twmb/franz-go.
	ClientFranz Client = "franz-go"
	// ClientRdkafka is librdkafka, the C client, through
	// github.com/confluentinc/confluent-kafka-go/v2 (a worker built with cgo).
	ClientRdkafka Client = "librdkafka"
	// ClientJava is Kafka's Java client (org.apache.kafka:kafka-clients at the
	// broker's version), in the JVM worker (workers/jvm).
	ClientJava Client = "java"
)

// Clients are every Client, as its Enum marker lists them. A test holds the CRD's
// enums to these lists; the matrix sweeps each enum at most len(list) values.
var Clients = []Client{ClientSarama, ClientFranz, ClientRdkafka, ClientJava}

// OrDefault is c, or DefaultClient when c is unset.
func (c Client) OrDefault() Client {
	if c == "" {
		return DefaultClient
	}
	return c
}

// Partitioner is how producers spread records over a topic's partitions.
// +kubebuilder:validation:Enum=round-robin;sticky
type Partitioner string

// Partitioning strategies (docs/producer-settings.md). The worker assigns partitions
// itself in both, so loss accounting stays exact.
const (
	// PartitionerRoundRobin sends each record to the next partition.
	PartitionerRoundRobin Partitioner = "round-robin"
	// PartitionerSticky sends records to one partition until batchSizeBytes went
	// there, then to one drawn at random: the Java client's default for unkeyed
	// records (KIP-794), which also weighs its draw against long queues.
	PartitionerSticky Partitioner = "sticky"
)

// Commit is when a consumer commits its offsets.
// +kubebuilder:validation:Enum=interval;eachRecord
type Commit string

// Consumer commit modes.
const (
	// CommitInterval hands every fetched record over at once and commits the
	// processed offsets in the background (sarama every second, franz-go every
	// 200 ms): Java's enable.auto.commit.
	CommitInterval Commit = "interval"
	// CommitEachRecord polls one record, processes it, commits its offset and
	// waits for the commit's answer before polling the next (Java's
	// max.poll.records=1 with commitSync() after each record): the 2024 thesis's
	// "one by one" consumer, with the commit's round trip in every record's path.
	CommitEachRecord Commit = "eachRecord"
)

// Headers is which serdebench headers each record carries.
// +kubebuilder:validation:Enum=full;compact
type Headers string

// Header sets (workers/wire).
const (
	// HeadersFull is five headers a record's reader can decode on its own
	// (sb-p, sb-s, sb-i, sb-a, sb-r: 56 B of keys and values).
	HeadersFull Headers = "full"
	// HeadersCompact is one header "sb" with only what the trial's consumer
	// needs (run, intended send time, sequence, and the producer only when
	// there are several): 16 to 19 B for one producer, for records of a few
	// bytes whose headers would otherwise outweigh them.
	HeadersCompact Headers = "compact"
)

// Isolation is which records a consumer reads of transactional producers'.
// +kubebuilder:validation:Enum=readUncommitted;readCommitted
type Isolation string

// Isolation levels (Java's isolation.level).
const (
	// IsolationReadUncommitted reads every record as soon as it is written,
	// records of transactions that later abort included: Java's default.
	IsolationReadUncommitted Isolation = "readUncommitted"
	// IsolationReadCommitted reads a transaction's records only once it has
	// committed (a fetch stops at the last stable offset) and never an aborted
	// one's: the consumer half of exactly-once delivery.
	IsolationReadCommitted Isolation = "readCommitted"
)

// Isolations are every Isolation, as its Enum marker lists them.
var Isolations = []Isolation{IsolationReadUncommitted, IsolationReadCommitted}

// OrDefault is i, or read-uncommitted (Java's default) when i is unset (results of
// older versions).
func (i Isolation) OrDefault() Isolation {
	if i == "" {
		return IsolationReadUncommitted
	}
	return i
}

// GroupProtocol is the consumer group protocol the consumers join with.
// +kubebuilder:validation:Enum=classic;consumer
type GroupProtocol string

// Group protocols (Java's group.protocol).
const (
	// GroupProtocolClassic is the original protocol: the members' JoinGroup and
	// SyncGroup rounds, a leader member assigning partitions, every member
	// stopping while the group rebalances (eager range assignment here).
	GroupProtocolClassic GroupProtocol = "classic"
	// GroupProtocolConsumer is KIP-848's (GA in Kafka 4.0): the broker's group
	// coordinator assigns partitions through each member's heartbeats, and a
	// rebalance moves only the partitions that change owner.
	GroupProtocolConsumer GroupProtocol = "consumer"
)

// GroupProtocols are every GroupProtocol, as its Enum marker lists them.
var GroupProtocols = []GroupProtocol{GroupProtocolClassic, GroupProtocolConsumer}

// OrDefault is p, or classic when p is unset (results of older versions).
func (p GroupProtocol) OrDefault() GroupProtocol {
	if p == "" {
		return GroupProtocolClassic
	}
	return p
}

// GroupType is the kind of group the consumers form (Kafka's group types, as
// `kafka-groups.sh --group-type` lists them; classic and consumer groups are
// GroupProtocol's two protocols of one kind).
// +kubebuilder:validation:Enum=consumer;share
type GroupType string

// Group types.
const (
	// GroupTypeConsumer is a consumer group: each partition has one owner, which
	// commits an offset (GroupProtocol says how the group assigns them).
	GroupTypeConsumer GroupType = "consumer"
	// GroupTypeShare is a share group (KIP-932, GA in Kafka 4.2): the broker hands
	// records of any partition to any member, each acquired for a lock duration
	// and acknowledged one by one; a record released, or whose lock expires, is
	// delivered again: at least once, never exactly once.
	GroupTypeShare GroupType = "share"
)

// GroupTypes are every GroupType, as its Enum marker lists them.
var GroupTypes = []GroupType{GroupTypeConsumer, GroupTypeShare}

// OrDefault is g, or consumer when g is unset (results of older versions).
func (g GroupType) OrDefault() GroupType {
	if g == "" {
		return GroupTypeConsumer
	}
	return g
}

// ShareAcknowledgement is how share-group consumers acknowledge records (Java's
// share.acknowledgement.mode).
// +kubebuilder:validation:Enum=implicit;explicit
type ShareAcknowledgement string

// Acknowledgement modes.
const (
	// ShareAckImplicit accepts every record of a poll when the next poll begins;
	// the acknowledgements ride on the next share fetch.
	ShareAckImplicit ShareAcknowledgement = "implicit"
	// ShareAckExplicit acknowledges each record as it is processed and waits for
	// the broker's answer before the next poll (Java's acknowledge and
	// commitSync).
	ShareAckExplicit ShareAcknowledgement = "explicit"
)
