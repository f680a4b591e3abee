package compare

import (
	"fmt"

	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
)

// Key is a trial's identity across runs: codec, schema, size, effective settings
// (which include the client, payload compression and rate) and fault scenario.
func Key(r report.Row) string {
	return fmt.Sprintf("%s|%s|%d|%s|%s", r.Codec, r.Schema, r.SizeBytes, r.Settings, r.Fault)
}

// metric reads one metric of a row; higherIsBetter says which way is a regression.
type metric struct {
	name, unit     string
	value          func(report.Row) float64
	higherIsBetter bool
	threshold      func(Thresholds) float64
}

var metrics = []metric{
	{"recordsPerSecond", "records/s", func(r report.Row) float64 { return r.RecordsPerSecond }, true, func(t Thresholds) float64 { return t.ThroughputDropPercent }},
	{"endToEndP99", "µs", func(r report.Row) float64 { return float64(r.P99) }, false, func(t Thresholds) float64 { return t.P99RisePercent }},
	{"serialize", "µs/record", func(r report.Row) float64 { return r.SerMicros }, false, func(t Thresholds) float64 { return t.SerializeRisePercent }},
}

// Run is one run as Compare reads it: each trial's value of each metric, the
// median over its repetitions.
type Run struct {
	values runValues
	// order is the trials' keys in plan order; names their names; reps how many
	// repetitions each value is the median of.
	order []string
	names map[string]string
	reps  map[string]int
	// probe is the run's machine probe, by part (probeParts; NaN: not measured).
	probe []float64
}

// runValues are one run's values: trial key → metric → median over repetitions.
type runValues map[string][]float64

// Summarize reads a run's rows (every repetition of every trial).
func Summarize(rows []report.Row) Run {
	out := Run{values: runValues{}, names: map[string]string{}, reps: map[string]int{}, probe: probeOf(rows)}
	for _, g := range report.Groups(rows) {
		k := Key(g[0])
		if _, dup := out.values[k]; dup {
			continue // two plan entries with one identity: the first counts
		}
		out.order = append(out.order, k)
		out.names[k], out.reps[k] = report.ConfigOf(g[0]), len(g)
		vs := make([]float64, len(metrics))
		for i, m := range metrics {
			xs := make([]float64, len(g))
			for j, r := range g {
				xs[j] = m.value(r)
			}
			vs[i] = stats.Median(xs).Median
		}
		out.values[k] = vs
	}
	return out
}

// Compare judges candidate against the runs before it (oldest first); see Judge.
func Compare(history [][]report.Row, candidate []report.Row, o Options) Result {
	o = o.withDefaults()
	from := max(0, len(history)-o.Persistence+1-o.BaselineRuns) // all Judge reads
	runs := make([]Run, 0, len(history)-from)
	for _, rows := range history[from:] {
		runs = append(runs, Summarize(rows))
	}
	res := Judge(runs, Summarize(candidate), o)
	for i := range res.Excluded {
		res.Excluded[i] += from // indices into history
	}
	return res
}

// Replay judges every run of a history (oldest first) against the runs before it
// and returns the last run's result and the verdict of every run (NotJudged until
// MinRuns runs came before it).
func Replay(runs [][]report.Row, o Options) (Result, []Verdict) {
	var last Result
	verdicts := make([]Verdict, len(runs))
	for i := range runs {
		last = Compare(runs[:i], runs[i], o)
		verdicts[i] = last.Verdict
	}
	return last, verdicts
}
