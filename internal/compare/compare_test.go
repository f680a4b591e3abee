package compare

import (
	"testing"

	"github.com/serdebench/serdebench/internal/report"
)

func row(codec string, rps float64, p99 int64, ser float64) report.Row {
	return report.Row{Name: "t-" + codec, Codec: codec, Schema: "business-record", SizeBytes: 1176, Settings: "batch acks=1",
		RecordsPerSecond: rps, P99: p99, SerMicros: ser}
}

// TestPlantedDropIsFlagged: a 20 % throughput drop against three steady runs is a
// regression of that trial only.
func TestPlantedDropIsFlagged(t *testing.T) {
	base := [][]report.Row{
		{row("json", 40000, 20000, 4.7), row("protobuf", 146000, 8000, 1.5)},
		{row("json", 41000, 21000, 4.6), row("protobuf", 150000, 8200, 1.6)},
		{row("json", 39500, 19500, 4.8), row("protobuf", 148000, 7900, 1.5)},
	}
	cand := []report.Row{row("json", 40500, 20500, 4.7), row("protobuf", 148000*0.8, 8100, 1.5)}
	res := Compare(base, cand, DefaultThresholds)
	if !res.Regressed || len(res.Trials) != 2 || res.Trials[0].Regressed || !res.Trials[1].Regressed {
		t.Fatalf("result %+v", res)
	}
	m := res.Trials[1].Metrics[0]
	if m.Name != "recordsPerSecond" || !m.Regressed || m.Baseline != 148000 || m.ChangePercent > -19.9 || m.ChangePercent < -20.1 {
		t.Fatalf("throughput metric %+v", m)
	}
	if got := res.RegressedTrials(); len(got) != 1 || got[0] != "t-protobuf: recordsPerSecond -20.0%" {
		t.Fatalf("regressed trials %v", got)
	}
}

// TestNoiseIsNotFlagged: a change beyond the threshold that stays inside the spread
// of noisy baseline runs is not an alert; nor is an improvement.
func TestNoiseIsNotFlagged(t *testing.T) {
	base := [][]report.Row{{row("json", 100000, 10000, 2)}, {row("json", 85000, 13000, 2.5)}, {row("json", 110000, 9000, 1.8)}}
	for name, cand := range map[string]report.Row{
		"throughput -12 % inside the spread": row("json", 88000, 10000, 2),
		"p99 +25 % inside the spread":        row("json", 100000, 12500, 2),
		"better everywhere":                  row("json", 130000, 5000, 1),
	} {
		if res := Compare(base, []report.Row{cand}, DefaultThresholds); res.Regressed {
			t.Errorf("%s: flagged %v", name, res.RegressedTrials())
		}
	}
	// Beyond both: p99 +40 %, above the worst baseline run.
	if res := Compare(base, []report.Row{row("json", 100000, 14000, 2)}, DefaultThresholds); !res.Regressed {
		t.Error("p99 +40 % above every baseline run not flagged")
	}
}

// TestMatching: trials match by codec, schema, size and settings; a trial no
// baseline has is listed, not compared, and so is the baseline trial it lacks.
func TestMatching(t *testing.T) {
	base := [][]report.Row{{row("json", 1000, 10, 1)}}
	other := row("json", 500, 10, 1)
	other.Settings = "batch acks=all"
	res := Compare(base, []report.Row{other}, DefaultThresholds)
	if res.Regressed || len(res.Trials) != 0 || len(res.Unmatched) != 1 || len(res.Missing) != 1 {
		t.Fatalf("result %+v", res)
	}
}

// TestFaultScenariosDoNotMatchTheBaseline: a trial under a fault is compared with
// the same scenario's trials only, never with the healthy baseline of the same
// settings (a slower faulted run is not a regression of the healthy one).
func TestFaultScenariosDoNotMatchTheBaseline(t *testing.T) {
	healthy := report.Row{Name: "t000-protobuf-256b", Codec: "protobuf", Schema: "simple", SizeBytes: 256, Settings: "batch", RecordsPerSecond: 1000, P99: 100}
	faulted := healthy
	faulted.Name, faulted.Fault, faulted.RecordsPerSecond, faulted.P99 = "t001-protobuf-256b-loss-5", "loss-5", 100, 100000
	res := Compare([][]report.Row{{healthy, faulted}}, []report.Row{healthy, faulted}, Thresholds{ThroughputDropPercent: 10, P99RisePercent: 10})
	if res.Regressed || len(res.Trials) != 2 || len(res.Unmatched) != 0 {
		t.Fatalf("same trials, same numbers: %+v", res)
	}
	res = Compare([][]report.Row{{healthy}}, []report.Row{faulted}, Thresholds{ThroughputDropPercent: 10, P99RisePercent: 10})
	if res.Regressed || len(res.Unmatched) != 1 || len(res.Missing) != 1 {
		t.Fatalf("a faulted trial matched the healthy baseline: %+v", res)
	}
}

// reps are repetitions of one trial: rows named <config>-r<k>.
func reps(codec string, rps ...float64) []report.Row {
	var out []report.Row
	for k, v := range rps {
		r := row(codec, v, 10000, 2)
		r.Config, r.Repetition = r.Name, k+1
		r.Name += "-r" + string(rune('1'+k))
		out = append(out, r)
	}
	return out
}

// TestRepetitionsNeedIntervalsApart: with repetitions, a regression needs the
// candidate's interval beyond the baseline's. Six noisy repetitions whose median
// dropped 12 % but whose intervals overlap are not an alert; a 20 % drop whose
// intervals part is, and the test calls it significant with an interval of the
// change that covers the drop.
func TestRepetitionsNeedIntervalsApart(t *testing.T) {
	base := [][]report.Row{reps("json", 100, 96, 104, 90, 110, 99)}
	noisy := reps("json", 88, 105, 80, 95, 84, 90)
	res := Compare(base, noisy, DefaultThresholds)
	m := res.Trials[0].Metrics[0]
	if res.Regressed || m.ChangePercent > -10 || res.Trials[0].Repetitions != 6 || res.Trials[0].BaselineValues != 6 || res.Trials[0].Name != "t-json" {
		t.Fatalf("overlapping intervals flagged: %+v", res)
	}
	slow := reps("json", 80, 79, 82, 78, 81, 80)
	res = Compare(base, slow, DefaultThresholds)
	m = res.Trials[0].Metrics[0]
	if !res.Regressed || !m.Significant || m.ChangeLowPercent > -20 || m.ChangeHighPercent < -20 || m.CandidateHigh >= m.BaselineLow {
		t.Fatalf("20 %% drop: %+v", m)
	}
}
