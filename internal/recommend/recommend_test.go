package recommend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
)

type trialSpec struct {
	codec         string
	rps, p99, ser float64 // ser: serialized bytes per record
	cpu           float64 // worker CPU µs per record
}

// rows are reps repetitions of each trial with 2 % noise (seeded).
func rows(reps int, ts ...trialSpec) []report.Row { return sized(reps, 1176, "", ts...) }

// sized are rows of records of size bytes under given settings.
func sized(reps int, size int32, given string, ts ...trialSpec) []report.Row {
	rng := rand.New(rand.NewPCG(uint64(size), uint64(reps)))
	var out []report.Row
	for k := range reps {
		for i, t := range ts {
			n := func() float64 { return math.Exp(0.02 * rng.NormFloat64()) }
			name := fmt.Sprintf("t%03d-%s-%db", i, t.codec, size)
			if given != "" {
				name += "-" + given
			}
			r := report.Row{Name: name, Config: name, Codec: t.codec, SizeBytes: size, Schema: "business-record", Given: given, RecordsPerSecond: t.rps * n(), P99: int64(t.p99 * n()),
				SerializedBytes: t.ser, WorkerCPUMicros: t.cpu * n(), UsageScope: "process"}
			if reps > 1 {
				r.Name, r.Repetition = fmt.Sprintf("%s-r%d", name, k+1), k+1
			}
			out = append(out, r)
		}
	}
	return out
}

var thesis = []trialSpec{
	{"json", 40000, 30000, 1176, 20},
	{"protobuf", 100000, 12000, 620, 8},
	{"msgpack", 99000, 12500, 900, 9},
	{"avro", 90000, 9000, 580, 10}, // slower, but the lowest p99 and smallest: on the front
}

// TestParetoDefault: without an objective, the front holds every trial no other
// beats in all four metrics (not json), the choice is its highest records/s (of
// protobuf and msgpack, 1 % apart at 2 % noise: either), the other ties with it at
// 6 repetitions, and json and avro are worse, with their intervals.
func TestParetoDefault(t *testing.T) {
	res, err := Recommend(rows(6, thesis...), nil)
	if err != nil || len(res.Choices) != 1 {
		t.Fatal(err, res)
	}
	r := res.Choices[0]
	twins := map[string]string{"t001-protobuf-1176b": "t002-msgpack-1176b", "t002-msgpack-1176b": "t001-protobuf-1176b"}
	if twins[r.Best] == "" || r.Front[0] != r.Best || !slices.Contains(r.Front, "t003-avro-1176b") || slices.Contains(r.Front, "t000-json-1176b") ||
		r.NeedsRepetitions != 0 {
		t.Fatalf("%+v", r)
	}
	if len(r.Ties) != 1 || r.Ties[0] != twins[r.Best] {
		t.Fatalf("ties %v (%+v)", r.Ties, r.Others)
	}
	var json Other
	for _, o := range r.Others {
		if o.Name == "t000-json-1176b" {
			json = o
		}
	}
	if json.Tie || json.Change.Percent > -55 || json.Change.Percent < -65 || json.Change.LowPercent > json.Change.Percent || json.Change.Confidence < 0.95 {
		t.Fatalf("json against the best: %+v", json)
	}
	if s := res.Line(r); !strings.Contains(s, "not told from it (not shown different, nor shown equal): "+twins[r.Best]) || !strings.Contains(s, "t000-json-1176b -6") || !strings.Contains(s, "] 9") {
		t.Fatalf("summary %q", s)
	}
}

// TestObjectiveAndConstraints: maximize records/s subject to p99 ≤ 11 ms picks
// avro, rules the others out with the reason; minimize p99 picks avro too; an
// unknown metric is refused, naming the known ones; nothing feasible is an error.
func TestObjectiveAndConstraints(t *testing.T) {
	at := func(v int64) *int64 { return &v }
	o := &v1alpha1.Objective{Optimize: "recordsPerSecond", Constraints: []v1alpha1.Constraint{{Metric: "endToEndMicros.p99", AtMost: at(11000)}}}
	r, err := Recommend(rows(5, thesis...), o)
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Choices[0]; c.Best != "t003-avro-1176b" || len(c.Infeasible) != 3 || !strings.Contains(c.Infeasible[0], "endToEndMicros.p99") ||
		!strings.Contains(r.Objective, "maximize recordsPerSecond, endToEndMicros.p99 ≤ 11000 µs") {
		t.Fatalf("%+v", r)
	}
	if r, err := Recommend(rows(5, thesis...), &v1alpha1.Objective{Optimize: "endToEndMicros.p99"}); err != nil || r.Choices[0].Best != "t003-avro-1176b" {
		t.Fatalf("minimize p99: %+v %v", r, err)
	}
	// A count measured at 0 is measured: no lost records meets "at most 0".
	if r, err := Recommend(rows(5, thesis...), &v1alpha1.Objective{Constraints: []v1alpha1.Constraint{{Metric: "lostRecords", AtMost: at(0)}}}); err != nil ||
		len(r.Choices[0].Infeasible) != 0 {
		t.Fatalf("lostRecords ≤ 0: %+v %v", r, err)
	}
	if _, err := Recommend(rows(1, thesis...), &v1alpha1.Objective{Optimize: "speed"}); err == nil || !strings.Contains(err.Error(), `unknown metric "speed"`) ||
		!strings.Contains(err.Error(), "endToEndMicros.p99") {
		t.Fatalf("unknown metric: %v", err)
	}
	if _, err := Recommend(rows(1, thesis...), &v1alpha1.Objective{Constraints: []v1alpha1.Constraint{{Metric: "endToEndMicros.p99", AtMost: at(1)}}}); err == nil ||
		!strings.Contains(err.Error(), "no trial meets the constraints") {
		t.Fatalf("nothing feasible: %v", err)
	}
}

// TestOneRepetitionSaysWhatItNeeds: with one repetition nothing can be told
// apart: the choice is made by the medians and the recommendation says how many
// repetitions a verdict needs, never calling a trial a tie or worse.
func TestOneRepetitionSaysWhatItNeeds(t *testing.T) {
	res, err := Recommend(rows(1, thesis...), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Choices[0]
	if r.Best != "t001-protobuf-1176b" || r.NeedsRepetitions != 5 || !r.Inconclusive() || len(r.Ties) != 0 || !strings.Contains(res.Line(r), "inconclusive") {
		t.Fatalf("%+v\n%s", r, res.Line(r))
	}
	if a := res.Advice(12); !strings.Contains(a, "`repetitions: 5`") || !strings.Contains(a, "20 trial runs of 12 s each: at least 4 minutes") {
		t.Fatalf("advice %q", a)
	}
	b := Block(res, nil, 12)
	c := b.Choices[0]
	if c.Best != r.Best || c.NeedsRepetitions != 5 || len(c.Others) != 3 || c.Others[0].ChangeLowPercent != "" || c.Others[0].PValue != "" ||
		c.Summary == "" || b.Advice == "" {
		t.Fatalf("block %+v", b)
	}
}

// TestPerPayload: trials are ranked only against trials of the same payload and
// given settings, never a 1 KiB record's records/s against a 9 KiB one's; the
// tests of every choice are corrected together; a choice whose trials ran once
// is inconclusive and comes first, the advice counting every trial's runs.
func TestPerPayload(t *testing.T) {
	slow := slices.Clone(thesis)
	for i := range slow {
		slow[i].rps /= 4 // every 9312 B trial is slower than every 1176 B one
	}
	runs := append(append(rows(6, thesis...), sized(1, 9312, "", slow...)...), sized(6, 1176, "rate=1000/s", thesis...)...)
	res, err := Recommend(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var fors []string
	for _, c := range res.Choices {
		fors = append(fors, c.For)
	}
	want := []string{"business-record 9312 B", "business-record 1176 B", "business-record 1176 B, rate=1000/s"}
	if !slices.Equal(fors, want) || res.Tests != 9 {
		t.Fatalf("choices %q, tests %d, want %q and 9", fors, res.Tests, want)
	}
	if c := res.Choices[0]; !c.Inconclusive() || c.Best != "t001-protobuf-9312b" || len(c.Others) != 3 {
		t.Fatalf("9312 B: %+v", c)
	}
	for _, c := range res.Choices[1:] {
		if c.Inconclusive() || !strings.Contains(c.Best, "-1176b") || len(c.Others) != 3 || slices.ContainsFunc(c.Others, func(o Other) bool {
			return strings.Contains(o.Name, "9312b") || strings.Contains(o.Name, "rate") != strings.Contains(c.Best, "rate")
		}) {
			t.Fatalf("%s: %+v", c.For, c)
		}
	}
	if m := res.Marks(); len(m) != 3 || m[res.Choices[0].Best] != report.Ahead || m[res.Choices[1].Best] != report.Best {
		t.Fatalf("marks %v", m)
	}
	if b := Block(res, nil, 0); !strings.HasPrefix(b.Best, res.Choices[0].Best+"?, ") {
		t.Fatalf("Best column %q", b.Best)
	}
	// 6 repetitions each can decide among 9 tests (6 is the fewest that can).
	if res.Choices[0].NeedsRepetitions != 6 || !strings.Contains(res.Advice(0), "`repetitions: 6`") || !strings.Contains(res.Advice(0), "72 trial runs)") {
		t.Fatalf("advice %q (needs %d)", res.Advice(0), res.Choices[0].NeedsRepetitions)
	}
}

// TestNamesAreConfigs: a repeated trial read with one repetition so far (a result
// mid-run) is named by its config, as the table marks it, and its repetitions
// count; the user's own records, whose mean size each trial measures, are one
// payload whatever their sizes.
func TestNamesAreConfigs(t *testing.T) {
	runs := slices.DeleteFunc(rows(6, thesis...), func(r report.Row) bool { return r.Config == "t003-avro-1176b" && r.Repetition > 1 })
	res, err := Recommend(runs, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Choices[0]
	for _, o := range c.Others {
		if strings.HasSuffix(o.Name, "-r1") || math.IsNaN(o.Change.Percent) {
			t.Errorf("other %+v", o)
		}
	}
	if c.Repetitions != 1 || strings.HasSuffix(c.Best, "-r1") {
		t.Fatalf("%+v", c)
	}
	own := rows(1, thesis...)
	for i := range own {
		own[i].Source, own[i].Schema, own[i].SizeBytes = true, "source:json", int32(900+i)
	}
	if res, err := Recommend(own, nil); err != nil || len(res.Choices) != 1 || res.Choices[0].For != "source:json" {
		t.Fatalf("own records: %+v %v", res, err)
	}
}

// TestHowSureThePickIs: the pick carries its selection (stats.Select over every
// feasible trial's repetitions, as the result records it) and each tie the
// repetitions that would separate it (stats.Separating at the family's
// correction, the pair's own spread). Among four equals the pick is unstable;
// far ahead it is picked again every time and its median flatters it little.
func TestHowSureThePickIs(t *testing.T) {
	equals := []trialSpec{{"json", 100000, 10000, 900, 9}, {"protobuf", 100000, 10000, 900, 9}, {"msgpack", 100000, 10000, 900, 9}, {"avro", 100000, 10000, 900, 9}}
	res, err := Recommend(rows(6, equals...), &v1alpha1.Objective{Optimize: "recordsPerSecond"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Choices[0]
	byName := map[string][]report.Row{}
	for _, g := range report.Groups(rows(6, equals...)) {
		byName[report.ConfigOf(g[0])] = g
	}
	m := report.Metrics[0]
	samples := [][]float64{report.Values(m, byName[c.Best])}
	for _, o := range c.Others {
		samples = append(samples, report.Values(m, byName[o.Name]))
	}
	if want := stats.Select(samples, 0, false); c.Selection != want || want.Splits == 0 || want.Again > 0.9 {
		t.Fatalf("selection %+v, want %+v, picked again under 90 %%", c.Selection, want)
	}
	if len(c.Ties) != 3 {
		t.Fatalf("ties %v", c.Ties)
	}
	for _, o := range c.Others {
		want := stats.Separating(unflattered(o.Change.Percent, c.Selection), stats.LogSpread(samples[0], report.Values(m, byName[o.Name])), res.Tests, int(v1alpha1.MostRepetitions))
		if o.Separating != want {
			t.Errorf("%s: separating %d, want %d", o.Name, o.Separating, want)
		}
	}
	b := Block(res, nil, 0).Choices[0]
	if s := b.Selection; s == nil || s.Splits != stats.Splits || s.PickedAgainPermille != int32(math.Round(1000*c.Selection.Again)) ||
		s.ValueApart != report.Decimal(c.Selection.Value, 2) || s.BiasPercent != report.Decimal(c.Selection.BiasPercent, 2) {
		t.Fatalf("block selection %+v", b.Selection)
	}
	for _, a := range b.Others {
		if !a.Tie {
			t.Errorf("%s: not a tie", a.Name)
		}
	}
	if line := res.Line(c); !strings.Contains(line, "picked from 4 on the same repetitions") || !strings.Contains(line, "of 1000 splits") ||
		!strings.Contains(line, "not told from it") {
		t.Fatalf("line %q", line)
	}
	ahead := slices.Clone(equals)
	ahead[1].rps = 200000
	res, err = Recommend(rows(6, ahead...), &v1alpha1.Objective{Optimize: "recordsPerSecond"})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Choices[0]; c.Best != "t001-protobuf-1176b" || c.Selection.Again != 1 || math.Abs(c.Selection.BiasPercent) > 2 || len(c.Ties) != 0 {
		t.Fatalf("far ahead: %+v", c)
	}
	// One repetition each: nothing to split.
	if res, err := Recommend(rows(1, ahead...), nil); err != nil || res.Choices[0].Selection.Splits != 0 || Block(res, nil, 0).Choices[0].Selection != nil {
		t.Fatalf("one repetition: %+v %v", res, err)
	}
}

// TestUnflattered: a gap to the best shrinks toward zero by the best's flattery,
// on the log scale and either way round; flattery beyond the gap leaves none; no
// selection (or none flattering) leaves it as it is.
func TestUnflattered(t *testing.T) {
	sel := stats.Selection{Splits: 1000, BiasPercent: 4}
	for _, c := range []struct{ change, want float64 }{
		{-10, 100 * math.Expm1(math.Log(0.9)+math.Log(1.04))},
		{10, 100 * math.Expm1(math.Log(1.1)-math.Log(1.04))},
		{-3, 0},
		{3, 0},
	} {
		if got := unflattered(c.change, sel); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%+.0f %% with 4 %% flattery: %+.4f, want %+.4f", c.change, got, c.want)
		}
	}
	for _, s := range []stats.Selection{{}, {Splits: 1000, BiasPercent: -2}} {
		if got := unflattered(-10, s); got != -10 {
			t.Errorf("%+v: %v, want -10", s, got)
		}
	}
}

// TestInconclusiveLeadSaysItsFlattery: a choice too few repetitions can settle
// still names the trial ahead so far, and beside it what that lead is worth
// measured apart from its choice: a best median of several flatters it
// whether or not the tests can tell.
func TestInconclusiveLeadSaysItsFlattery(t *testing.T) {
	res, err := Recommend(rows(3, thesis...), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Choices[0]
	line := res.Line(c)
	if !c.Inconclusive() || c.Selection.Splits == 0 || !strings.Contains(line, "ahead so far: "+c.Best) ||
		!strings.Contains(line, fmt.Sprintf("its median flatters it by %.1f %%", c.Selection.BiasPercent)) {
		t.Fatalf("%+v\n%s", c, line)
	}
}
