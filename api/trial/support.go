package trial

import "fmt"

// Feature is something a trial's settings may ask of its Kafka client. Features is
// the one table of which client has which: the planner refuses a trial whose
// client lacks one, with the reason (Unsupported), and docs/producer-settings.md's
// support table is generated from it.
// +kubebuilder:object:generate=false
type Feature struct {
	// Name is what the feature is called in refusals and the docs' table.
	Name string
	// Uses says whether settings s ask for it.
	Uses func(s Settings) bool
	// Side is whose client it asks of: the producers', the consumers' (which
	// consumer.client may set apart) or both.
	Side Side
	// Setting is the row of Table whose value asks for it, and CEL the same
	// test as Uses as a CEL predicate on v, one value of that setting: the CRD's
	// admission rules refuse a client without the feature from them
	// (hack/gensettings).
	Setting, CEL string
	// Clients says, for each client, whether and how it provides the feature.
	Clients map[Client]Support
}

// Support is one client's support of a Feature.
// +kubebuilder:object:generate=false
type Support struct {
	// Has is whether the client has the feature at all.
	Has bool
	// How is the client's API for it, or what it lacks (the refusal's reason).
	How string
	// Refuse, if set, is the client's further condition on the settings: why it
	// cannot run s ("" when it can).
	Refuse func(s Settings) string
	// Warning, if set, is what every result of a trial using the feature with
	// this client says.
	Warning string
}

// Features is every feature a setting asks of a client.
var Features = []Feature{
	{
		Name:    "transactions",
		Side:    SideProducers,
		Uses:    func(s Settings) bool { return s.Transactions.Enabled() },
		Setting: "Transactions", CEL: "has(v.recordsPerTransaction) || has(v.transactionMillis)",
		Clients: map[Client]Support{
			ClientSarama: {How: "sarama 1.61.1's transaction manager races on its own state when a send fails mid-transaction " +
				"(its status and partition locks guard one field: IBM/sarama#2913, #2915, unfixed); a data race is undefined behaviour, " +
				"so serdebench does not measure transactions with it"},
			ClientFranz: {Has: true, How: "`kgo.TransactionalID`, `BeginTransaction`/`EndTransaction` (transactions v2, KIP-890, where the broker has it)",
				Refuse: func(s Settings) string {
					if s.MaxInFlight != 5 {
						return fmt.Sprintf("franz-go's transactional producer is idempotent, which keeps 5 requests in flight per broker whatever maxInFlight says: set maxInFlight: 5 (the default), not %d", s.MaxInFlight)
					}
					return ""
				}},
			ClientRdkafka: {Has: true, How: "`transactional.id`, `InitTransactions`/`BeginTransaction`/`CommitTransaction` (transactions v1)",
				Refuse: func(s Settings) string {
					if s.MaxInFlight > 5 {
						return fmt.Sprintf("librdkafka's transactional producer is idempotent, which allows at most 5 requests in flight per connection: set maxInFlight to 5 or less, not %d", s.MaxInFlight)
					}
					return ""
				}},
			ClientJava: {How: "the JVM worker (workers/jvm) has no transactional producer yet"},
		},
	},
	{
		Name:    "read-committed isolation",
		Side:    SideConsumers,
		Uses:    func(s Settings) bool { return s.Isolation == IsolationReadCommitted },
		Setting: "Isolation", CEL: "v == 'readCommitted'",
		Clients: map[Client]Support{
			ClientSarama:  {Has: true, How: "`Consumer.IsolationLevel = ReadCommitted`"},
			ClientFranz:   {Has: true, How: "`kgo.FetchIsolationLevel(kgo.ReadCommitted())`"},
			ClientRdkafka: {Has: true, How: "`isolation.level=read_committed`"},
			ClientJava:    {Has: true, How: "`isolation.level=read_committed`"},
		},
	},
	{
		Name:    "consumer group protocol (KIP-848)",
		Side:    SideConsumers,
		Uses:    func(s Settings) bool { return s.GroupProtocol == GroupProtocolConsumer },
		Setting: "GroupProtocol", CEL: "v == 'consumer'",
		Clients: map[Client]Support{
			ClientSarama: {How: "sarama speaks only the classic protocol (JoinGroup/SyncGroup); it has no ConsumerGroupHeartbeat member"},
			ClientFranz:  {Has: true, How: "`kgo.ServerSideBalancer()` with the range assignor, the broker's (franz-go recommends it on Kafka 4.3+)"},
			ClientRdkafka: {Has: true, How: "`group.protocol=consumer`, incremental assignment; librdkafka 2.11.1 (the newest confluent-kafka-go the module proxy serves) calls it *Preview* (\"MUST NOT be used in production\"; GA from 2.12): measured, and every result says so",
				Warning: RdkafkaPreviewWarning},
			ClientJava: {Has: true, How: "`group.protocol=consumer` (GA since Kafka 4.0), the broker's assignor"},
		},
	},
	{
		Name:    "share groups (KIP-932)",
		Side:    SideConsumers,
		Uses:    func(s Settings) bool { return s.GroupType == GroupTypeShare },
		Setting: "GroupType", CEL: "v == 'share'",
		Clients: map[Client]Support{
			ClientSarama: {How: "sarama has no share consumer (no ShareGroupHeartbeat, ShareFetch or ShareAcknowledge)"},
			ClientFranz: {Has: true, How: "`kgo.ShareGroup`, `Record.Ack`/`MarkAcks` and `FlushAcks`, `Record.DeliveryCount` (franz-go 1.21+)",
				Refuse: func(s Settings) string {
					if s.GroupProtocol == GroupProtocolConsumer {
						return "a share group has its own protocol (KIP-932's share heartbeats): groupProtocol applies to consumer groups, leave it classic"
					}
					return ""
				}},
			ClientRdkafka: {How: "librdkafka 2.11.1 (the newest confluent-kafka-go the module proxy serves) has no share consumer: KIP-932 is not in its releases"},
			ClientJava:    {How: "the JVM worker (workers/jvm) has no share consumer (`KafkaShareConsumer`) yet"},
		},
	},
	{
		Name: "payload compression",
		Side: SideBoth,
		Uses: func(s Settings) bool {
			return s.PayloadCompression != "" && s.PayloadCompression != PayloadCompressionNone
		},
		Setting: "PayloadCompression", CEL: "v != 'none'",
		Clients: map[Client]Support{
			ClientSarama:  {Has: true, How: "workers/compress, before the client"},
			ClientFranz:   {Has: true, How: "workers/compress, before the client"},
			ClientRdkafka: {Has: true, How: "workers/compress, before the client"},
			ClientJava:    {How: "the JVM worker (workers/jvm) does not compress payloads itself yet (batch compression is the client's `compression.type`)"},
		},
	},
	{
		Name:    "sticky partitioning",
		Side:    SideProducers,
		Uses:    func(s Settings) bool { return s.Partitioner == PartitionerSticky },
		Setting: "Partitioner", CEL: "v == 'sticky'",
		Clients: map[Client]Support{
			ClientSarama:  {Has: true, How: "serdebench's partitioner (KIP-794's rule), the same for every Go client"},
			ClientFranz:   {Has: true, How: "serdebench's partitioner (KIP-794's rule), the same for every Go client"},
			ClientRdkafka: {Has: true, How: "serdebench's partitioner (KIP-794's rule), the same for every Go client"},
			ClientJava:    {Has: true, How: "the same partitioner, ported (workers/jvm's Partitioner), on manual partitions"},
		},
	},
}

// RdkafkaPreviewWarning is what every result of a librdkafka consumer on the
// consumer group protocol carries.
const RdkafkaPreviewWarning = "librdkafka 2.11.1 implements the consumer group protocol (KIP-848) as a Preview its authors say must not be used in production (GA from 2.12): its rebalances measure that preview"

// Unsupported says why s's clients cannot run s (nil when they can): the first
// feature s asks for that the client of its side lacks, or whose condition s breaks.
func Unsupported(s Settings) error {
	for _, f := range Features {
		if !f.Uses(s) {
			continue
		}
		for _, c := range s.clientsOf(f.Side) {
			sup, ok := f.Clients[c.client]
			switch {
			case !ok || !sup.Has:
				return fmt.Errorf("%s has no %s: %s", c.name, f.Name, sup.How)
			case sup.Refuse != nil:
				if why := sup.Refuse(s); why != "" {
					return fmt.Errorf("%s cannot run %s with these settings: %s", c.name, f.Name, why)
				}
			}
		}
	}
	return nil
}

// Warnings are what a trial with settings s must say of its clients' support.
func Warnings(s Settings) []string {
	var out []string
	for _, f := range Features {
		if !f.Uses(s) {
			continue
		}
		for _, c := range s.clientsOf(f.Side) {
			if sup := f.Clients[c.client]; sup.Warning != "" {
				out = append(out, sup.Warning)
			}
		}
	}
	return out
}
