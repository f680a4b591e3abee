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
