package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/stats"
)

// Metric is one figure of a trial that repetitions sum up and comparisons test:
// one table, read by the table, the result's statistics and compare alike.
type Metric struct {
	// Name is the trial result's field (v1alpha1.TrialResult), dotted into its
	// latency blocks.
	Name string
	// Unit of the field: the API's integer unit.
	Unit string
	// Lower says lower is better (latency, time per record).
	Lower bool
	// Total says the repetitions add up (records lost, duplicated or failed: each
	// one counts) instead of being summed up by their median.
	Total bool
	// scale converts the row's value (the table's unit) to Unit.
	scale  float64
	field  func(*Row) *float64
	ifield func(*Row) *int64
}

// Of is the row's value in Unit.
func (m Metric) Of(r Row) float64 {
	if m.ifield != nil {
		return float64(*m.ifield(&r))
	}
	return *m.field(&r) * m.scale
}

// set stores v (in Unit) in the row, in the table's unit.
func (m Metric) set(r *Row, v float64) {
	if m.ifield != nil {
		*m.ifield(r) = int64(math.Round(v))
		return
	}
	*m.field(r) = v / m.scale
}

func fm(name, unit string, lower bool, scale float64, f func(*Row) *float64) Metric {
	return Metric{Name: name, Unit: unit, Lower: lower, scale: scale, field: f}
}

func im(name, unit string, lower, total bool, f func(*Row) *int64) Metric {
	return Metric{Name: name, Unit: unit, Lower: lower, Total: total, ifield: f}
}

// Metrics are the figures repetitions sum up, in the result's order.
var Metrics = []Metric{
	fm("recordsPerSecond", "records/s", false, 1, func(r *Row) *float64 { return &r.RecordsPerSecond }),
	fm("serializedBytesPerSecond", "B/s", false, 1e6, func(r *Row) *float64 { return &r.MBPerSec }),
	fm("serializedBytesPerRecord", "B", true, 1, func(r *Row) *float64 { return &r.SerializedBytes }),
	fm("serializeNanosPerRecord", "ns", true, 1e3, func(r *Row) *float64 { return &r.SerMicros }),
	fm("deserializeNanosPerRecord", "ns", true, 1e3, func(r *Row) *float64 { return &r.DeserMicros }),
	fm("serializeSharePermille", "‰", true, 10, func(r *Row) *float64 { return &r.SerPct }),
	fm("deserializeSharePermille", "‰", true, 10, func(r *Row) *float64 { return &r.DeserPct }),
	fm("endToEndMicros.mean", "µs", true, 1, func(r *Row) *float64 { return &r.E2EMean }),
	im("endToEndMicros.p50", "µs", true, false, func(r *Row) *int64 { return &r.P50 }),
	im("endToEndMicros.p99", "µs", true, false, func(r *Row) *int64 { return &r.P99 }),
	im("endToEndMicros.p999", "µs", true, false, func(r *Row) *int64 { return &r.P999 }),
	im("endToEndMicros.max", "µs", true, false, func(r *Row) *int64 { return &r.Max }),
	fm("ackMicros.mean", "µs", true, 1, func(r *Row) *float64 { return &r.AckMean }),
	im("ackMicros.p50", "µs", true, false, func(r *Row) *int64 { return &r.AckP50 }),
	im("ackMicros.p99", "µs", true, false, func(r *Row) *int64 { return &r.AckP99 }),
	fm("resources.workerCPUNanosPerRecord", "ns", true, 1e3, func(r *Row) *float64 { return &r.WorkerCPUMicros }),
	fm("resources.recordsPerCPUSecond", "records/CPU-s", false, 1, func(r *Row) *float64 { return &r.RecordsPerCPUSecond }),
	fm("resources.peakRSSBytes", "B", true, 1e6, func(r *Row) *float64 { return &r.PeakRSSMB }),
	fm("resources.peakHeapBytes", "B", true, 1e6, func(r *Row) *float64 { return &r.PeakHeapMB }),
	fm("resources.brokerCPUNanosPerRecord", "ns", true, 1e3, func(r *Row) *float64 { return &r.BrokerCPUMicros }),
	im("lostRecords", "records", true, true, func(r *Row) *int64 { return &r.Lost }),
	im("duplicatedRecords", "records", true, true, func(r *Row) *int64 { return &r.Duplicated }),
	im("failedRecords", "records", true, true, func(r *Row) *int64 { return &r.Failed }),
}

// MetricNamed is the metric of that name.
func MetricNamed(name string) (Metric, bool) {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return Metrics[i], true
}

// ConfigOf is the name a row's repetitions share (older results: its name).
func ConfigOf(r Row) string {
	if r.Config != "" {
		return r.Config
	}
	return r.Name
}

// Groups are the rows by the trial they repeat, in plan order (config names
// begin with the plan index), each group's rows in repetition order.
func Groups(rows []Row) [][]Row {
	by := map[string][]Row{}
	for _, r := range rows {
		by[ConfigOf(r)] = append(by[ConfigOf(r)], r)
	}
	out := make([][]Row, 0, len(by))
	for _, k := range slices.Sorted(maps.Keys(by)) {
		g := by[k]
		slices.SortStableFunc(g, func(a, b Row) int { return a.Repetition - b.Repetition })
		out = append(out, g)
	}
	return out
}

// Values are a metric's values over rows, in Unit.
func Values(m Metric, rows []Row) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = m.Of(r)
	}
	return out
}

// Aggregate sums up each trial's repetitions in one row named by the trial: every
// metric its median (counts of lost, duplicated and failed records their total),
// with Estimates saying how sure each is. The rest (phases, rate search, settings)
// is the repetition of median throughput's. Rows without repetitions come back
// as they are, in plan order.
func Aggregate(rows []Row) []Row {
	groups := Groups(rows)
	out := make([]Row, 0, len(groups))
	for _, g := range groups {
		if len(g) == 1 {
			out = append(out, g[0])
			continue
		}
		rps := Values(Metrics[0], g)
		mid := stats.Median(rps).Median
		pick := 0
		for i, v := range rps {
			if math.Abs(v-mid) < math.Abs(rps[pick]-mid) {
				pick = i
			}
		}
		agg := g[pick]
		agg.Shown = agg.Name
		agg.Name, agg.Repetition, agg.Runs = ConfigOf(agg), 0, len(g)
		agg.Estimates = map[string]stats.Estimate{}
		for _, m := range Metrics {
			vals := Values(m, g)
			e := stats.Median(vals)
			agg.Estimates[m.Name] = stated(e, agg.Stopped)
			if m.Total {
				var sum float64
				for _, v := range vals {
					sum += v
				}
				m.set(&agg, sum)
			} else {
				m.set(&agg, e.Median)
			}
		}
		if m := Merged(g); m != nil {
			agg.Merged = m
		}
		agg.Latency = nil
		agg.Warnings = nil
		for _, r := range g {
			for _, w := range r.Warnings {
				if !slices.Contains(agg.Warnings, w) {
					agg.Warnings = append(agg.Warnings, w)
				}
			}
		}
		out = append(out, agg)
	}
	return out
}

// Statistics are the result's figures of every repeated trial (nil when no trial
// was repeated).
func Statistics(rows []Row) []v1alpha1.TrialStatistics {
	var out []v1alpha1.TrialStatistics
	for _, g := range Groups(rows) {
		if len(g) < 2 {
			continue
		}
		ts := v1alpha1.TrialStatistics{Name: ConfigOf(g[0])}
		for _, r := range g {
			ts.Runs = append(ts.Runs, r.Name)
		}
		for _, m := range Metrics {
			vals := Values(m, g)
			e := stated(stats.Median(vals), g[0].Stopped)
			me := v1alpha1.MetricEstimate{Name: m.Name, Unit: m.Unit, Median: round(e.Median), Mean: round(e.Mean),
				Low: round(e.Low), High: round(e.High), ConfidencePermille: int32(math.Floor(e.Confidence * 1000))}
			for _, v := range vals {
				me.Values = append(me.Values, round(v))
			}
			ts.Metrics = append(ts.Metrics, me)
		}
		ts.Merged = Merged(g)
		if m := g[0].Merged; ts.Merged == nil && m != nil && int(m.Runs) == len(g) {
			ts.Merged = m // read back from a result, and still whole
		}
		out = append(out, ts)
	}
	return out
}

func round(v float64) int64 { return int64(math.Round(v)) }

// Decimal is v as the API's decimal strings write it, with prec decimals; a
// figure that cannot be had (NaN, ±Inf) is "": left out of the object, never 0.
func Decimal(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// Change is one metric of trial b against trial a over their repetitions: the
// relative change and its interval, one estimator (stats.RelativeChange).
type Change = stats.Change

// DifferenceOf is b's change from a in m over their repetitions (uncorrected:
// correct a family of them with Versus's Holm).
func DifferenceOf(m Metric, a, b []Row) Change {
	return stats.RelativeChange(Values(m, a), Values(m, b))
}

// Versus is one trial against the reference trial (spec.compare.baseline) in a
// metric, over their repetitions, as one of a family of tests.
type Versus struct {
	Change
	// Reference says this is the reference trial itself.
	Reference bool
	// P is Holm-adjusted over the family; Significant says it is below stats.Alpha.
	P           float64
	Significant bool
	// NeedsRepetitions is set when the corrected test cannot reach significance
	// with the repetitions given: the fewest each side needs.
	NeedsRepetitions int
}

// VersusReference tests every trial of a run against its reference trial in m
// (the first trial when none is marked), all as one family: keyed by config.
// Tests is the family's size.
func VersusReference(runs []Row, m Metric) (out map[string]Versus, tests int) {
	groups := Groups(runs)
	if len(groups) < 2 {
		return nil, 0
	}
	ref := 0
	for i, g := range groups {
		if g[0].Reference {
			ref = i
			break
		}
	}
	var others []string
	for i, g := range groups {
		if i != ref {
			others = append(others, ConfigOf(g[0]))
		}
	}
	return VersusAmong(runs, m, ConfigOf(groups[ref][0]), others)
}

// VersusAmong tests each of the others (configs) against ref in m over their
// repetitions, as one family (Holm): keyed by config, ref's entry marking it.
// Tests is the family's size.
func VersusAmong(runs []Row, m Metric, ref string, others []string) (out map[string]Versus, tests int) {
	byConfig := map[string][]Row{}
	for _, g := range Groups(runs) {
		byConfig[ConfigOf(g[0])] = g
	}
	out = map[string]Versus{ref: {Reference: true}}
	ps := make([]float64, len(others))
	for i, k := range others {
		out[k] = Versus{Change: DifferenceOf(m, byConfig[ref], byConfig[k])}
		ps[i] = out[k].Change.P
	}
	adj := stats.Holm(ps)
	tests = stats.Tests(ps)
	for i, k := range others {
		v := out[k]
		v.P, v.Significant = adj[i], adj[i] < stats.Alpha
		if stats.MinP(len(byConfig[ref]), len(byConfig[k]))*float64(tests) >= stats.Alpha {
			v.NeedsRepetitions = stats.RepetitionsFor(tests)
		}
		out[k] = v
	}
	return out, tests
}

// String is the table's cell: the change with its interval and confidence where
// the corrected test finds it, ~ with the interval where it does not, what it
// would take where it cannot.
func (v Versus) String() string {
	switch {
	case v.Reference:
		return "baseline"
	case v.NeedsRepetitions > 0:
		return fmt.Sprintf("needs ≥ %d reps", v.NeedsRepetitions)
	case math.IsNaN(v.Percent):
		return "n/a"
	}
	ci := fmt.Sprintf("[%+.1f, %+.1f] %.0f %%", v.LowPercent, v.HighPercent, 100*v.Confidence)
	if !v.Significant {
		return "~ " + ci
	}
	return fmt.Sprintf("%+.1f %% %s", v.Percent, ci)
}
