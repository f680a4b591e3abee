package report

import (
	"fmt"
	"io"
	"math"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/stats"
)

// DefaultNoise is the records/s noise between repetitions within one run that
// planning assumes without a previous result: the standard deviation of
// logarithms the thesis batch test's repetitions showed on a 2-core VM (their
// ranges span about ±5 %; docs/measurement.md). A result with repetitions gives
// the noise of the user's own cluster (NoiseOf).
const DefaultNoise = 0.05

// NoiseOf is the records/s noise between the repetitions of a run's repeated
// trials (the standard deviation of their logarithms, pooled over the trials),
// and its degrees of freedom; 0 without repetitions.
func NoiseOf(runs []Row) (noise float64, df int) {
	var levels []stats.Level
	for _, g := range Groups(runs) {
		if len(g) > 1 {
			levels = append(levels, stats.LevelOf(Values(Metrics[0], g)))
		}
	}
	if len(levels) == 0 {
		return 0, 0
	}
	// The trials' repetitions share their rounds' conditions: pooled, with one
	// trial's degrees of freedom (stats.Pool).
	p := stats.Pool(levels)[0]
	return p.Spread, p.DF
}

// Plan is what an experiment of Configs trials, each repeated Repetitions times,
// can tell apart in records/s at Noise (from Source): the smallest difference
// between a trial and the baseline trial the table's corrected test finds with
// stats.Power, or how many repetitions it needs before it can find any.
type Plan struct {
	Configs, Repetitions, Tests int
	Noise                       float64
	Source                      string
	// DetectablePercent is +Inf when no difference can be found; then
	// NeedsRepetitions says how many it takes.
	DetectablePercent float64
	NeedsRepetitions  int
}

// PlanFor plans configs trials of reps repetitions at noise.
func PlanFor(configs, reps int, noise float64, source string) Plan {
	p := Plan{Configs: configs, Repetitions: reps, Tests: max(configs-1, 0), Noise: noise, Source: source, DetectablePercent: math.Inf(1)}
	if p.Tests == 0 {
		return p
	}
	p.DetectablePercent = stats.Detectable(reps, reps, p.Tests, noise)
	if math.IsInf(p.DetectablePercent, 1) {
		p.NeedsRepetitions = stats.RepetitionsFor(p.Tests)
	}
	return p
}

// Lines are the plan in words.
func (p Plan) Lines() []string {
	out := []string{fmt.Sprintf("%d trial(s) × %d repetition(s); records/s noise %.1f %% within a run (%s)", p.Configs, p.Repetitions, 100*p.Noise, p.Source)}
	switch {
	case p.Tests == 0:
		out = append(out, "one trial: nothing to compare in the table")
	case p.NeedsRepetitions > 0:
		out = append(out, fmt.Sprintf("vs the baseline trial, Holm-corrected over %d test(s): no difference can be found with %d repetition(s); needs ≥ %d",
			p.Tests, p.Repetitions, p.NeedsRepetitions))
	default:
		out = append(out, fmt.Sprintf("vs the baseline trial, Holm-corrected over %d test(s): the smallest difference found with %.0f %% power is %.1f %%",
			p.Tests, 100*stats.Power, p.DetectablePercent),
			"that is within this experiment; runs on other days differ by more (docs/schedules.md)")
	}
	return out
}

// Planning writes the plan, a line each, prefixed.
func Planning(w io.Writer, p Plan, prefix string) {
	for _, l := range p.Lines() {
		fmt.Fprintf(w, "%s%s\n", prefix, l)
	}
}

// PlanOf is a run's own plan: its trials and repetitions at the noise its
// repetitions showed (DefaultNoise without any).
func PlanOf(runs []Row) Plan {
	groups := Groups(runs)
	reps := len(runs)
	for _, g := range groups {
		reps = min(reps, len(g))
	}
	noise, df := NoiseOf(runs)
	source := fmt.Sprintf("this run's repetitions, %d degrees of freedom", df)
	if df == 0 {
		noise, source = DefaultNoise, "no repetitions to measure it: this project's default (docs/measurement.md)"
	}
	return PlanFor(len(groups), max(reps, 1), noise, source)
}

// Sensitivity is a plan as a SerializationResult records it.
func (p Plan) Sensitivity() *v1alpha1.Sensitivity {
	s := &v1alpha1.Sensitivity{Trials: int32(p.Configs), Repetitions: int32(p.Repetitions), Tests: int32(p.Tests),
		NoisePercent: Decimal(100*p.Noise, 2), NoiseSource: p.Source, PowerPercent: int32(math.Round(100 * stats.Power)),
		NeedsRepetitions: int32(p.NeedsRepetitions), DetectablePercent: Decimal(p.DetectablePercent, 1)}
	return s
}
