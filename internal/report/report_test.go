package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/stats"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestSearchLine: a result's rate search is summed up under the table, naming the
// maximum, the first step not sustained and why, and why the search stopped.
func TestSearchLine(t *testing.T) {
	res := &v1alpha1.SerializationResult{Trials: []v1alpha1.TrialResult{{Name: "t000-protobuf-1176b", Codec: "protobuf",
		Search: &v1alpha1.SearchResult{MaxSustainedRecordsPerSecond: 56955, Stopped: "producer 0 fell a whole step behind",
			Steps: []v1alpha1.SearchStep{{Index: 5, Sustained: true}, {Index: 6, Sustained: true},
				{Index: 7, Reason: "end-to-end p99 51199 µs above 50000 µs"}}}}}}
	var out bytes.Buffer
	if err := WideTable(&out, ResultRows(res)); err != nil {
		t.Fatal(err)
	}
	want := "rate search: t000-protobuf-1176b: max sustained 56955 rec/s over 8 steps; step 7 not sustained: " +
		"end-to-end p99 51199 µs above 50000 µs; producer 0 fell a whole step behind"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("table:\n%s\nwant the line %q", out.String(), want)
	}
	// Without a search, no such line.
	out.Reset()
	res.Trials[0].Search = nil
	if err := WideTable(&out, ResultRows(res)); err != nil || strings.Contains(out.String(), "rate search") {
		t.Fatalf("a trial without a search printed one (err %v):\n%s", err, out.String())
	}
}

// TestWarningsOnce: a warning every trial has is said once for the experiment; a
// trial's own warning is said for that trial.
func TestWarningsOnce(t *testing.T) {
	const every, own = "sarama keeps one request in flight per partition", "prometheus counted 9 records, the summaries 10"
	res := &v1alpha1.SerializationResult{Trials: []v1alpha1.TrialResult{
		{Name: "t000-json-1176b", Codec: "json", Warnings: []string{every}},
		{Name: "t001-avro-1176b", Codec: "avro", Warnings: []string{own, every}},
		{Name: "t002-protobuf-1176b", Codec: "protobuf", Warnings: []string{every}},
	}}
	var out bytes.Buffer
	if err := WideTable(&out, ResultRows(res)); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), every); n != 1 {
		t.Fatalf("the common warning said %d times:\n%s", n, out.String())
	}
	for _, want := range []string{"warning (all 3 trials): " + every, "warning: t001-avro-1176b: " + own} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("table:\n%s\nwant %q", out.String(), want)
		}
	}
	// One trial's warnings are its own.
	if got := CommonWarnings(ResultRows(&v1alpha1.SerializationResult{Trials: res.Trials[:1]})); got != nil {
		t.Fatalf("one trial: common %v", got)
	}
}

// TestTablePartialRepetitions: a result read while its second round runs (or after
// a failure) has trials with fewer repetitions than others, even one; the table
// still sums each up and compares it with the baseline trial, saying how many
// repetitions the comparison needs.
func TestTablePartialRepetitions(t *testing.T) {
	rep := func(config string, k int, rps float64) Row {
		return Row{Name: fmt.Sprintf("%s-r%d", config, k), Config: config, Repetition: k, Runs: 1, Codec: "json", Settings: config, RecordsPerSecond: rps}
	}
	rows := []Row{rep("t000-json", 1, 100), rep("t001-avro", 1, 300), rep("t000-json", 2, 110)}
	var out bytes.Buffer
	if err := WideTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "RUNS") || !strings.Contains(s, "baseline") || !strings.Contains(s, "needs ≥ 4 reps") || strings.Count(s, "\n  ") < 2 {
		t.Fatalf("table:\n%s", s)
	}
	if agg := Aggregate(rows); len(agg) != 2 || agg[0].Runs != 2 || agg[0].RecordsPerSecond != 105 || agg[1].Runs != 1 {
		t.Fatalf("aggregate %+v", agg)
	}
}

// TestTableScope: the table says which runtime's libraries its codec times are,
// naming every runtime and its clients, and what carries over to another language.
func TestTableScope(t *testing.T) {
	var out bytes.Buffer
	if err := WideTable(&out, []Row{{Name: "t000-json", Config: "t000-json", Codec: "json", Settings: "a", SerializedBytes: 300, RecordsPerSecond: 100}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go for sarama, franz-go, librdkafka", "jvm for java", "hold for producers in that language", "carry over to any"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table's footnotes lack %q:\n%s", want, out.String())
		}
	}
}

// TestTableHeaderBytes: the HDR B column shows each row's own header bytes, with or
// without a registry (it once showed the row's last cell, the registry's request
// count, so it was empty or wrong on every row).
func TestTableHeaderBytes(t *testing.T) {
	rows := []Row{
		{Name: "t000-json", Config: "t000-json", Codec: "json", Settings: "a", SerializedBytes: 300, HeaderBytes: 57, RecordsPerSecond: 100},
		{Name: "t001-avro", Config: "t001-avro", Codec: "avro/registry", Settings: "a", SerializedBytes: 200, HeaderBytes: 61, RecordsPerSecond: 200,
			Registry: &summary.RegistryCost{Requests: 9}},
	}
	var out bytes.Buffer
	if err := WideTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	// Cells align right under their column's name.
	end := strings.Index(lines[0], "HDR B") + len("HDR B")
	if end < len("HDR B") {
		t.Fatalf("no HDR B column:\n%s", out.String())
	}
	for i, want := range []string{"57", "61"} {
		line := lines[1+i]
		if len(line) < end || !strings.HasSuffix(line[:end], " "+want) {
			t.Errorf("row %d: HDR B shows %q, want %s:\n%s", i, strings.TrimSpace(line[max(0, end-8):min(end, len(line))]), want, out.String())
		}
	}
}

// TestBrokerCPU: the environment's broker CPU line names the pods read, or why none
// was, and says nothing when the result does not.
func TestBrokerCPU(t *testing.T) {
	for _, c := range []struct {
		b    *v1alpha1.BrokerCPU
		want string
	}{
		{nil, ""},
		{&v1alpha1.BrokerCPU{Namespace: "kafka", Pods: []string{"b-0", "b-1"}, ResolutionSeconds: 15}, "pods kafka/b-0, b-1 from cAdvisor, its samples up to 15 s apart"},
		{&v1alpha1.BrokerCPU{Namespace: "kafka", NotRead: "no pod matches"}, "not read: no pod matches"},
	} {
		if got := BrokerCPU(c.b); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}

// TestStoppedStatesItsLevel: after repeatUntil stopped a trial at 7 repetitions
// its intervals state the level the rule keeps (stats.StoppedConfidence), not
// the order statistics' 98.4 %; without the rule they keep the nominal level; a
// result marks its rows from its spec; every table says which.
func TestStoppedStatesItsLevel(t *testing.T) {
	var rows []Row
	for k := 1; k <= 7; k++ {
		rows = append(rows, Row{Name: fmt.Sprintf("t000-json-r%d", k), Config: "t000-json", Repetition: k, Runs: 1, Codec: "json", Settings: "a",
			RecordsPerSecond: float64(100 + k), SerializedBytes: 300})
	}
	nominal := stats.MedianAt(Values(Metrics[0], rows), stats.Confidence).Confidence
	if nominal < 0.98 {
		t.Fatalf("nominal level %v: the test needs one above StoppedConfidence", nominal)
	}
	for _, stopped := range []bool{false, true} {
		rs := Stopped(rows, stopped)
		want := nominal
		if stopped {
			want = stats.StoppedConfidence
		}
		if got := Aggregate(rs)[0].Estimates["recordsPerSecond"].Confidence; got != want {
			t.Errorf("stopped %v: aggregate states %v, want %v", stopped, got, want)
		}
		if got := Statistics(rs)[0].Metrics[0].ConfidencePermille; got != int32(math.Floor(1000*want)) {
			t.Errorf("stopped %v: statistics state %d ‰, want %v", stopped, got, want)
		}
		for name, table := range map[string]func(io.Writer, []Row) error{"wide": WideTable, "people": func(w io.Writer, r []Row) error { return Table(w, r, nil) }} {
			var out bytes.Buffer
			if err := table(&out, rs); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), "After repeatUntil") != stopped {
				t.Errorf("%s table, stopped %v:\n%s", name, stopped, out.String())
			}
		}
	}
	res := &v1alpha1.SerializationResult{Trials: []v1alpha1.TrialResult{{Name: "t000-json"}}}
	if ResultRows(res)[0].Stopped {
		t.Error("a result without repeatUntil marked stopped")
	}
	res.Experiment.Spec.RepeatUntil = &v1alpha1.RepeatUntil{MaxRepetitions: 8}
	if !ResultRows(res)[0].Stopped {
		t.Error("a result with repeatUntil not marked stopped")
	}
}
