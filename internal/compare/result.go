package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/stats"
)

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
	// logarithms in percent, this trial's own: the between-run noise.
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
	StreakRuns          int `json:"streakRuns,omitempty"`
	StreakChangePercent Num `json:"streakChangePercent,omitempty"`
	StreakP             Num `json:"streakP,omitempty"`
	// Tested is this run's test as it was made (nil when not judged); Streak the
	// test of the last Persistence runs' mean (nil before that many runs; with
	// Persistence 1, this run alone): the intervals the verdict rests on.
	Tested *Test `json:"tested,omitempty"`
	Streak *Test `json:"streak,omitempty"`
	// Improvement is the test of the same runs' mean in the better direction, a
	// family of its own (nil where Streak is nil): what Improved rests on. Its bound
	// is on the other side of Streak's: the change is at least BoundPercent where
	// higher is better (Upper false), at most it where lower is.
	Improvement *Test   `json:"improvement,omitempty"`
	Verdict     Verdict `json:"verdict"`
}

// Test is a verdict's test as it was made, so that the interval printed beside
// a verdict is the one it tested (ChangeLowPercent and ChangeHighPercent are
// descriptive: two-sided, against the baseline's own level): the change on the
// tested scale, and its one-sided bound on the side the test asked about — the
// worse direction, or the better one for Metric.Improvement — at the level the
// test faced after Holm's correction, 1 − α·p/pHolm. So the bound is beyond zero
// exactly when the corrected test finds the metric worse (or better); the
// verdict also asks the change to be beyond the threshold.
type Test struct {
	// Runs is how many runs' mean was tested: 1 (this run) or Persistence.
	Runs int `json:"runs"`
	// TestedOn is what the change was tested against: the control trial of each
	// run, or the trial's own baseline level (the API's, as the result records it).
	TestedOn v1alpha1.TestedOn `json:"testedOn"`
	// ChangePercent is the tested change; BoundPercent its one-sided bound at
	// Confidence: the change is at most BoundPercent when Upper, at least it
	// otherwise.
	ChangePercent Num     `json:"changePercent"`
	BoundPercent  Num     `json:"boundPercent"`
	Confidence    float64 `json:"confidence"`
	// Upper says BoundPercent is an upper bound: the test asked whether the level
	// fell (worse where higher is better; for an improvement, where lower is).
	Upper bool `json:"upper"`
	// P is the test's one-sided p-value, Holm-adjusted.
	P Num `json:"p"`
}

// String is the test in a few words: "−14.2 % vs the control, ≤ −6.1 % at
// 99.6 % (one-sided, Holm), p 0.004".
func (t Test) String() string {
	on := "vs the " + t.On()
	if t.Runs > 1 {
		on = fmt.Sprintf("last %d runs' mean %s", t.Runs, on)
	}
	return fmt.Sprintf("%+.1f %% %s, %s %+.1f %% at %s (one-sided, Holm), p %.3f", t.ChangePercent, on, t.side(), t.BoundPercent, t.level(), t.P)
}

// Cell is the test in a table's cell: "-14.2 (≤ -6.1, 99.6 %)".
func (t Test) Cell() string {
	return fmt.Sprintf("%+.1f (%s %+.1f, %s)", t.ChangePercent, t.side(), t.BoundPercent, t.level())
}

// On names what the test was made against, in words: "control" or "baseline".
func (t Test) On() string { return strings.ToLower(string(t.TestedOn)) }

func (t Test) side() string {
	if t.Upper {
		return "≤"
	}
	return "≥"
}

// level is the bound's confidence, floored to a tenth of a percent: 99.96 %
// never reads 100 %.
func (t Test) level() string { return fmt.Sprintf("%.1f %%", math.Floor(1000*t.Confidence)/10) }

// Regressed says the metric regressed.
func (m Metric) Regressed() bool { return m.Verdict == Regressed }

// StreakTest is the test of the last Persistence runs a table prints beside the
// verdict: Improvement for an Improved metric, else Streak (nil for none). The
// two differ in side, which the bound's sign (≥ or ≤) says.
func (m Metric) StreakTest() *Test {
	if m.Verdict == Improved {
		return m.Improvement
	}
	return m.Streak
}

// Said is the metric's change with the interval its verdict rests on: the
// streak's test for Regressed, the improvement's for Improved, this run's for
// Suspect, else the change from the baseline's level with its two-sided
// interval (EnvironmentShifted is a move of the level, not a test's verdict).
func (m Metric) Said() string {
	switch {
	case m.Verdict == Regressed && m.Streak != nil:
		return m.Streak.String()
	case m.Verdict == Improved && m.Improvement != nil:
		return m.Improvement.String()
	case m.Verdict == Suspect && m.Tested != nil:
		return m.Tested.String()
	}
	return fmt.Sprintf("%+.1f %% [%+.1f, %+.1f] at %.0f %% vs the baseline", m.ChangePercent, m.ChangeLowPercent, m.ChangeHighPercent, 100*m.ChangeConfidence)
}

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
	// Control names the control trial ("" without one, and when the machine probe
	// stands in for it).
	Control string `json:"control,omitempty"`
	// Probe is the machine probe against the baseline runs' (absent when the runs
	// did not measure it); MachineShifted says it found the machine slower, which
	// is then what decides EnvironmentShifted.
	Probe          []ProbePart `json:"probe,omitempty"`
	MachineShifted bool        `json:"machineShifted,omitempty"`
	// MachineSteady says the probe showed the machine not slower (its CPU part's
	// bound, over the streak, below ProbeShiftPercent): only then is a move of
	// every trial the trials' own.
	MachineSteady bool `json:"machineSteady,omitempty"`
	// MachineFaster and MachineNotFaster are MachineShifted's and MachineSteady's
	// mirrors, for a better move: only beside a machine shown not faster is a gain
	// of every trial the trials' own (Improved).
	MachineFaster    bool `json:"machineFaster,omitempty"`
	MachineNotFaster bool `json:"machineNotFaster,omitempty"`
	// ProbeDecides says the probe stood in for a control trial: the candidate and
	// at least MinRuns baseline runs measured its CPU part, and it could tell (the
	// machine shown slower, steady or faster). A probe that cannot tell leaves the
	// control trial to decide.
	ProbeDecides bool `json:"probeDecides,omitempty"`
	// Tests is how many tests the Holm correction covered.
	Tests int `json:"tests"`
	// Unmatched are candidate trials no baseline run has.
	Unmatched []string `json:"unmatched,omitempty"`
	// Missing are baseline trials the candidate lacks.
	Missing []string `json:"missing,omitempty"`
	// Excluded are the runs (indices into the history given to Compare or Judge,
	// oldest first) left out of the baseline as slow together: a cold first run.
	Excluded []int `json:"excluded,omitempty"`
	// Verdict is the most severe of the trials'.
	Verdict Verdict `json:"verdict"`
}

// Regressed says some metric regressed.
func (r Result) Regressed() bool { return r.Verdict == Regressed }

// Method says how the result was reached, for tables and conditions.
func (r Result) Method(o Options) string {
	o = o.withDefaults()
	control := "no control trial"
	switch {
	case r.ProbeDecides:
		control = fmt.Sprintf("each trial on its own, the machine probe the control, judged over the last %d runs (its CPU part shown less than %.0f %% slower, one-sided at %.0f %%: "+
			"the trials' verdicts are their own; any part shown slower, Holm over the parts: a regressed trial is EnvironmentShifted)", o.Persistence, ProbeShiftPercent, 100*(1-stats.Alpha))
	case r.Control != "" && len(r.Probe) > 0:
		control = "the machine probe could not tell (neither shown steady nor slower): trials beside the control " + r.Control + " relative to it"
	case r.Control != "":
		control = "trials beside the control " + r.Control + " relative to it"
	}
	return fmt.Sprintf("each run one value per trial and metric (the median of its repetitions), tested against up to %d earlier runs (at least %d; "+
		"each trial's own spread between them) by Student's t on logarithms, one-sided, Holm-corrected over %d tests; "+
		"%s. Suspect: this run worse than the threshold, p < %.2f. Regressed: each of the last %d runs worse than the threshold and their "+
		"mean against the runs before them p < %.2f. Improved: each of them better than the threshold and their mean better, p < %.2f "+
		"(Holm-corrected on its own)", o.BaselineRuns, o.MinRuns, r.Tests, control, stats.Alpha, o.Persistence, stats.Alpha, stats.Alpha)
}

// Flagged names the metrics with verdict v, for conditions and events.
func (r Result) Flagged(v Verdict) []string {
	var out []string
	for _, t := range r.Trials {
		for _, m := range t.Metrics {
			if m.Verdict == v {
				out = append(out, fmt.Sprintf("%s: %s %s", t.Name, m.Name, m.Said()))
			}
		}
	}
	return slices.Clip(out)
}
