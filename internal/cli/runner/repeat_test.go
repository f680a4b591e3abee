package runner_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestRepetitionsAATest runs, over the real broker, one experiment whose plan
// holds the same trial twice (an A/A test) and a trial beside a copy of it with a
// planted 20 % slowdown (its producers paced at 80 % of its rate), each 5 times,
// interleaved, beside an unpaced trial (the table's baseline). It checks what
// cannot fail by chance: the estimator's own promises (the figure inside its
// interval, 96.8 % with 5 and 5, the same change either way round); the paced
// twins' records/s equivalent within ±1 % at that confidence unless a repetition
// says its rate slipped (the pacer holds the rate while the machine lets it; their
// latency gets no such bound: under make test's load one repetition's p50 came out
// 2.2 times its twin's); the planted slowdown found, inside its interval; and the table telling every paced trial from the
// unpaced baseline after Holm's correction. Whether an A/A pair is "not
// different" is left to the simulations (internal/stats): asserted on one pair it
// fails 3 % of runs by design.
func TestRepetitionsAATest(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("protobuf")
	records := int64(4000)
	s.Records, s.Warmup = &records, trial.Warmup{Records: 500}
	s.Consumers = 1
	configs, err := plan.Expand(s) // as fast as possible
	if err != nil {
		t.Fatal(err)
	}
	// The unpaced baseline sends ten times the records: at ~25,000 rec/s its 4,000
	// would last 0.15 s, and one stall of a loaded machine (make test runs two
	// packages at once; CI saw a paced repetition stall 1.5 s) would drag a
	// repetition below the paced 2,500 rec/s and the table could not tell them
	// apart. 40,000 records measure 1.5 s: such a stall leaves it above 10,000.
	baseline := configs[0]
	baseline.Records, baseline.Settings.Records = 10*records, 10*records
	paced := configs[0]
	paced.Settings.RecordsPerSecond, paced.Reference = 2500, false
	paced.Config, paced.Name, paced.Index = "t001-paced", "t001-paced", 1
	twin := paced
	twin.Config, twin.Name, twin.Index = "t002-paced-twin", "t002-paced-twin", 2
	slow := paced
	slow.Settings.RecordsPerSecond = 2000 // the planted 20 % slowdown
	slow.Config, slow.Name, slow.Index = "t003-paced-slow", "t003-paced-slow", 3
	runs := plan.Repeat([]trial.Trial{baseline, paced, twin, slow}, 5, 7)
	start := time.Now()
	results, err := runner.Run(context.Background(), runs, runner.Options{Brokers: brokers, Experiment: "it-aa", TrialTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs in %s", len(results), time.Since(start).Round(time.Second))
	rows := report.LocalRows(results)
	groups := report.Groups(rows)
	if len(groups) != 4 {
		t.Fatalf("%d groups of repetitions, want 4", len(groups))
	}
	for _, g := range groups {
		if len(g) != 5 {
			t.Fatalf("%s: %d repetitions, want 5", g[0].Config, len(g))
		}
	}
	rps := report.Metrics[0]
	p50, _ := report.MetricNamed("endToEndMicros.p50")
	for _, m := range []report.Metric{rps, p50} {
		aa, back := report.DifferenceOf(m, groups[1], groups[2]), report.DifferenceOf(m, groups[2], groups[1])
		t.Logf("A/A %s: %v vs %v %s: change %+.1f %% [%+.1f, %+.1f] at %.1f %%, p = %.3f", m.Name, report.Values(m, groups[1]), report.Values(m, groups[2]), m.Unit,
			aa.Percent, aa.LowPercent, aa.HighPercent, 100*aa.Confidence, aa.P)
		if aa.Percent < aa.LowPercent || aa.Percent > aa.HighPercent || aa.Confidence < 0.95 ||
			math.Abs(math.Log1p(aa.Percent/100)+math.Log1p(back.Percent/100)) > 1e-9 {
			t.Errorf("A/A %s: the estimator broke its own promises: %+v, the other way round %+v", m.Name, aa, back)
		}
		if m.Name == rps.Name && (aa.LowPercent < -1 || aa.HighPercent > 1) && !slipped(groups[1], groups[2]) {
			t.Errorf("A/A %s: the same paced trial twice differs by [%+.1f, %+.1f] %% at %.1f %% and no repetition says its rate slipped: beyond ±1 %%",
				m.Name, aa.LowPercent, aa.HighPercent, 100*aa.Confidence)
		}
	}
	planted := report.DifferenceOf(rps, groups[1], groups[3])
	t.Logf("planted: %v vs %v rec/s: change %+.1f %% [%+.1f, %+.1f], p = %.3f", report.Values(rps, groups[1]), report.Values(rps, groups[3]),
		planted.Percent, planted.LowPercent, planted.HighPercent, planted.P)
	// The truth is the pacers' -20 %, up to each measured rate's window edges (the
	// window runs to the last acknowledgement, so a paced rate measures a few
	// tenths of a percent below its pacer's: 2,490 of 2,500, 1,997 of 2,000): the
	// interval must reach within a point of it. Its width alone is about ±0.2.
	if !(planted.P < 0.05) || planted.LowPercent > -19 || planted.HighPercent < -21 || (math.Abs(planted.Percent+20) > 2 && !slipped(groups[1], groups[3])) {
		t.Errorf("a planted 20 %% slowdown: %+v", planted)
	}
	// The table says the same: medians, intervals, and each trial against the
	// baseline (the plan's first), Holm-corrected over the three tests.
	var out bytes.Buffer
	if err := report.WideTable(&out, rows); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	lines := strings.Split(out.String(), "\n")
	if !strings.Contains(lines[0], "RUNS") || !strings.Contains(lines[0], "REC/S vs BASELINE") || len(lines) < 5 || !strings.Contains(lines[1], "baseline") ||
		!strings.Contains(out.String(), "Holm-corrected over the 3 tests") {
		t.Fatalf("table without repetitions' columns:\n%s", out.String())
	}
	for _, l := range lines[2:5] { // the paced trials: far below the unpaced baseline
		if !strings.Contains(l, " 5  ") || !strings.Contains(l, "% [") || strings.Contains(l, "~") {
			t.Errorf("paced trial not told apart from the baseline: %q", l)
		}
	}
	stats := report.Statistics(rows)
	if len(stats) != 4 || len(stats[0].Runs) != 5 || stats[0].Metrics[0].Name != "recordsPerSecond" || len(stats[0].Metrics[0].Values) != 5 ||
		stats[0].Metrics[0].Low > stats[0].Metrics[0].Median || stats[0].Metrics[0].High < stats[0].Metrics[0].Median {
		t.Errorf("statistics: %+v", stats)
	}
	// Each trial's merged percentiles are of all its repetitions' records: their
	// count the sum, their p99 within the repetitions' own p99s (a mixture's).
	for i, st := range stats {
		m := st.Merged
		if m == nil || m.Runs != 5 || m.ResolutionPermille != 1 {
			t.Fatalf("%s: merged %+v", st.Name, m)
		}
		var count, lo, hi int64 = 0, math.MaxInt64, 0
		for _, r := range groups[i] {
			count, lo, hi = count+r.Latency[summary.EndToEndMicros].Count(), min(lo, r.P99), max(hi, r.P99)
		}
		if p := m.EndToEndMicros.P99; m.EndToEndMicros.Count != count || p < lo || p > hi {
			t.Errorf("%s: merged e2e %+v: want %d values and a p99 within %d–%d µs", st.Name, m.EndToEndMicros, count, lo, hi)
		}
	}
}

// slipped says whether a repetition of these groups says its paced rate slipped:
// then the pacer did not hold the rate (a loaded machine) and the result said so.
func slipped(groups ...[]report.Row) bool {
	for _, g := range groups {
		for _, r := range g {
			if summary.Warned(r.Warnings, summary.SlippedWarning) {
				return true
			}
		}
	}
	return false
}
