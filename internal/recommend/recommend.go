// Package recommend answers the question users bring: which format and settings
// should we use? Given an objective (spec.objective: a metric to make best under
// constraints; by default the Pareto front over records/s, end-to-end p99, bytes
// per record and worker CPU per record), it names the best trial, the trials
// statistically indistinguishable from it after Holm's correction, and how much
// worse each other trial is, with its interval and confidence. serdebench
// recommend, the SerializationResult's recommendation block and the report's
// Pareto chart all read it.
package recommend

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
)

// Front are the metrics of the default Pareto front: throughput, tail latency,
// bytes on the wire and CPU per record.
var Front = []string{"recordsPerSecond", "endToEndMicros.p99", "serializedBytesPerRecord", "resources.workerCPUNanosPerRecord"}

// Other is a trial against the recommended one in the objective's metric.
type Other struct {
	Name string
	// Change is its change from the best (stats.RelativeChange over their
	// repetitions); P is Holm-adjusted over every comparison with the best.
	Change stats.Change
	P      float64
	// Tie says the corrected test cannot tell it from the best (false as well when
	// Result.NeedsRepetitions says no test could).
	Tie bool
}

// Result is a recommendation.
type Result struct {
	// Objective says what was optimized, in words.
	Objective string
	// Metric is the metric the best is chosen and compared by, Unit its unit.
	Metric, Unit string
	// Best is the recommended trial; Value its median in Metric.
	Best  string
	Value float64
	// Front is the Pareto front (the default objective), best first.
	Front []string
	// Ties are the trials the corrected test cannot tell from Best.
	Ties []string
	// Others are the rest of the feasible trials, against Best.
	Others []Other
	// Infeasible are the trials a constraint rules out, with the reason.
	Infeasible []string
	// Repetitions is the fewest repetitions of a compared trial; NeedsRepetitions
	// is set when the corrected test cannot tell any trial from the best with them.
	Repetitions, NeedsRepetitions int
	// Tests is how many comparisons the Holm correction covered.
	Tests int
}

// Check says whether an objective names metrics that exist.
func Check(o *v1alpha1.Objective) error {
	if o == nil {
		return nil
	}
	known := func(name string) error {
		if _, ok := report.MetricNamed(name); !ok {
			var names []string
			for _, m := range report.Metrics {
				if !m.Total {
					names = append(names, m.Name)
				}
			}
			return fmt.Errorf("unknown metric %q (known: %s)", name, strings.Join(names, ", "))
		}
		return nil
	}
	if o.Optimize != "" {
		if err := known(o.Optimize); err != nil {
			return fmt.Errorf("optimize: %w", err)
		}
	}
	for i, c := range o.Constraints {
		if err := known(c.Metric); err != nil {
			return fmt.Errorf("constraints[%d]: %w", i, err)
		}
	}
	return nil
}

// Recommend chooses from a run's rows (every repetition) by o (nil: the default).
func Recommend(runs []report.Row, o *v1alpha1.Objective) (Result, error) {
	if err := Check(o); err != nil {
		return Result{}, fmt.Errorf("spec.objective: %w", err)
	}
	groups := report.Groups(runs)
	if len(groups) == 0 {
		return Result{}, fmt.Errorf("no trials to recommend from")
	}
	rows := report.Aggregate(runs)
	byName := map[string][]report.Row{}
	for _, g := range groups {
		byName[report.ConfigOf(g[0])] = g
	}
	var out Result
	var feasible []report.Row
	for _, r := range rows {
		if why := violates(r, o); why != "" {
			out.Infeasible = append(out.Infeasible, r.Name+": "+why)
			continue
		}
		feasible = append(feasible, r)
	}
	if len(feasible) == 0 {
		return out, fmt.Errorf("no trial meets the constraints: %s", strings.Join(out.Infeasible, "; "))
	}
	var m report.Metric
	if o != nil && o.Optimize != "" {
		m, _ = report.MetricNamed(o.Optimize)
		out.Objective = fmt.Sprintf("%s %s", direction(m), m.Name)
		slices.SortStableFunc(feasible, func(a, b report.Row) int { return compare(m, a, b) })
	} else {
		m = report.Metrics[0]
		front := pareto(feasible)
		out.Objective = "the Pareto front over " + strings.Join(available(feasible), ", ") + "; of it the highest " + m.Name
		slices.SortStableFunc(front, func(a, b report.Row) int { return compare(m, a, b) })
		for _, r := range front {
			out.Front = append(out.Front, r.Name)
		}
		best := front[0]
		feasible = append([]report.Row{best}, slices.DeleteFunc(feasible, func(r report.Row) bool { return r.Name == best.Name })...)
	}
	if o != nil {
		for _, c := range o.Constraints {
			bound, word := c.AtLeast, "≥"
			if c.AtMost != nil {
				bound, word = c.AtMost, "≤"
			}
			cm, _ := report.MetricNamed(c.Metric)
			out.Objective += fmt.Sprintf(", %s %s %d %s", c.Metric, word, *bound, cm.Unit)
		}
	}
	best := feasible[0]
	out.Metric, out.Unit, out.Best, out.Value = m.Name, m.Unit, best.Name, m.Of(best)
	out.Repetitions = len(byName[best.Name])
	var others []string
	for _, r := range feasible[1:] {
		others = append(others, r.Name)
		out.Repetitions = min(out.Repetitions, len(byName[r.Name]))
	}
	// The same family of tests as the table's against its baseline trial.
	vs, tests := report.VersusAmong(runs, m, best.Name, others)
	out.Tests = tests
	if out.Tests > 0 && stats.MinP(out.Repetitions, out.Repetitions)*float64(out.Tests) >= stats.Alpha {
		out.NeedsRepetitions = stats.RepetitionsFor(out.Tests)
	}
	for _, name := range others {
		v := vs[name]
		// Undecided with too few repetitions: neither a tie nor worse.
		x := Other{Name: name, Change: v.Change, P: v.P, Tie: out.NeedsRepetitions == 0 && !v.Significant}
		out.Others = append(out.Others, x)
		if x.Tie {
			out.Ties = append(out.Ties, x.Name)
		}
	}
	return out, nil
}

func direction(m report.Metric) string {
	if m.Lower {
		return "minimize"
	}
	return "maximize"
}

// compare orders rows best first in m.
func compare(m report.Metric, a, b report.Row) int {
	x, y := m.Of(a), m.Of(b)
	if !m.Lower {
		x, y = -x, -y
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// violates says which constraint a trial's median breaks, or that it lacks the
// objective's metric ("" for none): a metric not measured reads 0 and must not
// pass for the best or within bounds.
func violates(r report.Row, o *v1alpha1.Objective) string {
	if o == nil {
		return ""
	}
	// Counts (lost, duplicated, failed records) are measured at 0; other metrics
	// read 0 only when nothing measured them.
	measured := func(m report.Metric, v float64) bool { return m.Total || v > 0 }
	if o.Optimize != "" {
		if m, _ := report.MetricNamed(o.Optimize); !measured(m, m.Of(r)) {
			return o.Optimize + " not measured"
		}
	}
	for _, c := range o.Constraints {
		m, _ := report.MetricNamed(c.Metric)
		v := m.Of(r)
		if !measured(m, v) {
			return c.Metric + " not measured"
		}
		if c.AtMost != nil && v > float64(*c.AtMost) {
			return fmt.Sprintf("%s %.0f > %d %s", c.Metric, v, *c.AtMost, m.Unit)
		}
		if c.AtLeast != nil && v < float64(*c.AtLeast) {
			return fmt.Sprintf("%s %.0f < %d %s", c.Metric, v, *c.AtLeast, m.Unit)
		}
	}
	return ""
}

// available are the front's metrics every trial has (CPU is not measured
// everywhere: a metric missing from any trial is left out, not read as 0).
func available(rows []report.Row) []string {
	var out []string
	for _, name := range Front {
		m, _ := report.MetricNamed(name)
		if !slices.ContainsFunc(rows, func(r report.Row) bool { v := m.Of(r); return v <= 0 || math.IsNaN(v) }) {
			out = append(out, name)
		}
	}
	return out
}

// pareto are the rows no other row is at least as good as in every available
// front metric and better in one, in their order.
func pareto(rows []report.Row) []report.Row {
	var ms []report.Metric
	for _, name := range available(rows) {
		m, _ := report.MetricNamed(name)
		ms = append(ms, m)
	}
	dominates := func(a, b report.Row) bool {
		better := false
		for _, m := range ms {
			switch c := compare(m, a, b); {
			case c > 0:
				return false
			case c < 0:
				better = true
			}
		}
		return better
	}
	var out []report.Row
	for _, r := range rows {
		if !slices.ContainsFunc(rows, func(o report.Row) bool { return dominates(o, r) }) {
			out = append(out, r)
		}
	}
	return out
}

// Summary is the recommendation in one line: the best, its ties and every other
// trial's change with its interval and confidence.
func (r Result) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s %s %s)", r.Best, r.Metric, formatValue(r.Value), r.Unit)
	switch {
	case r.NeedsRepetitions > 0:
		fmt.Fprintf(&b, "; with %d repetition(s) no trial can be told from it after correction over %d tests: needs ≥ %d", r.Repetitions, r.Tests, r.NeedsRepetitions)
	case len(r.Ties) > 0:
		fmt.Fprintf(&b, "; ties: %s", strings.Join(r.Ties, ", "))
	}
	shown := 0
	for _, o := range r.nearest() {
		if o.Tie || math.IsNaN(o.Change.Percent) {
			continue
		}
		if shown == SummaryOthers {
			rest := 0
			for _, x := range r.Others {
				if !x.Tie && !math.IsNaN(x.Change.Percent) {
					rest++
				}
			}
			fmt.Fprintf(&b, "; %d more, further behind", rest-shown)
			break
		}
		c := o.Change
		fmt.Fprintf(&b, "; %s %+.0f %%", o.Name, c.Percent)
		if !math.IsNaN(c.LowPercent) && c.Confidence > 0 {
			fmt.Fprintf(&b, " [%+.0f, %+.0f] %.0f %%", c.LowPercent, c.HighPercent, 100*c.Confidence)
		}
		shown++
	}
	return b.String()
}

// SummaryOthers and BlockOthers bound how many other trials the one-line summary
// and the result's block list (the nearest to the best first): a result at the
// 256-trial cap must stay under its size target; serdebench recommend lists all.
const (
	SummaryOthers = 8
	BlockOthers   = 24
)

// nearest are the other trials, the ties and then the nearest to the best first.
func (r Result) nearest() []Other {
	out := slices.Clone(r.Others)
	slices.SortStableFunc(out, func(a, b Other) int {
		if a.Tie != b.Tie {
			if a.Tie {
				return -1
			}
			return 1
		}
		x, y := math.Abs(a.Change.Percent), math.Abs(b.Change.Percent)
		switch {
		case math.IsNaN(x) != math.IsNaN(y): // not available: last
			if math.IsNaN(x) {
				return 1
			}
			return -1
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return out
}

func formatValue(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// Block is the recommendation as a SerializationResult records it; err (no
// recommendation) becomes its message.
func Block(r Result, err error) *v1alpha1.Recommendation {
	if err != nil {
		return &v1alpha1.Recommendation{Message: err.Error(), Summary: "no recommendation: " + err.Error()}
	}
	dec := func(v float64) string { return report.Decimal(v, 2) }
	out := &v1alpha1.Recommendation{Objective: r.Objective, Metric: r.Metric, Unit: r.Unit, Best: r.Best, Value: dec(r.Value),
		Front: r.Front, Ties: r.Ties, Infeasible: r.Infeasible, NeedsRepetitions: int32(r.NeedsRepetitions), Summary: r.Summary()}
	others := r.nearest()
	if len(others) > BlockOthers {
		out.OthersOmitted = int32(len(others) - BlockOthers)
		others = others[:BlockOthers]
	}
	for _, o := range others {
		a := v1alpha1.RecommendedAlternative{Name: o.Name, ChangePercent: dec(o.Change.Percent), Tie: o.Tie}
		if o.Change.Confidence > 0 {
			a.ChangeLowPercent, a.ChangeHighPercent = dec(o.Change.LowPercent), dec(o.Change.HighPercent)
			a.ConfidencePermille = int32(math.Floor(1000 * o.Change.Confidence))
			a.PValue = report.Decimal(o.P, 4)
		}
		out.Others = append(out.Others, a)
	}
	return out
}
