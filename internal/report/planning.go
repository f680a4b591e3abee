package report

import (
	"fmt"
	"io"
	"math"

	"github.com/serdebench/serdebench/internal/stats"
)

// DefaultNoise is the records/s noise between repetitions within one run that
// planning assumes without a previous result: the standard deviation of
// logarithms the thesis batch test's repetitions showed on a 2-core VM (their
// ranges span about ±5 %; docs/measurement.md). A result with repetitions gives
// the noise of the user's own cluster (NoiseOf).
const DefaultNoise = 0.05

// NoiseOf is the records/s noise between the repetitions of a previous run's
// repeated trials (the standard deviation of their logarithms, pooled over the
// trials), and its degrees of freedom; 0 without repetitions.
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
	p := stats.Pool(levels)[0]
	return p.Spread, p.DF
}

// Planning says what an experiment of configs trials, each repeated reps times,
// can tell apart in records/s at noise (from source): the smallest difference
// between a trial and the baseline trial its table's corrected test finds with
// 80 % power, or how many repetitions it needs before it can find any.
func Planning(w io.Writer, configs, reps int, noise float64, source string) {
	tests := max(configs-1, 1)
	fmt.Fprintf(w, "planning: %d trial(s) × %d repetition(s); records/s noise %.1f %% within a run (%s)\n", configs, reps, 100*noise, source)
	if configs < 2 {
		fmt.Fprintln(w, "planning: one trial: nothing to compare in the table")
		return
	}
	d := stats.Detectable(reps, reps, tests, noise)
	if math.IsInf(d, 1) {
		fmt.Fprintf(w, "planning: vs the baseline trial, Holm-corrected over %d test(s): no difference can be found with %d repetition(s); needs ≥ %d\n",
			tests, reps, stats.RepetitionsFor(tests))
		return
	}
	fmt.Fprintf(w, "planning: vs the baseline trial, Holm-corrected over %d test(s): the smallest difference found with %.0f %% power is %.1f %%\n",
		tests, 100*stats.Power, d)
	fmt.Fprintln(w, "planning: that is within this experiment; runs on other days differ by more (docs/schedules.md)")
}
