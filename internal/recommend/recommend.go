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
	// repetitions); P is Holm-adjusted over every comparison of the result.
	Change stats.Change
	P      float64
	// Tie says the corrected test cannot tell it from the best (false as well when
	// Choice.NeedsRepetitions says no test could): not shown different, which is
	// not shown equivalent.
	Tie bool
	// Separating is, for a tie, the repetitions per trial that would tell it from
	// the best with probability stats.Power if the change is what this run
	// measured less the best's flattery (Choice.Selection: the gap to a lucky
	// pick looks wider than it is), by stats.Separating at the family's
	// correction with the two trials' own spread; 0 when none up to
	// v1alpha1.MostRepetitions would, or the spread is unknown.
	Separating int
	// spread is the two trials' pooled spread of log values (stats.LogSpread).
	spread float64
}

// Result is a recommendation: one Choice per payload and what else a team does
// not choose, inconclusive ones first.
type Result struct {
	// Objective says what was optimized, in words.
	Objective string
	// Metric is the metric the best is chosen and compared by, Unit its unit.
	Metric, Unit string
	Choices      []Choice
	// Tests is how many comparisons the Holm correction covered: every choice's
	// together, since the result makes them all at once.
	Tests int
}

// Choice is the recommendation among trials that differ only in what a team
// chooses (codec, client, producer settings): the same payload schema and size,
// fault scenario and given settings (trial.Settings.Given). Ranking a 1 KiB
// record's records/s against a 9 KiB one's answers nothing: the size is the
// team's data.
type Choice struct {
	// For names what the trials share, e.g. "business-record 1176 B".
	For string
	// Best is the recommended trial; Value its median in the result's Metric
	// ("" with Message when no trial meets the constraints).
	Best    string
	Value   float64
	Message string
	// Selection is how far to trust Best and Value, picked as the best median of
	// the feasible trials from the repetitions that measure them (stats.Select;
	// Splits 0 with one candidate or fewer than 2 repetitions each).
	Selection stats.Selection
	// Front is the Pareto front (the default objective), best first.
	Front []string
	// Ties are the trials the corrected test cannot tell from Best.
	Ties []string
	// Others are the rest of the feasible trials, against Best.
	Others []Other
	// Infeasible are the trials a constraint rules out, with the reason.
	Infeasible []string
	// Trials counts the choice's trials (configurations); Repetitions is the
	// fewest repetitions of a compared one. NeedsRepetitions is set when the
	// corrected test cannot tell any trial from the best with them: the fewest
	// that can.
	Trials, Repetitions, NeedsRepetitions int
}

// Inconclusive says the choice cannot be made yet: more repetitions are needed
// before any trial can be told from the best.
func (c Choice) Inconclusive() bool { return c.NeedsRepetitions > 0 }

// Marks are the table's marks of each choice's best trial, by config:
// report.Ahead where the choice is inconclusive, report.Best where it is not.
func (r Result) Marks() report.Marks {
	marks := report.Marks{}
	for _, c := range r.Choices {
		switch {
		case c.Best == "":
		case c.Inconclusive():
			marks[c.Best] = report.Ahead
		default:
			marks[c.Best] = report.Best
		}
	}
	return marks
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

// Recommend chooses from a run's rows (every repetition) by o (nil: the
// default), within each group of rows that share report.GivenOf.
func Recommend(runs []report.Row, o *v1alpha1.Objective) (Result, error) {
	if err := Check(o); err != nil {
		return Result{}, fmt.Errorf("spec.objective: %w", err)
	}
	groups := report.Groups(runs)
	if len(groups) == 0 {
		return Result{}, fmt.Errorf("no trials to recommend from")
	}
	byName := map[string][]report.Row{}
	for _, g := range groups {
		byName[report.ConfigOf(g[0])] = g
	}
	rows := report.Aggregate(runs)
	var out Result
	m := report.Metrics[0]
	if o != nil && o.Optimize != "" {
		m, _ = report.MetricNamed(o.Optimize)
		out.Objective = fmt.Sprintf("%s %s", direction(m), m.Name)
	} else {
		out.Objective = "the Pareto front over " + strings.Join(available(rows), ", ") + "; of it the highest " + m.Name
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
	out.Metric, out.Unit = m.Name, m.Unit
	var order []string
	rowsFor := map[string][]report.Row{}
	for _, r := range rows {
		k := report.GivenOf(r)
		if _, ok := rowsFor[k]; !ok {
			order = append(order, k)
		}
		rowsFor[k] = append(rowsFor[k], r)
	}
	// Every choice's comparisons with its best, as one family.
	type test struct{ choice, other int }
	var tests []test
	var ps []float64
	for _, k := range order {
		c := choose(rowsFor[k], o, m, byName)
		c.For = k
		for i := range c.Others {
			tests = append(tests, test{len(out.Choices), i})
			ps = append(ps, c.Others[i].Change.P)
		}
		out.Choices = append(out.Choices, c)
	}
	if !slices.ContainsFunc(out.Choices, func(c Choice) bool { return c.Best != "" }) {
		var why []string
		for _, c := range out.Choices {
			why = append(why, c.Infeasible...)
		}
		return out, fmt.Errorf("no trial meets the constraints: %s", strings.Join(why, "; "))
	}
	adj := stats.Holm(ps)
	out.Tests = stats.Tests(ps)
	for i := range out.Choices {
		c := &out.Choices[i]
		if len(c.Others) > 0 && stats.MinP(c.Repetitions, c.Repetitions)*float64(out.Tests) >= stats.Alpha {
			c.NeedsRepetitions = stats.RepetitionsFor(out.Tests)
		}
	}
	for i, t := range tests {
		c := &out.Choices[t.choice]
		x := &c.Others[t.other]
		// Undecided with too few repetitions: neither a tie nor worse.
		x.P, x.Tie = adj[i], c.NeedsRepetitions == 0 && !(adj[i] < stats.Alpha)
		if x.Tie {
			c.Ties = append(c.Ties, x.Name)
			x.Separating = stats.Separating(unflattered(x.Change.Percent, c.Selection), x.spread, out.Tests, int(v1alpha1.MostRepetitions))
		}
	}
	slices.SortStableFunc(out.Choices, func(a, b Choice) int {
		switch {
		case a.Inconclusive() == b.Inconclusive():
			return 0
		case a.Inconclusive():
			return -1
		}
		return 1
	})
	return out, nil
}

// Separation says, for a tie, what would tell it from the best: "14 repetitions
// would tell", that no number up to the most a spec allows would, or that it is
// unknown (no spread to judge by).
func (o Other) Separation() string {
	switch {
	case o.Separating > 0:
		return fmt.Sprintf("%d repetitions would tell", o.Separating)
	case math.IsNaN(o.spread) || math.IsNaN(o.Change.Percent):
		return "the repetitions that would tell: unknown, no spread"
	}
	return fmt.Sprintf("no number up to %d would", v1alpha1.MostRepetitions)
}

// selected is the pick's selection in words ("" without one): what it is worth
// measured apart from its choice, how much its median flatters it, how often
// it is picked again.
func (c Choice) selected() string {
	s := c.Selection
	if s.Splits == 0 {
		return ""
	}
	return fmt.Sprintf("; picked from %d on the same repetitions: %s measured apart from the choice, its median flatters it by %.1f %%; picked again in %.0f %% of %d splits",
		len(c.Others)+1, formatValue(s.Value), s.BiasPercent, 100*s.Again, s.Splits)
}

// unflattered is a change from the best shrunk toward zero by how much the best's
// median flatters it (s.BiasPercent, when positive): the gap the pick's luck
// did not make.
func unflattered(changePercent float64, s stats.Selection) float64 {
	if s.Splits == 0 || !(s.BiasPercent > 0) || math.IsNaN(changePercent) {
		return changePercent
	}
	l, b := math.Log1p(changePercent/100), math.Log1p(s.BiasPercent/100)
	return 100 * math.Expm1(math.Copysign(max(0, math.Abs(l)-b), l))
}

// choose ranks one group's rows by o in m: the best, the front, the others
// against the best with their uncorrected tests (Recommend corrects them).
func choose(rows []report.Row, o *v1alpha1.Objective, m report.Metric, byName map[string][]report.Row) Choice {
	c := Choice{Trials: len(rows)}
	var feasible []report.Row
	// Trials are named by their config: an aggregated row's name is its config's,
	// but a repeated trial with one repetition so far keeps its repetition's.
	name := report.ConfigOf
	for _, r := range rows {
		if why := violates(r, o); why != "" {
			c.Infeasible = append(c.Infeasible, name(r)+": "+why)
			continue
		}
		feasible = append(feasible, r)
	}
	if len(feasible) == 0 {
		c.Message = "no trial meets the constraints: " + strings.Join(c.Infeasible, "; ")
		return c
	}
	if o != nil && o.Optimize != "" {
		slices.SortStableFunc(feasible, func(a, b report.Row) int { return compare(m, a, b) })
	} else {
		front := pareto(feasible)
		slices.SortStableFunc(front, func(a, b report.Row) int { return compare(m, a, b) })
		for _, r := range front {
			c.Front = append(c.Front, name(r))
		}
		best := front[0]
		feasible = append([]report.Row{best}, slices.DeleteFunc(feasible, func(r report.Row) bool { return name(r) == name(best) })...)
	}
	best := feasible[0]
	c.Best, c.Value = name(best), m.Of(best)
	c.Repetitions = len(byName[c.Best])
	// The best is the best median of the feasible trials (on the default
	// objective too: nothing can dominate the best in m), so the selection is
	// among them all.
	bestValues := report.Values(m, byName[c.Best])
	samples := [][]float64{bestValues}
	for _, r := range feasible[1:] {
		values := report.Values(m, byName[name(r)])
		samples = append(samples, values)
		c.Repetitions = min(c.Repetitions, len(values))
		c.Others = append(c.Others, Other{Name: name(r), Change: report.DifferenceOf(m, byName[c.Best], byName[name(r)]),
			spread: stats.LogSpread(bestValues, values)})
	}
	if len(samples) > 1 {
		c.Selection = stats.Select(samples, 0, m.Lower)
	}
	return c
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

// Line is a choice in one line: what it is for, then for a conclusive one the
// best with its selection (what it is worth apart from its choice), its ties
// and every other trial's change with its interval and confidence; for an
// inconclusive one that it is, the trial so far ahead with its selection, and
// the others' changes.
func (r Result) Line(c Choice) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", c.For)
	switch {
	case c.Best == "":
		b.WriteString(c.Message)
		return b.String()
	case c.Inconclusive():
		// The lead's flattery too: "ahead so far" is a best median of several.
		fmt.Fprintf(&b, "inconclusive (%d repetition(s); telling %d trials apart needs ≥ %d); ahead so far: %s (%s %s %s%s)",
			c.Repetitions, c.Trials, c.NeedsRepetitions, c.Best, r.Metric, formatValue(c.Value), r.Unit, c.selected())
	default:
		fmt.Fprintf(&b, "%s (%s %s %s%s)", c.Best, r.Metric, formatValue(c.Value), r.Unit, c.selected())
		var ties []string
		for _, o := range c.nearest() {
			if !o.Tie {
				continue
			}
			ties = append(ties, fmt.Sprintf("%s %+.1f %% (%s)", o.Name, o.Change.Percent, o.Separation()))
		}
		if len(ties) > 0 {
			fmt.Fprintf(&b, "; not told from it (not shown different, nor shown equal): %s", strings.Join(ties, ", "))
		}
	}
	shown, rest := 0, 0
	for _, o := range c.nearest() {
		if o.Tie || math.IsNaN(o.Change.Percent) {
			continue
		}
		if shown == SummaryOthers {
			rest++
			continue
		}
		ch := o.Change
		fmt.Fprintf(&b, "; %s %+.0f %%", o.Name, ch.Percent)
		if !math.IsNaN(ch.LowPercent) && ch.Confidence > 0 {
			fmt.Fprintf(&b, " [%+.0f, %+.0f] %.0f %%", ch.LowPercent, ch.HighPercent, 100*ch.Confidence)
		}
		shown++
	}
	if rest > 0 {
		fmt.Fprintf(&b, "; %d more, further behind", rest)
	}
	return b.String()
}

// Advice says what to run when a choice is inconclusive ("" when none is): the
// repetitions every trial needs, the trial runs that makes and, given each
// trial's seconds of warmup and measuring (0: unknown, by record count), the
// least time they take.
func (r Result) Advice(trialSeconds int) string {
	needs, runs, open := 0, 0, 0
	for _, c := range r.Choices {
		needs = max(needs, c.NeedsRepetitions)
		if c.Inconclusive() {
			open++
		}
	}
	if needs == 0 {
		return ""
	}
	for _, c := range r.Choices {
		runs += c.Trials * needs
	}
	s := fmt.Sprintf("%d of %d choice(s) inconclusive: set `repetitions: %d` in the experiment's spec and run it again (%d trial runs", open, len(r.Choices), needs, runs)
	if trialSeconds > 0 {
		s += fmt.Sprintf(" of %d s each: at least %d minutes", trialSeconds, (runs*trialSeconds+59)/60)
	}
	return s + ")"
}

// TrialSeconds is a trial's warmup and measured window in seconds, as spec sets
// them: 0 when either is a record count (its time is unknown before it runs).
func TrialSeconds(spec v1alpha1.ExperimentSpec) int {
	if spec.DurationSeconds == nil || spec.Warmup.Records > 0 {
		return 0
	}
	return int(*spec.DurationSeconds + spec.Warmup.DurationSeconds)
}

// SummaryOthers and BlockOthers bound how many other trials a choice's line and
// the result's block list (the nearest to the best first): a result at the
// 256-trial cap must stay under its size target; serdebench recommend lists all.
const (
	SummaryOthers = 8
	BlockOthers   = 24
)

// nearest are the other trials, the ties and then the nearest to the best first.
func (c Choice) nearest() []Other {
	out := slices.Clone(c.Others)
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
// recommendation) becomes its message. trialSeconds is as Advice's.
func Block(r Result, err error, trialSeconds int) *v1alpha1.Recommendation {
	if err != nil {
		return &v1alpha1.Recommendation{Objective: r.Objective, Message: err.Error()}
	}
	dec := func(v float64) string { return report.Decimal(v, 2) }
	out := &v1alpha1.Recommendation{Objective: r.Objective, Metric: r.Metric, Unit: r.Unit, Tests: int32(r.Tests), Advice: r.Advice(trialSeconds)}
	// The Best column: each choice's best, one only ahead marked as the table marks it.
	var bests []string
	for _, c := range r.Choices {
		switch {
		case c.Best == "":
		case c.Inconclusive():
			bests = append(bests, c.Best+string(report.Ahead))
		default:
			bests = append(bests, c.Best)
		}
	}
	out.Best = strings.Join(bests, ", ")
	for _, c := range r.Choices {
		rc := v1alpha1.RecommendedChoice{For: c.For, Best: c.Best, Front: c.Front, Ties: c.Ties, Infeasible: c.Infeasible,
			NeedsRepetitions: int32(c.NeedsRepetitions), Summary: r.Line(c), Message: c.Message}
		if c.Best != "" {
			rc.Value = dec(c.Value)
		}
		if s := c.Selection; s.Splits > 0 {
			rc.Selection = &v1alpha1.Selection{Splits: int32(s.Splits), PickedAgainPermille: int32(math.Round(1000 * s.Again)),
				ValueApart: dec(s.Value), BiasPercent: dec(s.BiasPercent)}
		}
		others := c.nearest()
		if len(others) > BlockOthers {
			rc.OthersOmitted = int32(len(others) - BlockOthers)
			others = others[:BlockOthers]
		}
		for _, o := range others {
			a := v1alpha1.RecommendedAlternative{Name: o.Name, ChangePercent: dec(o.Change.Percent), Tie: o.Tie, SeparatingRepetitions: int32(o.Separating)}
			if o.Change.Confidence > 0 {
				a.ChangeLowPercent, a.ChangeHighPercent = dec(o.Change.LowPercent), dec(o.Change.HighPercent)
				a.ConfidencePermille = int32(math.Floor(1000 * o.Change.Confidence))
			}
			// A p-value only where the test could decide.
			if !c.Inconclusive() && !math.IsNaN(o.P) {
				a.PValue = report.Decimal(o.P, 4)
			}
			rc.Others = append(rc.Others, a)
		}
		out.Choices = append(out.Choices, rc)
	}
	return out
}
