package runner_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestProducersStartTogether: four producers of one trial, each as fast as it
// can (a closed loop: its window starts with the first record it sends after
// warmup, not at a scheduled time), begin their measured windows within 10 ms of
// each other on this busy 2-core machine (they wait at a barrier for one instant,
// then pace to it), so the trial's rate over the union of their windows equals
// the sum of their own rates.
func TestProducersStartTogether(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("protobuf")
	s.Records = nil
	s.DurationSeconds = ptr(int32(3))
	s.Warmup.Records, s.Warmup.DurationSeconds = 0, 1
	s.Producers, s.Consumers = 4, 2
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Experiment: "it-sync", TrialTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Result
	var starts []time.Time
	for _, sum := range res.Summaries {
		if sum.Role == "producer" {
			if sum.StartAt.IsZero() {
				t.Fatalf("producer %s was not given a start", sum.Worker)
			}
			starts = append(starts, sum.StartAt)
		}
	}
	if len(starts) != 4 || !starts[0].Equal(starts[1]) || !starts[0].Equal(starts[2]) || !starts[0].Equal(starts[3]) {
		t.Fatalf("start instants %v: want one for all four producers", starts)
	}
	if spread := time.Duration(r.WindowStartSpreadMicros) * time.Microsecond; spread > 10*time.Millisecond {
		t.Fatalf("measured windows began %s apart, want within 10 ms", spread)
	}
	if d := math.Abs(r.RecordsPerSecond-r.ProducerRatesSum) / r.ProducerRatesSum; d > 0.02 {
		t.Fatalf("aggregate %.0f rec/s, the producers' own rates sum to %.0f (%.1f %% apart, want ≤ 2 %%)", r.RecordsPerSecond, r.ProducerRatesSum, 100*d)
	}
	t.Logf("windows within %d µs; aggregate %.0f rec/s, sum of parts %.0f", r.WindowStartSpreadMicros, r.RecordsPerSecond, r.ProducerRatesSum)
}
