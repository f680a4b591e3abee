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
)

// TestRepetitionsAATest runs, over the real broker, one experiment whose plan
// holds the same trial twice (an A/A test) and a trial beside a copy of it with a
// planted 20 % slowdown (its producers paced at 80 % of its rate), each 5 times,
// interleaved. The twins must come out "not different" with an interval of their
// change that covers 0; the slowdown "different", with an interval that covers
// the planted −20 %. An A/A test at 95 % fails by chance at most 5 % of the time
// (with 5 repetitions each, 3.2 %: the U test's p-values are discrete); the
// interleaving keeps the machine's drift from adding to that.
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
	twin := configs[0]
	twin.Config, twin.Name, twin.Index = "t001-protobuf-1176b", "t001-protobuf-1176b", 1
	paced := configs[0]
	paced.Settings.RecordsPerSecond = 2500
	paced.Config, paced.Name, paced.Index = "t002-paced", "t002-paced", 2
	slow := paced
	slow.Settings.RecordsPerSecond = 2000 // the planted 20 % slowdown
	slow.Config, slow.Name, slow.Index = "t003-paced-slow", "t003-paced-slow", 3
	runs := plan.Repeat([]trial.Trial{configs[0], twin, paced, slow}, 5, 7)
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
	aa := report.DifferenceOf(rps, groups[0], groups[1])
	t.Logf("A/A: %v vs %v rec/s: change %+.1f %% [%+.1f, %+.1f] at %.1f %%, p = %.3f", report.Values(rps, groups[0]), report.Values(rps, groups[1]),
		aa.Percent, aa.LowPercent, aa.HighPercent, 100*aa.Confidence, aa.P)
	if aa.Significant || aa.Low > 0 || aa.High < 0 {
		t.Errorf("A/A test: the same trial twice came out different: %+v", aa)
	}
	if aa.Confidence < 0.95 {
		t.Errorf("A/A: the change's interval reaches only %.1f %% with 5 and 5", 100*aa.Confidence)
	}
	planted := report.DifferenceOf(rps, groups[2], groups[3])
	t.Logf("planted: %v vs %v rec/s: change %+.1f %% [%+.1f, %+.1f], p = %.3f", report.Values(rps, groups[2]), report.Values(rps, groups[3]),
		planted.Percent, planted.LowPercent, planted.HighPercent, planted.P)
	if !planted.Significant || planted.LowPercent > -20 || planted.HighPercent < -20 || math.Abs(planted.Percent+20) > 2 {
		t.Errorf("a planted 20 %% slowdown: %+v", planted)
	}
	// The table says the same: medians, intervals, and which trials differ from the fastest.
	var out bytes.Buffer
	if err := report.Table(&out, rows); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	lines := strings.Split(out.String(), "\n")
	if !strings.Contains(lines[0], "RUNS") || !strings.Contains(lines[0], "vs FASTEST") || len(lines) < 5 {
		t.Fatalf("table without repetitions' columns:\n%s", out.String())
	}
	for _, l := range lines[3:5] { // the paced trials: far below the unpaced ones
		if !strings.Contains(l, " 5  ") || !strings.Contains(l, "%") || strings.HasSuffix(strings.TrimSpace(l), "~") {
			t.Errorf("paced trial not told apart from the fastest: %q", l)
		}
	}
	stats := report.Statistics(rows)
	if len(stats) != 4 || len(stats[0].Runs) != 5 || stats[0].Metrics[0].Name != "recordsPerSecond" || len(stats[0].Metrics[0].Values) != 5 ||
		stats[0].Metrics[0].Low > stats[0].Metrics[0].Median || stats[0].Metrics[0].High < stats[0].Metrics[0].Median {
		t.Errorf("statistics: %+v", stats)
	}
}
