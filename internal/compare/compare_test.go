package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/report"
)

func row(codec string, rps float64, p99 int64, ser float64) report.Row {
	return report.Row{Name: "t-" + codec, Codec: codec, Schema: "business-record", SizeBytes: 1176, Settings: "batch acks=1",
		RecordsPerSecond: rps, P99: p99, SerMicros: ser}
}

// steady are n runs of json and protobuf a few percent apart, and a run's
// protobuf throughput changed by factor.
func steady(n int) [][]report.Row {
	var out [][]report.Row
	for i := range n {
		w := 1 + 0.02*float64(i%3-1) // −2 %, 0, +2 %
		out = append(out, []report.Row{row("json", 40000*w, int64(20000*w), 4.7*w), row("protobuf", 146000/w, int64(8000*w), 1.5*w)})
	}
	return out
}

func withProtobuf(rps float64) []report.Row {
	return []report.Row{row("json", 40000, 20000, 4.7), row("protobuf", rps, 8000, 1.5)}
}

// TestPlantedDropPersists: a 20 % throughput drop of one trial against steady
// runs is Suspect on its first run and Regressed on its second, that trial and
// metric only; its figures say the change and its interval, which holds it.
func TestPlantedDropPersists(t *testing.T) {
	runs := append(steady(5), withProtobuf(146000*0.8))
	res, verdicts := Replay(runs, DefaultOptions)
	if res.Verdict != Suspect || verdicts[5] != Suspect || res.Trials[1].Verdict != Suspect || res.Trials[0].Verdict != Within {
		t.Fatalf("first run of the drop: %v, %+v", verdicts, res)
	}
	runs = append(runs, withProtobuf(146000*0.81))
	res, verdicts = Replay(runs, DefaultOptions)
	if !res.Regressed() || verdicts[6] != Regressed || res.Trials[0].Verdict != Within || res.Trials[1].Verdict != Regressed {
		t.Fatalf("second run of the drop: %v, %+v", verdicts, res)
	}
	m := res.Trials[1].Metrics[0]
	if m.Name != "recordsPerSecond" || m.Verdict != Regressed || m.BaselineRuns != 5 || m.StreakRuns != 2 ||
		m.ChangePercent > -18.5 || m.ChangePercent < -19.5 || m.ChangeLowPercent > m.ChangePercent || m.ChangeHighPercent < m.ChangePercent ||
		m.ChangeConfidence != 0.95 || !(m.StreakP < 0.01) {
		t.Fatalf("throughput metric %+v", m)
	}
	for _, other := range res.Trials[1].Metrics[1:] {
		if other.Verdict != Within {
			t.Errorf("%s: %s, want Within", other.Name, other.Verdict)
		}
	}
	// Flagged says the test the verdict rests on: the streak's, relative to the control.
	if got := res.Flagged(Regressed); len(got) != 1 || !strings.HasPrefix(got[0], "t-protobuf: recordsPerSecond -") ||
		!strings.Contains(got[0], "last 2 runs' mean vs the control, ≤ -") || m.Streak == nil || !strings.Contains(got[0], m.Streak.String()) {
		t.Fatalf("regressed trials %v", got)
	}
	// With persistence 1 the first run of the drop regresses.
	o := DefaultOptions
	o.Persistence = 1
	if res := Compare(steady(5), withProtobuf(146000*0.8), o); !res.Regressed() {
		t.Fatalf("persistence 1: %+v", res)
	}
}

// TestOneBadRunIsNotAnAlert: one run far off, then back: Suspect, then neither
// Suspect nor Regressed (the bad run is the next run's streak partner, not its
// baseline, and the two together are not each worse than the threshold).
func TestOneBadRunIsNotAnAlert(t *testing.T) {
	runs := append(steady(5), withProtobuf(146000*0.6), withProtobuf(146000))
	_, verdicts := Replay(runs, DefaultOptions)
	if verdicts[5] != Suspect || verdicts[6] == Regressed || verdicts[6] == Suspect {
		t.Fatalf("verdicts %v", verdicts)
	}
}

// TestNoiseIsNotFlagged: changes beyond the threshold inside the spread of noisy
// runs are not alerts; nor are improvements, which are Improved only over a
// streak (with persistence 1, this run alone).
func TestNoiseIsNotFlagged(t *testing.T) {
	noisy := [][]report.Row{{row("json", 100000, 10000, 2)}, {row("json", 85000, 13000, 2.5)}, {row("json", 110000, 9000, 1.8)},
		{row("json", 95000, 11000, 2.1)}}
	for name, cand := range map[string]report.Row{
		"throughput -12 % inside the spread": row("json", 88000, 10000, 2),
		"p99 +25 % inside the spread":        row("json", 100000, 12500, 2),
		"better everywhere":                  row("json", 130000, 5000, 1),
	} {
		for _, o := range []Options{DefaultOptions, {Persistence: 1}} {
			want := Within
			if name == "better everywhere" && o.Persistence == 1 {
				want = Improved
			}
			if res := Compare(noisy, []report.Row{cand}, o); res.Verdict != want {
				t.Errorf("%s, persistence %d: %s %v, want %s", name, o.Persistence, res.Verdict, res.Flagged(res.Verdict), want)
			}
		}
	}
}

// TestCollectingBaseline: fewer baseline runs than MinRuns judge nothing, and say
// so; the change is still shown. (Of 2 earlier runs, the last is the streak's with
// persistence 2: 1 is the baseline.)
func TestCollectingBaseline(t *testing.T) {
	res := Compare(steady(2), withProtobuf(100000), DefaultOptions)
	if res.Verdict != NotJudged || len(res.Trials) != 2 {
		t.Fatalf("%+v", res)
	}
	m := res.Trials[1].Metrics[0]
	if m.Verdict != NotJudged || math.IsNaN(float64(m.ChangePercent)) || !math.IsNaN(float64(m.P)) || m.BaselineRuns != 1 {
		t.Fatalf("metric %+v", m)
	}
	// NaN is not available, not 0, in JSON too.
	b, err := m.P.MarshalJSON()
	if err != nil || string(b) != "null" {
		t.Fatalf("NaN as JSON: %s %v", b, err)
	}
}

// TestEnvironmentShift: every trial 30 % slower on two runs in a row (the control
// with them) is EnvironmentShifted, not regressed; the control alone slower is a
// regression of the control.
func TestEnvironmentShift(t *testing.T) {
	slow := func(json, protobuf float64) []report.Row {
		return []report.Row{row("json", 40000*json, 20000, 4.7), row("protobuf", 146000*protobuf, 8000, 1.5)}
	}
	runs := append(steady(5), slow(0.7, 0.7), slow(0.7, 0.71))
	res, _ := Replay(runs, DefaultOptions)
	if res.Verdict != EnvironmentShifted || res.Control != "t-json" || res.Trials[0].Metrics[0].Verdict != EnvironmentShifted ||
		res.Trials[1].Metrics[0].Verdict != EnvironmentShifted {
		t.Fatalf("everything slower: %+v", res)
	}
	runs = append(steady(5), slow(0.7, 1), slow(0.7, 1))
	if res, _ := Replay(runs, DefaultOptions); !res.Regressed() || res.Trials[0].Metrics[0].Verdict != Regressed || res.Trials[1].Verdict != Within {
		t.Fatalf("the control alone slower: %+v", res)
	}
}

// TestMatching: trials match by codec, schema, size and settings; a trial no
// earlier run has is listed, not compared, and so is the earlier trial it lacks.
func TestMatching(t *testing.T) {
	base := [][]report.Row{{row("json", 1000, 10, 1)}}
	other := row("json", 500, 10, 1)
	other.Settings = "batch acks=all"
	res := Compare(base, []report.Row{other}, DefaultOptions)
	if res.Regressed() || len(res.Trials) != 0 || len(res.Unmatched) != 1 || len(res.Missing) != 1 {
		t.Fatalf("result %+v", res)
	}
}

// TestFaultScenariosDoNotMatchTheBaseline: a trial under a fault is compared with
// the same scenario's trials only, never with the healthy baseline of the same
// settings (a slower faulted run is not a regression of the healthy one).
func TestFaultScenariosDoNotMatchTheBaseline(t *testing.T) {
	healthy := report.Row{Name: "t000-protobuf-256b", Codec: "protobuf", Schema: "simple", SizeBytes: 256, Settings: "batch", RecordsPerSecond: 1000, P99: 100, SerMicros: 1}
	faulted := healthy
	faulted.Name, faulted.Fault, faulted.RecordsPerSecond, faulted.P99 = "t001-protobuf-256b-loss-5", "loss-5", 100, 100000
	four := [][]report.Row{{healthy, faulted}, {healthy, faulted}, {healthy, faulted}, {healthy, faulted}}
	if res := Compare(four, []report.Row{healthy, faulted}, DefaultOptions); res.Verdict != Within || len(res.Trials) != 2 || len(res.Unmatched) != 0 {
		t.Fatalf("same trials, same numbers: %+v", res)
	}
	res := Compare([][]report.Row{{healthy}, {healthy}, {healthy}}, []report.Row{faulted}, DefaultOptions)
	if res.Regressed() || len(res.Unmatched) != 1 || len(res.Missing) != 1 {
		t.Fatalf("a faulted trial matched the healthy baseline: %+v", res)
	}
}

// reps are repetitions of one trial: rows named <config>-r<k>.
func reps(codec string, rps ...float64) []report.Row {
	var out []report.Row
	for k, v := range rps {
		r := row(codec, v, 10000, 2)
		r.Config, r.Repetition = r.Name, k+1
		r.Name += fmt.Sprintf("-r%d", k+1)
		out = append(out, r)
	}
	return out
}

// TestRunIsTheMedianOfItsRepetitions: a run's value is its repetitions' median,
// so one wild repetition does not move it; the repetitions are counted.
func TestRunIsTheMedianOfItsRepetitions(t *testing.T) {
	base := [][]report.Row{reps("json", 100, 101, 99), reps("json", 98, 100, 102), reps("json", 101, 99, 100), reps("json", 99, 100, 97)}
	res := Compare(base, reps("json", 100, 20, 101), DefaultOptions)
	m := res.Trials[0].Metrics[0]
	if res.Verdict != Within || m.Candidate != 100 || res.Trials[0].Repetitions != 3 || res.Trials[0].Name != "t-json" {
		t.Fatalf("%+v", res)
	}
}

// TestColdFirstRunLeftOut: a first run in which every trial was half as fast (a
// cold broker) is left out of the baseline and named; without it the spread is
// the steady runs', so a planted 20 % drop two runs later still regresses. A
// steady baseline leaves nothing out, and neither does one trial's own drop, nor
// a run of two trials (too few to tell "together").
func TestColdFirstRunLeftOut(t *testing.T) {
	three := func(f float64) []report.Row {
		return []report.Row{row("json", 40000*f, 20000, 4.7), row("protobuf", 146000*f, 8000, 1.5), row("avro", 90000*f, 9000, 3)}
	}
	runs := [][]report.Row{three(0.5), three(1), three(0.98), three(1.02), three(1.01), three(0.99)}
	if res := Compare(runs, three(1), DefaultOptions); len(res.Excluded) != 1 || res.Excluded[0] != 0 || res.Verdict != Within {
		t.Fatalf("three trials, a cold first run: %+v", res)
	}
	oneDrop := three(1)
	oneDrop[1].RecordsPerSecond *= 0.7
	runs = [][]report.Row{oneDrop, three(1), three(0.98), three(1.02), three(1.01), three(0.99)}
	if res := Compare(runs, three(1), DefaultOptions); len(res.Excluded) != 0 {
		t.Fatalf("one trial's drop taken for a cold run: %v", res.Excluded)
	}
	cold := []report.Row{row("json", 20000, 40000, 9), row("protobuf", 73000, 16000, 3)}
	if res := Compare(append([][]report.Row{cold}, steady(5)...), withProtobuf(146000), DefaultOptions); len(res.Excluded) != 0 {
		t.Fatalf("two trials: excluded %v", res.Excluded)
	}
	if res := Compare(steady(6), withProtobuf(146000), DefaultOptions); len(res.Excluded) != 0 {
		t.Fatalf("steady runs: excluded %v", res.Excluded)
	}
	// A drop of one trial after a cold first run still regresses.
	drop := three(1)
	drop[1].RecordsPerSecond *= 0.8
	runs = [][]report.Row{three(0.5), three(1), three(0.98), three(1.02), three(1.01), drop}
	if res := Compare(runs, drop, DefaultOptions); !res.Regressed() || len(res.Excluded) != 1 {
		t.Fatalf("a drop after a cold first run: %+v", res)
	}
}

// TestOneEarlierRun: with persistence 1, a run after a single earlier run has its
// change from it (not judged: one run shows no spread), as the e2e schedule test
// reads it.
func TestOneEarlierRun(t *testing.T) {
	o := DefaultOptions
	o.Persistence, o.MinRuns, o.BaselineRuns = 1, 2, 2
	res := Compare(steady(1), withProtobuf(120000), o)
	m := res.Trials[1].Metrics[0]
	if res.Verdict != NotJudged || m.BaselineRuns != 1 || math.IsNaN(float64(m.ChangePercent)) || math.IsNaN(float64(m.Candidate)) {
		t.Fatalf("%+v", res)
	}
}

// TestTestedMatchesVerdict: across random histories (noise 2–15 %, drops of 0–40 %
// planted on a random trial for one or two runs, persistence 1 and 2), every
// judged metric carries its tests, and each test's bound is beyond zero in the
// direction it tested (worse; better for the improvement's) exactly when its
// Holm-adjusted p-value is below α; a Suspect, Regressed or Improved verdict
// rests on a test whose bound is beyond zero, and Said prints that test.
func TestTestedMatchesVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	flagged := 0
	for round := range 400 {
		noise := 0.02 + 0.13*rng.Float64()
		drop := 0.4 * rng.Float64()
		victim := rng.IntN(3)
		n := 6 + rng.IntN(3)
		var runs [][]report.Row
		for i := range n {
			var rows []report.Row
			for k, codec := range []string{"json", "protobuf", "avro"} {
				f := math.Exp(noise * rng.NormFloat64())
				if k == victim && i >= n-1-rng.IntN(2) {
					f *= 1 - drop
				}
				rows = append(rows, row(codec, 40000*float64(k+1)*f, int64(20000/f), 2*math.Exp(noise*rng.NormFloat64())))
			}
			runs = append(runs, rows)
		}
		o := DefaultOptions
		o.Persistence = 1 + round%2
		res := Compare(runs[:n-1], runs[n-1], o)
		for _, tr := range res.Trials {
			for _, m := range tr.Metrics {
				if m.Verdict == NotJudged {
					continue
				}
				if m.Tested == nil {
					t.Fatalf("%s %s: judged without its test", tr.Name, m.Name)
				}
				for _, x := range []*Test{m.Tested, m.Streak, m.Improvement} {
					if x == nil {
						continue
					}
					beyond := x.BoundPercent > 0
					if x.Upper {
						beyond = x.BoundPercent < 0
					}
					if beyond != (x.P < 0.05) || x.Confidence < 0.95 || x.Confidence >= 1 {
						t.Fatalf("%s %s: %s: the bound and the corrected test disagree", tr.Name, m.Name, x)
					}
				}
				var rests *Test
				switch m.Verdict {
				case Suspect:
					rests = m.Tested
				case Regressed:
					rests = m.Streak
				case Improved:
					rests = m.Improvement
				default:
					continue
				}
				flagged++
				if rests == nil || !(rests.P < 0.05) || !strings.Contains(m.Said(), rests.String()) {
					t.Fatalf("%s %s %s rests on %v; said %q", tr.Name, m.Name, m.Verdict, rests, m.Said())
				}
			}
		}
	}
	if flagged < 50 {
		t.Fatalf("only %d verdicts flagged: the simulation does not exercise them", flagged)
	}
}
