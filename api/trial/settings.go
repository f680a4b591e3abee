package trial

// Settings are a trial's effective producer settings: nothing left unset. Each
// field is a row of Table, which says where the experiment spec sets it, its
// default and whether the matrix sweeps it; the producer maps them onto a client
// in one place (workers/producer, plan.go).
type Settings struct {
	// Mode is batch or single.
	Mode Mode `json:"mode"`
	// BatchSizeBytes is Java's batch.size (ignored in single mode).
	BatchSizeBytes int32 `json:"batchSizeBytes"`
	// LingerMs is Java's linger.ms (ignored in single mode).
	LingerMs int32 `json:"lingerMs"`
	// Acks is 0, 1 or all.
	Acks Acks `json:"acks"`
	// Compression is the batch compression codec.
	Compression Compression `json:"compression"`
	// MaxInFlight is the number of open requests per connection.
	MaxInFlight int32 `json:"maxInFlight"`
	// Idempotent enables the idempotent producer.
	Idempotent bool `json:"idempotent"`
	// RecordsPerSecond is the open-loop target per producer; 0 is a closed loop.
	RecordsPerSecond int64 `json:"recordsPerSecond"`
	// Client is the Kafka client library (empty in summaries of older versions:
	// sarama).
	// +optional
	Client Client `json:"client,omitempty"`
	// SendBufferBytes is the producer sockets' send buffer (-1: the operating
	// system's; 0 in results of older versions).
	// +optional
	SendBufferBytes int32 `json:"sendBufferBytes,omitempty"`
	// ReceiveBufferBytes is their receive buffer (-1: the operating system's).
	// +optional
	ReceiveBufferBytes int32 `json:"receiveBufferBytes,omitempty"`
	// Partitioner is round-robin or sticky (empty in older summaries: round-robin).
	// +optional
	Partitioner Partitioner `json:"partitioner,omitempty"`
	// PayloadCompression compresses each value before it is sent (empty: none).
	// +optional
	PayloadCompression PayloadCompression `json:"payloadCompression,omitempty"`
	// Records is how many measured records each producer sends (0: the window is
	// durationSeconds long). The planner copies it into Trial.Records, which the
	// workers read; it is here so the matrix can sweep it (the SIKE study plots
	// against the number of messages).
	// +optional
	Records int64 `json:"records,omitempty"`
	// Transactions makes the producers transactional (zero: not).
	// +optional
	Transactions Transactions `json:"transactions,omitzero"`
	// Isolation is the consumers' isolation level: the one consumer setting the
	// matrix sweeps, since it is what a transactional producer is measured
	// against (empty in older results: read-uncommitted).
	// +optional
	Isolation Isolation `json:"isolation,omitempty"`
	// GroupProtocol is the consumers' group protocol (empty in older results:
	// classic), swept by the matrix like Isolation.
	// +optional
	GroupProtocol GroupProtocol `json:"groupProtocol,omitempty"`
	// GroupType is the consumers' kind of group (empty in older results:
	// consumer), swept by the matrix like Isolation.
	// +optional
	GroupType GroupType `json:"groupType,omitempty"`
	// ConsumerClient is the consumers' Kafka client when it is not the producers'
	// (Client): a Java producer and Go consumers, say (empty: the producers').
	// +optional
	ConsumerClient Client `json:"consumerClient,omitempty"`
}

// Side is which workers of a trial something concerns.
type Side string

// Sides of a trial.
const (
	SideProducers Side = "producers"
	SideConsumers Side = "consumers"
	SideBoth      Side = "both"
)

// ClientOf is the client of side's workers: the consumers' is ConsumerClient,
// or the producers' when it is unset (unset client: DefaultClient).
func (s Settings) ClientOf(side Side) Client {
	if side == SideConsumers && s.ConsumerClient != "" {
		return s.ConsumerClient.OrDefault()
	}
	return s.Client.OrDefault()
}

// clientsOf are the clients of side's workers, each once, each with what a refusal
// calls it: "client c", or "consumer client c" for a consumers' client of its own.
func (s Settings) clientsOf(side Side) []sideClient {
	p := sideClient{s.ClientOf(SideProducers), "client " + string(s.ClientOf(SideProducers))}
	c := p
	if s.ConsumerClient != "" {
		c = sideClient{s.ClientOf(SideConsumers), "consumer client " + string(s.ClientOf(SideConsumers))}
	}
	switch {
	case side == SideConsumers:
		return []sideClient{c}
	case side == SideBoth && c.client != p.client:
		return []sideClient{p, c}
	}
	return []sideClient{p}
}

// sideClient is a client of some of a trial's workers, and what refusals call it.
type sideClient struct {
	client Client
	name   string
}

// Row is one producer setting: a field of Settings, how the experiment spec sets it
// and whether the matrix sweeps it. `make generate` (hack/gensettings) writes from
// the rows spec.producer's fields and defaults, the matrix and its sweeps, the
// spec's base Settings and the CEL rule that bounds the trial count; so a new knob
// is a row here, its Settings field, and its mapping in each client's adapter.
// +kubebuilder:object:generate=false
type Row struct {
	// Field is the Go name of the Settings field, spec.producer's field and the
	// matrix's field; JSON is their JSON name.
	Field, JSON string
	// Type is the Go type of one value as written in api/v1alpha1.
	Type string
	// Spec is the Go path of the hand-written spec field that sets it, from
	// ExperimentSpec (e.g. Rate.RecordsPerSecond): settings older than the table,
	// kept where users set them. Empty: a field of spec.producer, generated.
	Spec string
	// Default is the value an unset spec.producer field takes.
	Default any
	// Doc is spec.producer's field comment.
	Doc string
	// Markers are the kubebuilder markers of one value (for spec.producer's field,
	// and with "items:" for the matrix's).
	Markers []string
	// MaxItems is how many values the matrix may sweep (0: not swept).
	MaxItems int
	// SweepDoc is the matrix field's comment.
	SweepDoc string
	// Label is how the trial's label (Settings.Describe, also the key compare and
	// schedules match trials by) shows the setting: a fmt format of its value, and
	// when it is shown. Every row has one, so two trials that differ in any
	// setting never share a label (TestEverySettingChangesTheLabel).
	Label Label
}

// Label is a setting's part of a trial's label.
// +kubebuilder:object:generate=false
type Label struct {
	// Format formats the value (fmt verb %v), e.g. "acks=%v".
	Format string
	// When says when the setting is shown.
	When LabelWhen
	// Hide are values never shown besides the row's Default (the zero value of a
	// field that results of older versions lack, a default set outside the table).
	Hide []any
	// Given says the setting describes the traffic or the consumers a team has,
	// not a producer choice: a recommendation ranks only trials that share it.
	Given bool
}

// LabelWhen says when a setting is part of a trial's label.
type LabelWhen int

// When a setting is shown.
const (
	// LabelAlways shows it in every label.
	LabelAlways LabelWhen = iota
	// LabelInBatchMode shows it when the mode is batch (single mode ignores it).
	LabelInBatchMode
	// LabelNotDefault shows it unless it is the row's Default or one of Hide.
	LabelNotDefault
)

// labelOrder is the order settings appear in a label (Describe); every row of
// Table is in it exactly once.
var labelOrder = []string{"Mode", "Acks", "Compression", "BatchSizeBytes", "LingerMs", "MaxInFlight", "Idempotent", "Client", "ConsumerClient",
	"Transactions", "Isolation", "GroupProtocol", "GroupType", "Partitioner", "PayloadCompression", "RecordsPerSecond", "Records", "SendBufferBytes", "ReceiveBufferBytes"}

// Table is every producer setting, in the order the matrix sweeps them (the first
// row varies slowest).
var Table = []Row{
	{Field: "BatchSizeBytes", JSON: "batchSizeBytes", Type: "int32", Default: int32(16384),
		Doc:      "BatchSizeBytes flushes a batch once it holds this many bytes (Java batch.size).\nDefault 16384. Ignored in single mode.",
		Markers:  []string{"Minimum=0", "Maximum=67108864"},
		MaxItems: 16, SweepDoc: "BatchSizeBytes values to sweep.",
		Label: Label{Format: "batch=%v", When: LabelInBatchMode}},
	{Field: "LingerMs", JSON: "lingerMs", Type: "int32", Default: int32(5),
		Doc:      "LingerMs is how long a batch may wait to fill (Java linger.ms). Default 5.\nIgnored in single mode.",
		Markers:  []string{"Minimum=0", "Maximum=60000"},
		MaxItems: 16, SweepDoc: "LingerMs values to sweep.",
		Label: Label{Format: "linger=%vms", When: LabelInBatchMode}},
	{Field: "Acks", JSON: "acks", Type: "trial.Acks", Default: AcksAll,
		Doc:      `Acks is the acknowledgement level: "0", "1" or "all". Default "all".`,
		MaxItems: len(AcksLevels), SweepDoc: "Acks values to sweep.",
		Label: Label{Format: "acks=%v", When: LabelAlways}},
	{Field: "Compression", JSON: "compression", Type: "trial.Compression", Default: CompressionNone,
		Doc:      "Compression is none, gzip, snappy, lz4 or zstd. Default none.",
		MaxItems: len(Compressions), SweepDoc: "Compression values to sweep.",
		Label: Label{Format: "%v", When: LabelAlways}},
	{Field: "MaxInFlight", JSON: "maxInFlight", Type: "int32", Default: int32(5),
		Doc:      "MaxInFlight is the number of unacknowledged requests per broker connection\n(Java max.in.flight.requests.per.connection). Default 5.",
		Markers:  []string{"Minimum=1", "Maximum=64"},
		MaxItems: 16, SweepDoc: "MaxInFlight values to sweep.",
		Label: Label{Format: "inflight=%v", When: LabelNotDefault}},
	{Field: "Mode", JSON: "mode", Type: "trial.Mode", Spec: "Mode",
		MaxItems: len(Modes), SweepDoc: "Mode values to sweep.",
		Label: Label{Format: "%v", When: LabelAlways}},
	{Field: "RecordsPerSecond", JSON: "recordsPerSecond", Type: "int64", Spec: "Rate.RecordsPerSecond",
		Markers:  []string{"Minimum=0", "Maximum=10000000"},
		MaxItems: 16, SweepDoc: "RecordsPerSecond values to sweep (0 means as fast as possible).",
		Label: Label{Format: "rate=%v/s", When: LabelNotDefault, Hide: []any{int64(0)}, Given: true}},
	{Field: "Client", JSON: "client", Type: "trial.Client", Spec: "Client",
		MaxItems: len(Clients), SweepDoc: "Client values to sweep: the same trials with each Kafka client.",
		Label: Label{Format: "client=%v", When: LabelNotDefault, Hide: []any{Client(""), DefaultClient}}},
	{Field: "ConsumerClient", JSON: "consumerClient", Type: "trial.Client", Spec: "Consumer.Client",
		MaxItems: len(Clients), SweepDoc: "ConsumerClient values to sweep (consumer.client): the consumers' client, each with every producers' client.",
		Label: Label{Format: "consumers=%v", When: LabelNotDefault, Hide: []any{Client("")}, Given: true}},
	{Field: "PayloadCompression", JSON: "payloadCompression", Type: "trial.PayloadCompression", Spec: "Payload.Compression",
		MaxItems: len(PayloadCompressions), SweepDoc: "PayloadCompression values to sweep (payload.compression).",
		Label: Label{Format: "payload=%v", When: LabelNotDefault, Hide: []any{PayloadCompression(""), PayloadCompressionNone}}},
	{Field: "Records", JSON: "records", Type: "int64", Spec: "MeasuredRecords()",
		Markers:  []string{"Minimum=1", "Maximum=1099511627776"},
		MaxItems: 8, SweepDoc: "Records values to sweep: measured records per producer (needs spec.records).",
		Label: Label{Format: "records=%v", When: LabelNotDefault, Hide: []any{int64(0)}, Given: true}},
	{Field: "Idempotent", JSON: "idempotent", Type: "bool", Default: false,
		Doc:   "Idempotent enables the idempotent producer (needs acks=all and maxInFlight 1 in\nsarama). Default false.",
		Label: Label{Format: "idempotent", When: LabelNotDefault}},
	{Field: "SendBufferBytes", JSON: "sendBufferBytes", Type: "int32", Default: DefaultSocketBufferBytes,
		Doc: "SendBufferBytes is the producer sockets' send buffer (Java send.buffer.bytes,\nwhose default is 131072); -1 leaves it to the operating system, which autotunes\nit. Default -1.",
		Markers: []string{"Minimum=-1", "Maximum=67108864",
			`XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"`},
		Label: Label{Format: "sndbuf=%v", When: LabelNotDefault, Hide: []any{int32(0)}}},
	{Field: "ReceiveBufferBytes", JSON: "receiveBufferBytes", Type: "int32", Default: DefaultSocketBufferBytes,
		Doc: "ReceiveBufferBytes is the producer sockets' receive buffer (Java\nreceive.buffer.bytes, default 32768); -1 leaves it to the operating system.\nDefault -1.",
		Markers: []string{"Minimum=-1", "Maximum=67108864",
			`XValidation:rule="self == -1 || self >= 1024",message="a socket buffer is -1 (the OS's) or at least 1024 bytes"`},
		Label: Label{Format: "rcvbuf=%v", When: LabelNotDefault, Hide: []any{int32(0)}}},
	{Field: "Partitioner", JSON: "partitioner", Type: "trial.Partitioner", Default: PartitionerRoundRobin,
		Doc:   "Partitioner is round-robin (each record to the next partition) or sticky\n(batchSizeBytes to one partition, then one drawn at random: the Java client's\ndefault, which fills batches sooner at low rates per partition). Default\nround-robin.",
		Label: Label{Format: "partitioner=%v", When: LabelNotDefault, Hide: []any{Partitioner("")}}},
	{Field: "Transactions", JSON: "transactions", Type: "trial.Transactions", Default: Transactions{},
		Doc:      "Transactions makes each producer transactional, with a transactional id of its\nown (idempotence implied; needs acks all), committing every\nrecordsPerTransaction records or transactionMillis. Default {}: not\ntransactional.",
		MaxItems: 4, SweepDoc: "Transactions values to sweep ({} is a producer without transactions).",
		Label: Label{Format: "txn=%v", When: LabelNotDefault}},
	{Field: "Isolation", JSON: "isolation", Type: "trial.Isolation", Spec: "Consumer.Isolation",
		MaxItems: len(Isolations), SweepDoc: "Isolation values to sweep (consumer.isolation).",
		Label: Label{Format: "isolation=%v", When: LabelNotDefault, Hide: []any{Isolation(""), IsolationReadUncommitted}, Given: true}},
	{Field: "GroupProtocol", JSON: "groupProtocol", Type: "trial.GroupProtocol", Spec: "Consumer.GroupProtocol",
		MaxItems: len(GroupProtocols), SweepDoc: "GroupProtocol values to sweep (consumer.groupProtocol).",
		Label: Label{Format: "group=%v", When: LabelNotDefault, Hide: []any{GroupProtocol(""), GroupProtocolClassic}, Given: true}},
	{Field: "GroupType", JSON: "groupType", Type: "trial.GroupType", Spec: "Consumer.GroupType",
		MaxItems: len(GroupTypes), SweepDoc: "GroupType values to sweep (consumer.groupType).",
		Label: Label{Format: "groupType=%v", When: LabelNotDefault, Hide: []any{GroupType(""), GroupTypeConsumer}, Given: true}},
}

// Defaults of the settings the spec sets outside spec.producer, of the socket
// buffers (consumers' too) and of a trial's intervals.
const (
	DefaultMode   = ModeBatch
	DefaultClient = ClientSarama
	// DefaultSocketBufferBytes (-1) leaves a socket buffer to the operating system.
	DefaultSocketBufferBytes int32 = -1
	DefaultIntervalSeconds   int32 = 10
)

// ProducerRules are spec.producer's CEL rules across its fields, as
// "rule",message="..." (written into the generated type's markers).
var ProducerRules = []string{
	`"!has(self.idempotent) || !self.idempotent || (has(self.acks) && self.acks == 'all' && has(self.maxInFlight) && self.maxInFlight == 1)",message="idempotent producers need acks: all and maxInFlight: 1"`,
	`"!has(self.transactions) || !(has(self.transactions.recordsPerTransaction) || has(self.transactions.transactionMillis)) || (has(self.acks) && self.acks == 'all')",message="transactional producers need acks: all"`,
}

// DefaultOf is the default of a spec.producer setting (Table's), nil for others.
func DefaultOf(field string) any {
	for _, r := range Table {
		if r.Field == field {
			return r.Default
		}
	}
	return nil
}

// MaxTrials caps the number of trials one experiment expands into (repetitions
// counted), MaxFaultedTrials one with faults, whose trials each carry their
// phases, or with repetitions, whose trials' statistics the result adds, and
// MaxFaultedRepeatedTrials one with both (a result stays under 1.1 MB:
// controllers/result_size_test.go).
const (
	MaxTrials                = 256
	MaxFaultedTrials         = 128
	MaxFaultedRepeatedTrials = 64
)

// MaxIncluded caps matrix.include's combinations.
const MaxIncluded = 16

// Sweep is one matrix dimension: how many values it lists and how value i is set.
// +kubebuilder:object:generate=false
type Sweep struct {
	// Field names the swept setting (Row.Field).
	Field string
	// Len is the number of values; 0 leaves the setting as the spec's base.
	Len int
	// Set applies value i to s.
	Set func(s *Settings, i int)
}

// Expand applies every combination of the sweeps' values to base, the first sweep
// varying slowest.
func Expand(base Settings, sweeps []Sweep) []Settings {
	out := []Settings{base}
	for _, sw := range sweeps {
		if sw.Len == 0 {
			continue
		}
		next := make([]Settings, 0, len(out)*sw.Len)
		for _, s := range out {
			for i := range sw.Len {
				c := s
				sw.Set(&c, i)
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// Count is the number of settings Expand returns.
func Count(sweeps []Sweep) int {
	n := 1
	for _, sw := range sweeps {
		if sw.Len > 0 {
			n *= sw.Len
		}
	}
	return n
}

// ReferenceKeys are the names spec.compare.baseline selects a trial by: its codec,
// schema, size and fault scenario, and every setting of the table by its JSON name.
func ReferenceKeys() []string {
	keys := []string{"codec", "schema", "sizeBytes", "fault"}
	for _, r := range Table {
		keys = append(keys, r.JSON)
	}
	return keys
}
