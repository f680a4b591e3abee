package trial

import (
	"strings"
	"testing"
)

// TestEveryClientHasARuntime: each client runs in exactly one runtime's worker.
func TestEveryClientHasARuntime(t *testing.T) {
	for _, c := range Clients {
		n := 0
		for _, r := range Runtimes {
			for _, rc := range r.Clients {
				if rc == c {
					n++
				}
			}
		}
		if n != 1 {
			t.Errorf("client %s is in %d runtimes, want 1", c, n)
		}
	}
	if ClientJava.Runtime() != RuntimeJVM || ClientFranz.Runtime() != RuntimeGo || Client("").Runtime() != RuntimeGo {
		t.Fatal("runtimes of java, franz-go and the default client")
	}
}

// TestRuntimeUnsupportedSaysWhy: a codec or a part of a trial the client's runtime
// lacks is refused naming the client, the runtime and what it lacks.
func TestRuntimeUnsupportedSaysWhy(t *testing.T) {
	java := Trial{Codec: CodecGob, Settings: Settings{Client: ClientJava}, Search: &RateSearch{}}
	err := java.RuntimeUnsupported()
	if err == nil || !strings.Contains(err.Error(), "client java has no codec gob: the jvm worker (workers/jvm) has json, avro, avro/specific, protobuf") ||
		!strings.Contains(err.Error(), "client java cannot run rate.search") {
		t.Fatalf("error %v", err)
	}
	for _, c := range []Codec{CodecAvro, CodecThriftCompact, CodecKryo} {
		if err := (Trial{Codec: c, Settings: Settings{Client: ClientJava}}).RuntimeUnsupported(); err != nil {
			t.Fatalf("java, %s: %v", c, err)
		}
	}
	for _, c := range []Codec{CodecThriftBinary, CodecGob, CodecAvroRegistry} {
		if err := (Trial{Codec: c, Settings: Settings{Client: ClientFranz}, Search: &RateSearch{}}).RuntimeUnsupported(); err != nil {
			t.Fatalf("franz-go, %s: %v", c, err)
		}
	}
	err = (Trial{Codec: CodecFory, Settings: Settings{Client: ClientFranz}}).RuntimeUnsupported()
	if err == nil || !strings.Contains(err.Error(), "client franz-go has no codec fory: the go worker (cmd/worker) has json, avro") {
		t.Fatalf("franz-go, fory: %v", err)
	}
}

// TestConsumerClient: the consumers' own client is checked on the consumers' side
// only, and named as theirs.
func TestConsumerClient(t *testing.T) {
	mixed := Settings{Client: ClientJava, ConsumerClient: ClientFranz}
	if mixed.ClientOf(SideProducers) != ClientJava || mixed.ClientOf(SideConsumers) != ClientFranz || (Settings{}).ClientOf(SideConsumers) != DefaultClient {
		t.Fatal("ClientOf")
	}
	// A Java producer with franz-go consumers in a share group: the consumers have
	// share groups, but the JVM producer waits for a consumer group only.
	share := mixed
	share.GroupType = GroupTypeShare
	if err := Unsupported(share); err != nil {
		t.Fatalf("java producers, franz-go consumers in a share group: %v", err)
	}
	err := (Trial{Codec: CodecJSON, Settings: share, Consumer: ConsumerSettings{GroupType: GroupTypeShare}}).RuntimeUnsupported()
	if err == nil || !strings.Contains(err.Error(), "client java cannot run share groups' producers") {
		t.Fatalf("java producers for a share group: %v", err)
	}
	// The other way round, the Java consumers lack it and are named.
	share.Client, share.ConsumerClient = ClientFranz, ClientJava
	if err := Unsupported(share); err == nil || !strings.HasPrefix(err.Error(), "consumer client java has no share groups") {
		t.Fatalf("franz-go producers, java consumers in a share group: %v", err)
	}
	// Transactions are the producers': franz-go's, whatever the consumers run.
	txn := Settings{Client: ClientFranz, ConsumerClient: ClientJava, Transactions: Transactions{RecordsPerTransaction: 10}, MaxInFlight: 5}
	if err := Unsupported(txn); err != nil {
		t.Fatalf("franz-go transactions, java consumers: %v", err)
	}
	// A codec both runtimes have; one only the producers' has; a consumers' lack.
	if err := (Trial{Codec: CodecProtobuf, Settings: mixed}).RuntimeUnsupported(); err != nil {
		t.Fatal(err)
	}
	err = (Trial{Codec: CodecKryo, Settings: mixed}).RuntimeUnsupported()
	if err == nil || !strings.Contains(err.Error(), "consumer client franz-go has no codec kryo") || strings.Contains(err.Error(), "client java has no codec") {
		t.Fatalf("kryo from java to franz-go: %v", err)
	}
	// eachRecord is the consumers' lack, rate.search both sides' (the JVM consumer
	// reads no search steps).
	each := Trial{Codec: CodecJSON, Settings: Settings{Client: ClientFranz, ConsumerClient: ClientJava}, Consumer: ConsumerSettings{Commit: CommitEachRecord}, Search: &RateSearch{}}
	err = each.RuntimeUnsupported()
	if err == nil || !strings.Contains(err.Error(), "consumer client java cannot run consumer.commit eachRecord") || !strings.Contains(err.Error(), "consumer client java cannot run rate.search") {
		t.Fatalf("eachRecord and rate.search with java consumers: %v", err)
	}
	each.Settings = Settings{Client: ClientJava, ConsumerClient: ClientFranz}
	if err := each.RuntimeUnsupported(); err == nil || strings.Contains(err.Error(), "eachRecord") {
		t.Fatalf("eachRecord with franz-go consumers of java producers is theirs: %v", err)
	}
}
