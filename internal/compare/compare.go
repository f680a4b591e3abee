// Package compare judges a run against the runs before it, trial by trial, as a
// nightly check must: quiet when nothing changed, loud when something did and
// stayed. It is serdebench compare's logic and the SerializationSchedule's.
//
// Noise has two levels. Repetitions inside a run (spec.repetitions) measure the
// noise within a run; runs on different days also differ as a whole (a
// neighbour, a warming broker, the page cache), and only earlier runs measure
// that. So each run is one value per trial and metric — the median of its
// repetitions — and a new run is judged against the spread of the earlier runs'
// values (stats.Level): its change from their center, with the interval Student's
// t gives for one more run. A metric breaches when that change is worse than its
// threshold and significant after Holm's correction over every trial and metric
// of the run; a breach is Suspect. It is Regressed when it persists: each of the
// last Persistence runs worse than the threshold, and their mean significant
// against the runs before them. The runs of that streak are never part of its
// baseline, whatever they showed, so the test is not biased by having picked them.
// Every trial beside a control trial of the same run is tested relative to it:
// when the control breached and the others moved with it, the metric is
// EnvironmentShifted, not regressed.
package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/serdebench/serdebench/api/v1alpha1"
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

// DefaultThresholds are throughput −10 %, p99 +20 % and serialize time +20 %.
var DefaultThresholds = Thresholds{ThroughputDropPercent: 10, P99RisePercent: 20, SerializeRisePercent: 20}

// Options say how runs are judged.
type Options struct {
	Thresholds Thresholds
	// BaselineRuns is how many earlier runs make a baseline (default 5).
	BaselineRuns int
	// MinRuns is the fewest baseline runs a metric is judged with (default 3): with
	// fewer the between-run noise is not known, and the comparison says so instead
	// of guessing. A run is judged once MinRuns + Persistence − 1 runs came before
	// it (the streak's are not its baseline): Needed.
	MinRuns int
	// Persistence is how many consecutive runs must be worse than the threshold,
	// and significant together, before a metric is Regressed (default 2; 1
	// regresses at the first breach). The last Persistence − 1 earlier runs are the
	// streak's, the BaselineRuns before them the baseline: a lasting change is
	// alerted until the baseline has absorbed it.
	Persistence int
	// Control is the key of the trial whose moves are the environment's (default:
	// the candidate's first trial in plan order).
	Control string
	// AlertAlpha is the family-wise false-alarm rate per run of Regressed.
	AlertAlpha float64
}

// DefaultOptions are the defaults of each option.
var DefaultOptions = Options{Thresholds: DefaultThresholds, BaselineRuns: 5, MinRuns: 3, Persistence: 2, AlertAlpha: 0.05}

// Needed is how many earlier runs a run needs to be judged.
func (o Options) Needed() int {
	o = o.withDefaults()
	return o.MinRuns + o.Persistence - 1
}

func (o Options) withDefaults() Options {
	if o.BaselineRuns < 1 {
		o.BaselineRuns = DefaultOptions.BaselineRuns
	}
	if o.MinRuns < 2 {
		o.MinRuns = DefaultOptions.MinRuns
	}
	if o.Persistence < 1 {
		o.Persistence = DefaultOptions.Persistence
	}
	if o.AlertAlpha <= 0 {
		o.AlertAlpha = DefaultOptions.AlertAlpha
	}
	return o
}

// Verdict is what a metric, a trial or a run came to (the API's).
type Verdict = v1alpha1.ComparisonVerdict

// Verdicts, from the least to the most severe.
const (
	NotJudged          = v1alpha1.VerdictNotJudged
	Within             = v1alpha1.VerdictWithin
	EnvironmentShifted = v1alpha1.VerdictEnvironmentShifted
	Suspect            = v1alpha1.VerdictSuspect
	Regressed          = v1alpha1.VerdictRegressed
)

var severity = []Verdict{NotJudged, Within, EnvironmentShifted, Suspect, Regressed}

func worse(a, b Verdict) Verdict {
	if slices.Index(severity, b) > slices.Index(severity, a) {
		return b
	}
	return a
}

// Num is a figure that may not be available (NaN): JSON null, never 0.
type Num float64

// MarshalJSON writes NaN and ±Inf as null.
func (n Num) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

// Metric is one metric of one trial against its baseline runs.
type Metric struct {
	// Name and Unit say what was compared.
	Name string `json:"name"`
	Unit string `json:"unit"`
	// BaselineRuns is how many earlier runs this metric was judged against.
	BaselineRuns int `json:"baselineRuns"`
	// Baseline is their center (geometric mean of each run's value), Min and Max
	// the lowest and highest run value, Spread the standard deviation of their
	// logarithms in percent, pooled over the run's trials: the between-run noise.
	Baseline      Num `json:"baseline"`
	Min           Num `json:"min"`
	Max           Num `json:"max"`
	SpreadPercent Num `json:"spreadPercent"`
	// Candidate is the run's value: the median of its repetitions (for p99: the
	// median of the per-repetition p99s).
	Candidate Num `json:"candidate"`
	// ChangePercent is Candidate's change from Baseline; ChangeLowPercent and
	// ChangeHighPercent bound the change of the level at ChangeConfidence.
	ChangePercent     Num     `json:"changePercent"`
	ChangeLowPercent  Num     `json:"changeLowPercent"`
	ChangeHighPercent Num     `json:"changeHighPercent"`
	ChangeConfidence  float64 `json:"changeConfidence"`
	// ControlChangePercent is the change of this trial's value relative to the
	// control trial's in the same run (NaN for the control itself, or without
	// one): the scale a trial beside a control is tested on.
	ControlChangePercent Num `json:"controlChangePercent"`
	// P is the one-sided p-value of "this run is worse than the baseline's level",
	// Holm-adjusted over every judged metric of the run.
	P Num `json:"p"`
	// StreakRuns is Persistence when each of the last Persistence runs was worse
	// than the threshold (0 otherwise); StreakChangePercent is then their mean's
	// change on the tested scale, StreakP its Holm-adjusted one-sided p-value.
	StreakRuns          int     `json:"streakRuns,omitempty"`
	StreakChangePercent Num     `json:"streakChangePercent,omitempty"`
	StreakP             Num     `json:"streakP,omitempty"`
	Verdict             Verdict `json:"verdict"`
}

// Regressed says the metric regressed.
func (m Metric) Regressed() bool { return m.Verdict == Regressed }

// Trial is one trial of the candidate against the same trial of the baseline runs.
type Trial struct {
	// Key is what matches trials across runs: codec, schema, size and settings.
	Key  string `json:"key"`
	Name string `json:"name"`
	// Control says this trial is the run's control.
	Control bool `json:"control,omitempty"`
	// Repetitions is how many repetitions the candidate's value is the median of.
	Repetitions int      `json:"repetitions"`
	Metrics     []Metric `json:"metrics"`
	Verdict     Verdict  `json:"verdict"`
}

// Result is a candidate run against its baseline runs.
type Result struct {
	Trials []Trial `json:"trials"`
	// Control names the control trial ("" without one).
	Control string `json:"control,omitempty"`
	// Tests is how many tests the Holm correction covered.
	Tests int `json:"tests"`
	// Unmatched are candidate trials no baseline run has.
	Unmatched []string `json:"unmatched,omitempty"`
	// Missing are baseline trials the candidate lacks.
	Missing []string `json:"missing,omitempty"`
	// Verdict is the most severe of the trials'.
	Verdict Verdict `json:"verdict"`
}

// Regressed says some metric regressed.
func (r Result) Regressed() bool { return r.Verdict == Regressed }

// Method says how the result was reached, for tables and conditions.
func (r Result) Method(o Options) string {
	o = o.withDefaults()
	control := "no control trial"
	if r.Control != "" {
		control = "trials beside the control " + r.Control + " relative to it"
	}
	return fmt.Sprintf("each run one value per trial and metric (the median of its repetitions), tested against up to %d earlier runs (at least %d; "+
		"their spread pooled over the trials, one trial's degrees of freedom) by Student's t on logarithms, one-sided, Holm-corrected over %d tests; "+
		"%s. Suspect: this run worse than the threshold, p < %.2f. Regressed: each of the last %d runs worse than the threshold and their "+
		"mean against the runs before them p < %.2f", o.BaselineRuns, o.MinRuns, r.Tests, control, stats.Alpha, o.Persistence, o.AlertAlpha)
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

// Run is one run as Compare reads it: each trial's value of each metric, the
// median over its repetitions.
type Run struct {
	values runValues
	// order is the trials' keys in plan order; names their names; reps how many
	// repetitions each value is the median of.
	order []string
	names map[string]string
	reps  map[string]int
}

// runValues are one run's values: trial key → metric → median over repetitions.
type runValues map[string][]float64

// Summarize reads a run's rows (every repetition of every trial).
func Summarize(rows []report.Row) Run {
	out := Run{values: runValues{}, names: map[string]string{}, reps: map[string]int{}}
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
	return Judge(runs, Summarize(candidate), o)
}

// Judge judges candidate against the runs before it (oldest first): the last
// Persistence − 1 of them are its streak's earlier runs, and up to BaselineRuns
// before those its baseline.
func Judge(history []Run, candidate Run, o Options) Result {
	o = o.withDefaults()
	recentN := min(o.Persistence-1, len(history))
	from := max(0, len(history)-recentN-o.BaselineRuns)
	base := make([]runValues, 0, len(history)-from)
	var baseKeys []string
	baseName := map[string]string{}
	for _, run := range history[from:] {
		base = append(base, run.values)
		for _, k := range run.order {
			if _, ok := baseName[k]; !ok {
				baseKeys = append(baseKeys, k)
				baseName[k] = run.names[k]
			}
		}
	}
	recent, base := base[len(base)-recentN:], base[:len(base)-recentN]
	cand, order, names, reps := candidate.values, candidate.order, candidate.names, candidate.reps
	var out Result
	for _, k := range baseKeys {
		if _, ok := cand[k]; !ok {
			out.Missing = append(out.Missing, baseName[k])
		}
	}
	control := o.Control
	if _, ok := baseName[control]; !ok || cand[control] == nil {
		control = ""
		for _, k := range order {
			if _, ok := baseName[k]; ok {
				control = k
				break
			}
		}
	}
	if control != "" {
		out.Control = names[control]
	}
	var matched []string
	for _, k := range order {
		if _, ok := baseName[k]; !ok {
			out.Unmatched = append(out.Unmatched, names[k])
			continue
		}
		matched = append(matched, k)
		out.Trials = append(out.Trials, Trial{Key: k, Name: names[k], Control: k == control, Repetitions: reps[k]})
	}
	// series are a trial's values of one metric in runs: its own beside no control
	// (the control itself, or a run of one trial), else its ratio to the control in
	// the same run, whose noise the environment's moves do not carry.
	series := func(runs []runValues, k string, mi int, relative bool) (own, rel []float64) {
		for _, run := range runs {
			v, ok := run[k]
			if !ok {
				continue
			}
			own = append(own, v[mi])
			if cv, ok := run[control]; ok && relative {
				rel = append(rel, v[mi]/cv[mi])
			}
		}
		return own, rel
	}
	cells := make([][]cell, len(metrics))
	var single, joint []float64
	for mi, m := range metrics {
		own, rel := make([]stats.Level, len(matched)), make([]stats.Level, len(matched))
		cs := make([]cell, len(matched))
		for ti, k := range matched {
			c := &cs[ti]
			c.relative = k != control && control != ""
			ov, rv := series(base, k, mi, c.relative)
			own[ti], rel[ti] = stats.LevelOf(ov), stats.LevelOf(rv)
			c.min, c.max = math.NaN(), math.NaN()
			if len(ov) > 0 {
				c.min, c.max = slices.Min(ov), slices.Max(ov)
			}
			c.x = cand[k][mi]
			c.xs, c.xsRel = series(append(slices.Clone(recent), cand), k, mi, c.relative)
		}
		// The trials of a run share their noise: their spreads are pooled.
		own, rel = stats.Pool(own), stats.Pool(rel)
		for ti := range matched {
			c := &cs[ti]
			c.own, c.scale, c.test = own[ti], own[ti], c.xs
			if c.relative {
				c.scale, c.test = rel[ti], c.xsRel
			}
			c.abs = c.own.ShiftOf(c.x)
			c.single, c.joint = c.scale.ShiftOf(c.test[len(c.test)-1]), c.scale.ShiftOf(c.test...)
			c.judged = c.own.Runs >= o.MinRuns && c.scale.Runs >= o.MinRuns && !math.IsNaN(c.abs.Percent) && !math.IsNaN(c.single.Percent)
			c.pSingle, c.pJoint = math.NaN(), math.NaN()
			if !c.judged {
				continue
			}
			c.pSingle = pWorse(c.single, m.higherIsBetter)
			// Persistence: the mean of the last Persistence runs is tested for every cell
			// that has them, so the family Holm corrects is every such cell, not the
			// ones the data put in a streak; a cell regresses only when, besides, each of
			// those runs was worse than the threshold, absolutely and on the tested
			// scale (a filter that can only remove rejections).
			if len(c.xs) == o.Persistence && len(c.test) == o.Persistence {
				c.pJoint = pWorse(c.joint, m.higherIsBetter)
				c.streak = true
				for i := range c.xs {
					c.streak = c.streak && beyond(percentOf(c.xs[i], c.own), m, o) && beyond(percentOf(c.test[i], c.scale), m, o)
				}
			}
		}
		cells[mi] = cs
		for _, c := range cs {
			single, joint = append(single, c.pSingle), append(joint, c.pJoint)
		}
	}
	// Two families, each Holm-corrected over every trial and metric: this run alone
	// (Suspect) and the streak (Regressed).
	adjSingle, adjJoint := stats.Holm(single), stats.Holm(joint)
	out.Tests = stats.Tests(single)
	for mi, m := range metrics {
		cs := cells[mi]
		for ti := range cs {
			c := &cs[ti]
			i := mi*len(matched) + ti
			c.pSingle, c.pJoint = adjSingle[i], adjJoint[i]
			c.suspect = c.judged && c.pSingle < stats.Alpha && beyond(c.abs.Percent, m, o) && beyond(c.single.Percent, m, o)
			c.regressed = c.streak && c.pJoint < o.AlertAlpha
		}
		// The environment: the control breached and at least half of the other
		// judged trials moved the same way beyond the threshold.
		ctrl, others, with := -1, 0, 0
		for ti, c := range cs {
			switch {
			case !c.judged:
			case out.Trials[ti].Control:
				ctrl = ti
			default:
				others++
				if beyond(c.abs.Percent, m, o) {
					with++
				}
			}
		}
		env := ctrl >= 0 && (cs[ctrl].suspect || cs[ctrl].regressed) && others > 0 && 2*with >= others
		for ti, c := range cs {
			t := &out.Trials[ti]
			mt := Metric{Name: m.name, Unit: m.unit, BaselineRuns: c.own.Runs, Baseline: Num(c.own.Center), Min: Num(c.min), Max: Num(c.max),
				SpreadPercent: Num(100 * c.own.Spread), Candidate: Num(c.x), ChangePercent: Num(c.abs.Percent), ChangeLowPercent: Num(c.abs.LowPercent),
				ChangeHighPercent: Num(c.abs.HighPercent), ChangeConfidence: c.abs.Confidence, ControlChangePercent: Num(math.NaN()), P: Num(c.pSingle),
				StreakChangePercent: Num(math.NaN()), StreakP: Num(math.NaN()), Verdict: Within}
			if c.relative {
				mt.ControlChangePercent = Num(c.single.Percent)
			}
			if c.streak {
				mt.StreakRuns, mt.StreakChangePercent, mt.StreakP = o.Persistence, Num(c.joint.Percent), Num(c.pJoint)
			}
			moved := beyond(c.abs.Percent, m, o)
			switch {
			case !c.judged:
				mt.Verdict, mt.P = NotJudged, Num(math.NaN())
			case env && (t.Control || (moved && !c.suspect && !c.regressed)):
				mt.Verdict = EnvironmentShifted
			case c.regressed:
				mt.Verdict = Regressed
			case c.suspect:
				mt.Verdict = Suspect
			}
			t.Metrics = append(t.Metrics, mt)
		}
	}
	out.Verdict = NotJudged
	for i := range out.Trials {
		t := &out.Trials[i]
		t.Verdict = NotJudged
		for _, m := range t.Metrics {
			t.Verdict = worse(t.Verdict, m.Verdict)
		}
		out.Verdict = worse(out.Verdict, t.Verdict)
	}
	return out
}

// cell is one trial's metric while a run is judged.
type cell struct {
	x, min, max float64
	// relative: tested as a ratio to the control.
	relative bool
	// xs and xsRel are the streak's runs, the candidate last; test the tested ones.
	xs, xsRel, test    []float64
	own, scale         stats.Level
	abs, single, joint stats.Shift
	judged, streak     bool
	suspect, regressed bool
	pSingle, pJoint    float64
}

// percentOf is x's change from a level's center, in percent.
func percentOf(x float64, l stats.Level) float64 { return 100 * (x/l.Center - 1) }

// beyond says a change in percent is worse than the metric's threshold.
func beyond(pct float64, m metric, o Options) bool {
	th := m.threshold(o.Thresholds)
	if m.higherIsBetter {
		return pct < -th
	}
	return pct > th
}

// pWorse is the one-sided p-value of the worse direction.
func pWorse(s stats.Shift, higherIsBetter bool) float64 {
	if higherIsBetter {
		return s.PLower
	}
	return s.PHigher
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

// Flagged names the metrics with verdict v, for conditions and events.
func (r Result) Flagged(v Verdict) []string {
	var out []string
	for _, t := range r.Trials {
		for _, m := range t.Metrics {
			if m.Verdict == v {
				out = append(out, fmt.Sprintf("%s: %s %+.1f%% [%+.1f, %+.1f]", t.Name, m.Name, m.ChangePercent, m.ChangeLowPercent, m.ChangeHighPercent))
			}
		}
	}
	return slices.Clip(out)
}
