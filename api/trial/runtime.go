package trial

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Runtime is the language a worker runs in. Each client belongs to one, and the
// operator and the local runner start that runtime's worker for it: the same
// contract (docs/worker-contract.md), another process.
type Runtime string

// Runtimes of workers.
const (
	// RuntimeGo is cmd/worker, with sarama, franz-go and librdkafka.
	RuntimeGo Runtime = "go"
	// RuntimeJVM is workers/jvm, with Kafka's Java client.
	RuntimeJVM Runtime = "jvm"
)

// RuntimeSupport is one runtime's worker and what it can run. Runtimes is the one
// table of them: the planner refuses a trial a runtime cannot run, with the reason
// (Trial.RuntimeUnsupported), and the CRD's admission rules say the same
// (hack/gensettings).
// +kubebuilder:object:generate=false
type RuntimeSupport struct {
	// Runtime names it.
	Runtime Runtime
	// Worker is where its worker lives.
	Worker string
	// Clients are the clients its worker runs.
	Clients []Client
	// Codecs are the codecs its worker has (its codec table's names: a test of each
	// worker checks them).
	Codecs []Codec
	// Lacks are what of a trial, beyond its settings (Features), its worker
	// cannot run yet.
	Lacks []Lack
}

// Lack is something of a trial a runtime's worker cannot run.
// +kubebuilder:object:generate=false
type Lack struct {
	// Name is what refusals call it.
	Name string
	// Side is whose worker must have it.
	Side Side
	// Uses says whether trial t asks for it.
	Uses func(t Trial) bool
	// CEL is the same test on the experiment spec (self), for admission.
	CEL string
}

// Runtimes is every runtime, with what its worker can run.
var Runtimes = []RuntimeSupport{
	{Runtime: RuntimeGo, Worker: "cmd/worker", Clients: []Client{ClientSarama, ClientFranz, ClientRdkafka},
		Codecs: []Codec{CodecJSON, CodecAvro, CodecProtobuf, CodecMsgpack, CodecRaw, CodecThriftBinary, CodecThriftCompact,
			CodecCapnp, CodecCapnpPacked, CodecFlatbuffers, CodecGob, CodecCBOR,
			CodecAvroHamba, CodecMsgpackMsgp, CodecProtobufVtproto, CodecJSONGoccy,
			CodecAvroRegistry, CodecProtobufRegistry, CodecJSONRegistry}},
	{Runtime: RuntimeJVM, Worker: "workers/jvm", Clients: []Client{ClientJava},
		Codecs: []Codec{CodecJSON, CodecAvro, CodecAvroSpecific, CodecProtobuf, CodecMsgpack, CodecRaw, CodecCBOR, CodecFlatbuffers,
			CodecThriftBinary, CodecThriftCompact, CodecJavaSerialization, CodecKryo, CodecKryoUnsafe, CodecFory,
			CodecAvroRegistry, CodecProtobufRegistry, CodecJSONRegistry},
		Lacks: []Lack{
			{Name: "fault scenarios", Side: SideBoth, Uses: func(t Trial) bool { return t.Fault != nil }, CEL: "has(self.faults)"},
			{Name: "rate.search", Side: SideBoth, Uses: func(t Trial) bool { return t.Search != nil }, CEL: "has(self.rate) && has(self.rate.search)"},
			{Name: "payload.source (the user's own records)", Side: SideBoth, Uses: func(t Trial) bool { return t.Source != nil }, CEL: "has(self.payload.source)"},
			{Name: "topic.name (an existing topic)", Side: SideBoth, Uses: func(t Trial) bool { return t.ExistingTopic != "" }, CEL: "has(self.topic) && has(self.topic.name)"},
			{Name: "share groups' producers (it waits for a consumer group)", Side: SideProducers, Uses: func(t Trial) bool { return t.Consumer.GroupType == GroupTypeShare },
				CEL: "(has(self.consumer) && has(self.consumer.groupType) && self.consumer.groupType == 'share') || (has(self.matrix) && has(self.matrix.groupType) && self.matrix.groupType.exists(v, v == 'share'))"},
			{Name: "consumer.commit eachRecord", Side: SideConsumers, Uses: func(t Trial) bool { return t.Consumer.Commit == CommitEachRecord },
				CEL: "has(self.consumer) && has(self.consumer.commit) && self.consumer.commit == 'eachRecord'"},
		}},
}

// Runtime is the runtime whose worker runs client c (the default client's for "").
func (c Client) Runtime() Runtime { return c.support().Runtime }

// Runtimes names the runtimes of s's producers and consumers: one name when they
// are the same ("go", "jvm"), else the producers' then the consumers' ("jvm→go").
// A client this version does not know (a newer result's) is "unknown".
func (s Settings) Runtimes() string {
	runtimeOf := func(c Client) string {
		if r, ok := c.find(); ok {
			return string(r.Runtime)
		}
		return "unknown"
	}
	p, c := runtimeOf(s.ClientOf(SideProducers)), runtimeOf(s.ClientOf(SideConsumers))
	if p == c {
		return p
	}
	return p + "→" + c
}

// support is c's runtime's row of Runtimes.
func (c Client) support() RuntimeSupport {
	r, ok := c.find()
	if !ok {
		panic("trial: client " + string(c.OrDefault()) + " is in no runtime") // TestEveryClientHasARuntime
	}
	return r
}

// find is c's runtime's row of Runtimes, if c is in one.
func (c Client) find() (RuntimeSupport, bool) {
	c = c.OrDefault()
	for _, r := range Runtimes {
		if slices.Contains(r.Clients, c) {
			return r, true
		}
	}
	return RuntimeSupport{}, false
}

// HasCodec says whether the runtime of client c has codec.
func (c Client) HasCodec(codec Codec) bool {
	r := c.support()
	return slices.Contains(r.Codecs, codec)
}

// RuntimeUnsupported says why the workers of t's clients cannot run t (nil when
// they can): a codec or something of the trial their runtime's worker lacks.
func (t Trial) RuntimeUnsupported() error {
	var errs []error
	for _, c := range t.Settings.clientsOf(SideBoth) {
		r := c.client.support()
		if !c.client.HasCodec(t.Codec) {
			names := make([]string, len(r.Codecs))
			for i, n := range r.Codecs {
				names[i] = string(n)
			}
			errs = append(errs, fmt.Errorf("%s has no codec %s: the %s worker (%s) has %s", c.name, t.Codec, r.Runtime, r.Worker, strings.Join(names, ", ")))
		}
	}
	seen := map[string]bool{} // one client on both sides says a lack once
	for _, side := range []Side{SideProducers, SideConsumers} {
		c := t.Settings.clientsOf(side)[0]
		r := c.client.support()
		for _, l := range r.Lacks {
			if (l.Side != side && l.Side != SideBoth) || !l.Uses(t) {
				continue
			}
			if msg := fmt.Sprintf("%s cannot run %s: the %s worker (%s) has none yet", c.name, l.Name, r.Runtime, r.Worker); !seen[msg] {
				seen[msg] = true
				errs = append(errs, errors.New(msg))
			}
		}
	}
	return errors.Join(errs...)
}

// Clients are the clients runtime r's worker runs.
func (r Runtime) Clients() []Client { return r.support().Clients }

// Codecs are the codecs runtime r's worker has.
func (r Runtime) Codecs() []Codec { return r.support().Codecs }

// support is r's row of Runtimes (the zero row for an unknown runtime).
func (r Runtime) support() RuntimeSupport {
	for _, s := range Runtimes {
		if s.Runtime == r {
			return s
		}
	}
	return RuntimeSupport{}
}
