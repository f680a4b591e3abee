// Package compare matches the trials of a candidate run with those of baseline runs
// and flags regressions: a metric worse than the baseline by more than its threshold
// (the smallest change worth an alert) whose interval lies outside the baseline's,
// so that noise is not an alert (serdebench compare, and the SerializationSchedule's
// comparison). Repetitions of a trial, in the candidate or the baselines, are its
// values; every figure is their median.
package compare

import (
	"fmt"
	"slices"

	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
)

// Thresholds are the relative changes that count as a regression, in percent.
type Thresholds struct {
	// ThroughputDropPercent: records per second lower by more than this.
	ThroughputDropPercent float64
	// P99RisePercent: end-to-end p99 higher by more than this.
	P99RisePercent float64
	// SerializeRisePercent: serialize µs per record higher by more than this.
	SerializeRisePercent float64
}

// DefaultThresholds are the defaults: throughput −10 %, p99 +20 %, and
// serialize time +20 %.
var DefaultThresholds = Thresholds{ThroughputDropPercent: 10, P99RisePercent: 20, SerializeRisePercent: 20}

// Metric is one metric of one trial against its baseline.
type Metric struct {
	// Name and Unit say what was compared.
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Baseline is the median of the baseline values (every repetition of every
	// baseline run), Min and Max their spread, Low and High the median's
	// confidence interval (the range up to 7 values).
	Baseline     float64 `json:"baseline"`
	Min          float64 `json:"min"`
	Max          float64 `json:"max"`
	BaselineLow  float64 `json:"baselineLow"`
	BaselineHigh float64 `json:"baselineHigh"`
	// Candidate is the compared run's median over its repetitions, with its
	// interval.
	Candidate     float64 `json:"candidate"`
	CandidateLow  float64 `json:"candidateLow"`
	CandidateHigh float64 `json:"candidateHigh"`
	// ChangePercent is Candidate's change from Baseline; ChangeLowPercent and
	// ChangeHighPercent bound the change (the Hodges-Lehmann shift's interval over
	// Baseline) at ChangeConfidence.
	ChangePercent     float64 `json:"changePercent"`
	ChangeLowPercent  float64 `json:"changeLowPercent"`
	ChangeHighPercent float64 `json:"changeHighPercent"`
	ChangeConfidence  float64 `json:"changeConfidence"`
	// P is the Mann-Whitney U test's p-value; Significant says P < 0.05.
	P           float64 `json:"p"`
	Significant bool    `json:"significant"`
	// Regressed says the change is worse than the threshold and the candidate's
	// interval lies beyond the baseline's, on the worse side.
	Regressed bool `json:"regressed"`
}

// Trial is one trial of the candidate against the same trial of the baseline runs.
type Trial struct {
	// Key is what matches trials across runs: codec, schema, size and settings.
	Key  string `json:"key"`
	Name string `json:"name"`
	// Baselines is how many baseline runs had the trial, BaselineValues how many
	// repetitions they had in all, Repetitions the candidate's.
	Baselines      int      `json:"baselineRuns"`
	BaselineValues int      `json:"baselineValues"`
	Repetitions    int      `json:"repetitions"`
	Metrics        []Metric `json:"metrics"`
	Regressed      bool     `json:"regressed"`
}

// Result is a candidate run against its baseline runs.
type Result struct {
	Trials []Trial `json:"trials"`
	// Unmatched are candidate trials no baseline run has.
	Unmatched []string `json:"unmatched,omitempty"`
	// Missing are baseline trials the candidate lacks.
	Missing   []string `json:"missing,omitempty"`
	Regressed bool     `json:"regressed"`
}

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

// Compare matches each candidate trial with the same trial in the baseline runs and
// flags regressions. A trial's repetitions (in either) are its values.
func Compare(baselines [][]report.Row, candidate []report.Row, th Thresholds) Result {
	byKey := map[string][]report.Row{}
	runs := map[string]int{}
	var keys []string
	for _, run := range baselines {
		seen := map[string]bool{}
		for _, r := range run {
			k := Key(r)
			if byKey[k] == nil {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], r)
			if !seen[k] {
				seen[k] = true
				runs[k]++
			}
		}
	}
	groups := report.Groups(candidate)
	inCandidate := map[string]bool{}
	for _, g := range groups {
		inCandidate[Key(g[0])] = true
	}
	var out Result
	for _, k := range keys {
		if !inCandidate[k] {
			out.Missing = append(out.Missing, report.ConfigOf(byKey[k][0]))
		}
	}
	for _, g := range groups {
		k := Key(g[0])
		base := byKey[k]
		if len(base) == 0 {
			out.Unmatched = append(out.Unmatched, report.ConfigOf(g[0]))
			continue
		}
		t := Trial{Key: k, Name: report.ConfigOf(g[0]), Baselines: runs[k], BaselineValues: len(base), Repetitions: len(g)}
		for _, m := range metrics {
			mt := judge(m, values(m, base), values(m, g), m.threshold(th))
			t.Metrics = append(t.Metrics, mt)
			t.Regressed = t.Regressed || mt.Regressed
		}
		out.Trials = append(out.Trials, t)
		out.Regressed = out.Regressed || t.Regressed
	}
	return out
}

func values(m metric, rows []report.Row) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = m.value(r)
	}
	return out
}

// judge compares the candidate's values with the baseline's: the medians are the
// figures; a regression must exceed the threshold from the baseline's median and
// the candidate's interval must lie beyond the baseline's (with single values and
// up to 7 baseline values: beyond every baseline run), so noise is not an alert.
func judge(m metric, base, cand []float64, thresholdPercent float64) Metric {
	b, c, d := stats.Median(base), stats.Median(cand), stats.Compare(base, cand)
	lo, hi := slices.Min(base), slices.Max(base)
	out := Metric{Name: m.name, Unit: m.unit, Baseline: b.Median, Min: lo, Max: hi, BaselineLow: b.Low, BaselineHigh: b.High,
		Candidate: c.Median, CandidateLow: c.Low, CandidateHigh: c.High, ChangeConfidence: d.Confidence, P: d.P, Significant: d.Significant}
	if b.Median != 0 {
		out.ChangePercent = 100 * (c.Median - b.Median) / b.Median
		out.ChangeLowPercent, out.ChangeHighPercent = 100*d.Low/b.Median, 100*d.High/b.Median
	}
	if m.higherIsBetter {
		out.Regressed = out.ChangePercent < -thresholdPercent && c.High < b.Low
	} else {
		out.Regressed = out.ChangePercent > thresholdPercent && c.Low > b.High
	}
	return out
}

// RegressedTrials names the regressed trials and their metrics, for conditions and
// events.
func (r Result) RegressedTrials() []string {
	var out []string
	for _, t := range r.Trials {
		for _, m := range t.Metrics {
			if m.Regressed {
				out = append(out, fmt.Sprintf("%s: %s %+.1f%%", t.Name, m.Name, m.ChangePercent))
			}
		}
	}
	return slices.Clip(out)
}
