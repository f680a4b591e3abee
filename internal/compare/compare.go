// Package compare matches the trials of a candidate run with those of baseline runs
// and flags regressions: a metric worse than the baseline by more than its threshold
// and outside the spread of the baseline runs, so that one noisy run is not an alert
// (serdebench compare, and the SerializationSchedule's comparison).
package compare

import (
	"fmt"
	"slices"
	"sort"

	"github.com/serdebench/serdebench/internal/report"
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
	// Baseline is the median of the baseline runs, Min and Max their spread.
	Baseline float64 `json:"baseline"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	// Candidate is the compared run's value; ChangePercent its change from Baseline.
	Candidate     float64 `json:"candidate"`
	ChangePercent float64 `json:"changePercent"`
	// Regressed says the change is worse than the threshold and outside the spread.
	Regressed bool `json:"regressed"`
}

// Trial is one trial of the candidate against the same trial of the baseline runs.
type Trial struct {
	// Key is what matches trials across runs: codec, schema, size and settings.
	Key       string   `json:"key"`
	Name      string   `json:"name"`
	Baselines int      `json:"baselineRuns"`
	Metrics   []Metric `json:"metrics"`
	Regressed bool     `json:"regressed"`
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
// flags regressions.
func Compare(baselines [][]report.Row, candidate []report.Row, th Thresholds) Result {
	byKey := map[string][]report.Row{}
	var keys []string
	for _, run := range baselines {
		for _, r := range run {
			if byKey[Key(r)] == nil {
				keys = append(keys, Key(r))
			}
			byKey[Key(r)] = append(byKey[Key(r)], r)
		}
	}
	inCandidate := map[string]bool{}
	for _, c := range candidate {
		inCandidate[Key(c)] = true
	}
	var out Result
	for _, k := range keys {
		if !inCandidate[k] {
			out.Missing = append(out.Missing, byKey[k][0].Name)
		}
	}
	for _, c := range candidate {
		base := byKey[Key(c)]
		if len(base) == 0 {
			out.Unmatched = append(out.Unmatched, c.Name)
			continue
		}
		t := Trial{Key: Key(c), Name: c.Name, Baselines: len(base)}
		for _, m := range metrics {
			vals := make([]float64, len(base))
			for i, b := range base {
				vals[i] = m.value(b)
			}
			mt := judge(m, vals, m.value(c), m.threshold(th))
			t.Metrics = append(t.Metrics, mt)
			t.Regressed = t.Regressed || mt.Regressed
		}
		out.Trials = append(out.Trials, t)
		out.Regressed = out.Regressed || t.Regressed
	}
	return out
}

// judge compares a candidate value with the baseline runs' values: the median is the
// baseline; a regression must exceed the threshold from it and lie beyond the
// baseline runs' worst value.
func judge(m metric, vals []float64, candidate, thresholdPercent float64) Metric {
	sort.Float64s(vals)
	out := Metric{Name: m.name, Unit: m.unit, Baseline: median(vals), Min: vals[0], Max: vals[len(vals)-1], Candidate: candidate}
	if out.Baseline != 0 {
		out.ChangePercent = 100 * (candidate - out.Baseline) / out.Baseline
	}
	if m.higherIsBetter {
		out.Regressed = out.ChangePercent < -thresholdPercent && candidate < out.Min
	} else {
		out.Regressed = out.ChangePercent > thresholdPercent && candidate > out.Max
	}
	return out
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
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
