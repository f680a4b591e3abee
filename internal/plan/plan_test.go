package plan_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
)

func base() v1alpha1.ExperimentSpec {
	n := int64(100)
	return v1alpha1.ExperimentSpec{
		Codecs:  []trial.Codec{"json", "avro"},
		Payload: v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176, 4696}},
		Records: &n,
	}
}

func TestExpandMatrix(t *testing.T) {
	s := base()
	s.Matrix = &v1alpha1.Matrix{LingerMs: []int32{0, 10, 100}, Acks: []trial.Acks{"1", "all"}}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 2*2*3*2 {
		t.Fatalf("got %d trials, want 24", len(trials))
	}
	seen := map[string]bool{}
	for i, tr := range trials {
		if tr.Index != i {
			t.Fatalf("trial %d has index %d", i, tr.Index)
		}
		key := string(tr.Codec) + tr.Settings.Describe() + fmt.Sprint(tr.SizeBytes)
		if seen[key] {
			t.Fatalf("duplicate trial %s", key)
		}
		seen[key] = true
		if seen[tr.Name] {
			t.Fatalf("duplicate name %s", tr.Name)
		}
		seen[tr.Name] = true
	}
	// Codecs outermost, then sizes, then matrix dimensions in declaration order.
	first, last := trials[0], trials[len(trials)-1]
	if first.Codec != "json" || first.SizeBytes != 1176 || first.Settings.LingerMs != 0 || first.Settings.Acks != "1" {
		t.Fatalf("first trial %+v", first)
	}
	if last.Codec != "avro" || last.SizeBytes != 4696 || last.Settings.LingerMs != 100 || last.Settings.Acks != "all" {
		t.Fatalf("last trial %+v", last)
	}
	if trials[1].Settings.Acks != "all" || trials[1].Settings.LingerMs != 0 {
		t.Fatalf("innermost dimension should be acks: %+v", trials[1].Settings)
	}
}

func TestExpandDefaults(t *testing.T) {
	trials, err := plan.Expand(base())
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	want := trial.Settings{Mode: "batch", BatchSizeBytes: 16384, LingerMs: 5, Acks: "all", Compression: "none", MaxInFlight: 5,
		Client: "sarama", SendBufferBytes: -1, ReceiveBufferBytes: -1, Partitioner: "round-robin", PayloadCompression: "none", Records: 100}
	if tr.Settings != want {
		t.Fatalf("settings %+v, want %+v", tr.Settings, want)
	}
	if c := (trial.ConsumerSettings{FetchMinBytes: 1, FetchMaxWaitMs: 500, MaxPartitionFetchBytes: 1048576, ReceiveBufferBytes: -1, SendBufferBytes: -1,
		Commit: trial.CommitInterval, Isolation: trial.IsolationReadUncommitted, GroupProtocol: trial.GroupProtocolClassic, GroupType: trial.GroupTypeConsumer}); tr.Consumer != c || tr.Headers != trial.HeadersFull {
		t.Fatalf("consumer settings %+v, want %+v", tr.Consumer, c)
	}
	if tr.Partitions != 3 || tr.Replicas != 1 || tr.Producers != 1 || tr.Consumers != 1 || tr.PoolSize != 1024 || tr.Records != 100 {
		t.Fatalf("defaults not applied: %+v", tr)
	}
}

// TestRecordsSwept: matrix.records is an axis like any setting: each value is a
// trial whose producers send that many measured records.
func TestRecordsSwept(t *testing.T) {
	s := base()
	s.Codecs = []trial.Codec{"json"}
	s.Payload.SizesBytes = []int32{1176}
	s.Matrix = &v1alpha1.Matrix{Records: []int64{1000, 10000, 100000}}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 3 {
		t.Fatalf("%d trials, want 3", len(trials))
	}
	for i, want := range []int64{1000, 10000, 100000} {
		if tr := trials[i]; tr.Records != want || tr.Settings.Records != want || tr.DurationSeconds != 0 {
			t.Errorf("trial %d: records %d (settings %d, duration %d s), want %d", i, tr.Records, tr.Settings.Records, tr.DurationSeconds, want)
		}
	}
}

// TestExpandGuards: the planner refuses what it cannot plan even if a spec skipped
// admission (field checks are admission's: internal/cli/experiment's table).
func TestExpandGuards(t *testing.T) {
	for name, mutate := range map[string]func(*v1alpha1.ExperimentSpec){
		"no codecs":                    func(s *v1alpha1.ExperimentSpec) { s.Codecs = nil },
		"neither records nor duration": func(s *v1alpha1.ExperimentSpec) { s.Records = nil },
		"records and duration":         func(s *v1alpha1.ExperimentSpec) { d := int32(5); s.DurationSeconds = &d },
		"too many trials":              func(s *v1alpha1.ExperimentSpec) { s.Matrix = &v1alpha1.Matrix{BatchSizeBytes: make([]int32, 300)} },
		"records swept in a duration window": func(s *v1alpha1.ExperimentSpec) {
			d := int32(5)
			s.Records, s.DurationSeconds = nil, &d
			s.Matrix = &v1alpha1.Matrix{Records: []int64{10, 20}}
		},
		"idempotent with acks 1": func(s *v1alpha1.ExperimentSpec) {
			yes := true
			s.Producer.Idempotent = &yes
			s.Producer.Acks = "1"
		},
	} {
		s := base()
		mutate(&s)
		if _, err := plan.Expand(s); err == nil {
			t.Errorf("%s: Expand accepted it", name)
		}
	}
}

// TestVariantTrialNames: a library variant's slash never reaches a trial name, which
// becomes topic, KafkaTopic, job and pod names.
func TestVariantTrialNames(t *testing.T) {
	s := base()
	s.Codecs = []trial.Codec{"avro", "avro/hamba"}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := trials[2].Name; got != "t002-avro-hamba-1176b" || trials[2].Codec != "avro/hamba" {
		t.Fatalf("variant trial %q with codec %q", got, trials[2].Codec)
	}
	for _, tr := range trials {
		if errs := validation.IsDNS1123Label(tr.Name); len(errs) > 0 {
			t.Errorf("trial name %q: %v", tr.Name, errs)
		}
	}
}

// TestRepetitionsInterleaved: every round runs every trial once, rounds are
// shuffled differently, the order is the seed's, and every repetition has its own
// name (hence topic) and position.
func TestRepetitionsInterleaved(t *testing.T) {
	s := base()
	s.Matrix = &v1alpha1.Matrix{LingerMs: []int32{0, 10, 100}}
	s.Repetitions = 4
	runs, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	configs := 2 * 2 * 3
	if len(runs) != 4*configs || s.TrialCount() != len(runs) {
		t.Fatalf("%d runs (TrialCount %d), want %d", len(runs), s.TrialCount(), 4*configs)
	}
	names := map[string]bool{}
	var orders []string
	for k := range 4 {
		round := runs[k*configs : (k+1)*configs]
		seen := map[string]bool{}
		order := ""
		for i, r := range round {
			if r.Index != k*configs+i || r.Repetition != int32(k+1) || r.Name != fmt.Sprintf("%s-r%d", r.Config, k+1) {
				t.Fatalf("run %d: index %d repetition %d name %s config %s", k*configs+i, r.Index, r.Repetition, r.Name, r.Config)
			}
			if seen[r.Config] || names[r.Name] {
				t.Fatalf("round %d runs %s twice", k+1, r.Config)
			}
			seen[r.Config], names[r.Name] = true, true
			order += r.Config + " "
		}
		if len(seen) != configs {
			t.Fatalf("round %d runs %d of %d trials", k+1, len(seen), configs)
		}
		orders = append(orders, order)
	}
	if orders[0] == orders[1] && orders[1] == orders[2] {
		t.Errorf("rounds not shuffled: %v", orders)
	}
	again, _ := plan.Expand(s)
	seed := int64(2)
	s.Seed = &seed
	other, _ := plan.Expand(s)
	same, differs := true, false
	for i := range runs {
		same = same && again[i].Name == runs[i].Name
		differs = differs || other[i].Name != runs[i].Name
	}
	if !same || !differs {
		t.Errorf("the order must be the seed's: same seed same order %v, other seed other order %v", same, differs)
	}
	// One repetition: the plan as it was, names without a suffix.
	s.Repetitions = 1
	one, _ := plan.Expand(s)
	if len(one) != configs || one[0].Name != one[0].Config || one[0].Repetition != 0 || one[1].Index != 1 {
		t.Errorf("one repetition: %d trials, first %+v", len(one), one[0])
	}
}

// TestReference: spec.compare.baseline picks the first trial whose named values
// all match, by the names and values a spec writes; the first trial without it;
// an unknown key or values no trial has are errors naming them; every repetition
// of the reference carries it.
func TestReference(t *testing.T) {
	s := base()
	s.Matrix = &v1alpha1.Matrix{LingerMs: []int32{0, 100}, Acks: []trial.Acks{"1", "all"}}
	refs := func(s v1alpha1.ExperimentSpec) []string {
		t.Helper()
		trials, err := plan.Expand(s)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tr := range trials {
			if tr.Reference {
				out = append(out, fmt.Sprintf("%s %s linger=%d acks=%s", tr.Codec, tr.Name, tr.Settings.LingerMs, tr.Settings.Acks))
			}
		}
		return out
	}
	if got := refs(s); len(got) != 1 || got[0] != "json t000-json-1176b linger=0 acks=1" {
		t.Fatalf("default reference %v", got)
	}
	s.Compare = &v1alpha1.CompareSpec{Baseline: map[string]string{"codec": "avro", "lingerMs": "100", "acks": "all", "sizeBytes": "4696"}}
	if got := refs(s); len(got) != 1 || got[0] != "avro t015-avro-4696b linger=100 acks=all" {
		t.Fatalf("avro at linger 100, acks all, 4696 B: %v", got)
	}
	s.Repetitions = 3
	if got := refs(s); len(got) != 3 {
		t.Fatalf("repetitions of the reference: %v", got)
	}
	s.Repetitions = 1
	// The consumers' client is matched as they run it: the producers' when they
	// have none of their own.
	mixed := base()
	mixed.Matrix = &v1alpha1.Matrix{Client: []trial.Client{trial.ClientFranz, trial.ClientJava}, ConsumerClient: []trial.Client{trial.ClientJava}}
	mixed.Compare = &v1alpha1.CompareSpec{Baseline: map[string]string{"client": "java", "consumerClient": "java"}}
	if got := refs(mixed); len(got) != 1 || !strings.Contains(got[0], "t001-json") {
		t.Fatalf("java producers and consumers: %v", got)
	}
	for sel, want := range map[string]map[string]string{
		`unknown key "linger"`:            {"linger": "100"},
		"no trial has codec=protobuf":     {"codec": "protobuf"},
		"no trial has acks=0, codec=json": {"codec": "json", "acks": "0"},
	} {
		s.Compare = &v1alpha1.CompareSpec{Baseline: want}
		if _, err := plan.Expand(s); err == nil || !strings.Contains(err.Error(), "spec.compare.baseline: "+sel) {
			t.Errorf("%v: %v, want %q", want, err, sel)
		}
	}
}

// TestTransactionsRefused: a transactional producer needs acks all, and a client
// that cannot run the settings is refused with the client's reason; one that can
// is planned with its consumers' isolation.
func TestTransactionsRefused(t *testing.T) {
	txn := func(client trial.Client, acks trial.Acks, inflight int32) v1alpha1.ExperimentSpec {
		s := base()
		s.Client = client
		s.Producer.Acks, s.Producer.MaxInFlight = acks, &inflight
		s.Producer.Transactions = &trial.Transactions{RecordsPerTransaction: 100}
		s.Consumer.Isolation = trial.IsolationReadCommitted
		return s
	}
	for _, c := range []struct {
		spec v1alpha1.ExperimentSpec
		want string
	}{
		{txn(trial.ClientFranz, trial.AcksLeader, 5), "transactional producer needs acks=all"},
		{txn(trial.ClientSarama, trial.AcksAll, 1), "client sarama has no transactions: sarama 1.61.1's transaction manager races on its own state when a send fails mid-transaction"},
		{txn(trial.ClientFranz, trial.AcksAll, 1), "client franz-go cannot run transactions with these settings: franz-go's transactional producer is idempotent, which keeps 5 requests in flight per broker whatever maxInFlight says: set maxInFlight: 5 (the default), not 1"},
		{txn(trial.ClientRdkafka, trial.AcksAll, 8), "client librdkafka cannot run transactions with these settings: librdkafka's transactional producer is idempotent, which allows at most 5 requests in flight per connection: set maxInFlight to 5 or less, not 8"},
	} {
		if _, err := plan.Expand(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.spec.Client, err, c.want)
		}
	}
	for _, s := range []v1alpha1.ExperimentSpec{txn(trial.ClientFranz, trial.AcksAll, 5), txn(trial.ClientRdkafka, trial.AcksAll, 5), txn(trial.ClientRdkafka, trial.AcksAll, 1)} {
		trials, err := plan.Expand(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Client, err)
		}
		if tr := trials[0]; !tr.Settings.Transactions.Enabled() || tr.Consumer.Isolation != trial.IsolationReadCommitted {
			t.Fatalf("%s: settings %+v, consumer %+v", s.Client, tr.Settings, tr.Consumer)
		}
	}
}

// TestGroupProtocolRefused: the consumer group protocol is refused for a client
// without it, naming the client and what it lacks; the others are planned with
// it, and a consumer leaving needs another consumer to finish the trial.
func TestGroupProtocolRefused(t *testing.T) {
	spec := func(c trial.Client) v1alpha1.ExperimentSpec {
		s := base()
		s.Client = c
		s.Consumer.GroupProtocol = trial.GroupProtocolConsumer
		return s
	}
	if _, err := plan.Expand(spec(trial.ClientSarama)); err == nil ||
		!strings.Contains(err.Error(), "client sarama has no consumer group protocol (KIP-848): sarama speaks only the classic protocol") {
		t.Errorf("sarama: %v", err)
	}
	for _, c := range []trial.Client{trial.ClientFranz, trial.ClientRdkafka} {
		trials, err := plan.Expand(spec(c))
		if err != nil || trials[0].Consumer.GroupProtocol != trial.GroupProtocolConsumer {
			t.Fatalf("%s: %v", c, err)
		}
	}
	s := base()
	s.Consumers = 1
	s.Faults = &v1alpha1.Faults{Scenarios: []trial.Fault{{Name: "leave", StartSeconds: 2, Consumers: &trial.ConsumerFault{Action: trial.ConsumerLeave}}}}
	if _, err := plan.Expand(s); err == nil || !strings.Contains(err.Error(), "needs at least 2 consumers") {
		t.Errorf("a leave with one consumer: %v", err)
	}
}

// TestShareGroupPlanned: a share group is franz-go's alone; its trials carry
// the share settings (defaults filled), its label says so, and what it cannot
// measure is refused with the reason.
func TestShareGroupPlanned(t *testing.T) {
	spec := func(c trial.Client) v1alpha1.ExperimentSpec {
		s := base()
		s.Client = c
		s.Consumer.GroupType = trial.GroupTypeShare
		return s
	}
	for _, c := range []trial.Client{trial.ClientSarama, trial.ClientRdkafka} {
		if _, err := plan.Expand(spec(c)); err == nil || !strings.Contains(err.Error(), "client "+string(c)+" has no share groups (KIP-932)") {
			t.Errorf("%s: %v", c, err)
		}
	}
	s := spec(trial.ClientFranz)
	s.Consumer.Share = &v1alpha1.ShareSpec{ReleaseOneIn: ptr(int32(50))}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	want := trial.ShareSettings{Acknowledgement: trial.ShareAckImplicit, DeliveryCountLimit: 5, ReleaseOneIn: 50}
	if tr := trials[0]; tr.Consumer.GroupType != trial.GroupTypeShare || tr.Consumer.Share == nil || *tr.Consumer.Share != want ||
		!strings.Contains(tr.Settings.Describe(), "groupType=share") {
		t.Fatalf("share trial: consumer %+v, share %+v, label %q", tr.Consumer, tr.Consumer.Share, tr.Settings.Describe())
	}
	refused := map[string]func(*v1alpha1.ExperimentSpec){
		"groupProtocol applies to consumer groups": func(s *v1alpha1.ExperimentSpec) { s.Consumer.GroupProtocol = trial.GroupProtocolConsumer },
		"a share group runs on a topic of its own": func(s *v1alpha1.ExperimentSpec) { s.Topic.Name = "orders" },
		"not consumer.commit: eachRecord":          func(s *v1alpha1.ExperimentSpec) { s.Consumer.Commit = trial.CommitEachRecord },
	}
	for why, change := range refused {
		s := spec(trial.ClientFranz)
		change(&s)
		if _, err := plan.Expand(s); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v", why, err)
		}
	}
	// Share settings no trial uses are refused (as the CRD's rule does), not ignored.
	s = base()
	s.Consumer.Share = &v1alpha1.ShareSpec{}
	if _, err := plan.Expand(s); err == nil || err.Error() != plan.ShareUnused {
		t.Errorf("consumer group with share settings: %v", err)
	}
	// Beside share groups, a consumer group's trial carries none of them.
	s.Client = trial.ClientFranz
	s.Matrix = &v1alpha1.Matrix{GroupType: []trial.GroupType{trial.GroupTypeConsumer, trial.GroupTypeShare}}
	trials, err = plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		if (tr.Consumer.Share != nil) != (tr.Consumer.GroupType == trial.GroupTypeShare) {
			t.Errorf("%s: group type %s with share settings %+v", tr.Name, tr.Consumer.GroupType, tr.Consumer.Share)
		}
	}
}

// TestMatrixInclude: included combinations run after the swept ones, each the
// spec's settings with the values it sets; one the sweeps already make is
// refused; the trial count includes them.
func TestMatrixInclude(t *testing.T) {
	s := base()
	s.Codecs, s.Payload.SizesBytes = []trial.Codec{"json"}, []int32{1176}
	s.Client = trial.ClientFranz
	s.Producer.Acks = trial.AcksLeader
	s.Matrix = &v1alpha1.Matrix{LingerMs: []int32{0, 5}, Include: []v1alpha1.MatrixPoint{
		{Acks: trial.AcksAll, Idempotent: ptr(true), MaxInFlight: ptr(int32(1))},
		{Acks: trial.AcksAll, Transactions: &trial.Transactions{RecordsPerTransaction: 500}}}}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 4 || s.TrialCount() != 4 {
		t.Fatalf("%d trials, count %d: want 2 swept + 2 included", len(trials), s.TrialCount())
	}
	got := []string{}
	for _, tr := range trials {
		got = append(got, tr.Settings.Describe())
	}
	want := []string{"batch acks=1 none batch=16384 linger=0ms client=franz-go records=100", "batch acks=1 none batch=16384 linger=5ms client=franz-go records=100",
		"batch acks=all none batch=16384 linger=5ms inflight=1 idempotent client=franz-go records=100", "batch acks=all none batch=16384 linger=5ms client=franz-go txn=500rec records=100"}
	if !slices.Equal(got, want) {
		t.Fatalf("trials %q, want %q", got, want)
	}
	s.Matrix.Include = append(s.Matrix.Include, v1alpha1.MatrixPoint{LingerMs: ptr(int32(0))})
	if _, err := plan.Expand(s); err == nil || !strings.Contains(err.Error(), "matrix.include[2]") {
		t.Fatalf("a combination the sweeps make: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
