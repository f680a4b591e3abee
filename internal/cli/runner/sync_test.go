package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestProducersStartTogether: four producers of one trial, each as fast as it
// can (a closed loop), are given one start instant, and each begins its measured
// window exactly when its warmup second ends: the window starts at that instant,
// not with the next record it sends, which a full buffer can hold back (by up to
// 125 ms with 16 pods on 2 cores). So the windows begin together and the trial's
// rate over their union is the sum of their own rates less no more than the
// windows' misfit (summary.UnionRateFloor: they end a drain apart).
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
	// Each window begins when its warmup ends: the start instant plus 1 s, carried
	// onto the monotonic clock (so within a millisecond of drift), or later by as
	// much as a producer that reached its start late (it begins then) is late.
	want := starts[0].Add(time.Second)
	for _, sum := range res.Summaries {
		if d := sum.WindowStart.Sub(want); sum.Role == "producer" && (d < -time.Millisecond || d > 25*time.Millisecond) {
			t.Errorf("producer %s began its window %s after its warmup's end %s (start + 1 s), want -1 ms to 25 ms", sum.Worker,
				d, want.Format(time.RFC3339Nano))
		}
	}
	if spread := time.Duration(r.WindowStartSpreadMicros) * time.Microsecond; spread > 25*time.Millisecond {
		t.Fatalf("measured windows began %s apart, want within 25 ms", spread)
	}
	window := time.Duration(r.WindowSeconds * float64(time.Second))
	ackMax := time.Duration(r.Ack.Max) * time.Microsecond
	floor := summary.UnionRateFloor(window, time.Duration(r.WindowStartSpreadMicros)*time.Microsecond, ackMax)
	share := r.RecordsPerSecond / r.ProducerRatesSum
	t.Logf("windows within %d µs; aggregate %.0f rec/s, sum of parts %.0f (%.3f of it, floor %.3f: largest ack %s in a %s window)",
		r.WindowStartSpreadMicros, r.RecordsPerSecond, r.ProducerRatesSum, share, floor, ackMax, window)
	if share > 1+1e-9 || share < floor-0.005 {
		t.Fatalf("aggregate %.0f rec/s is %.3f of the producers' own rates' sum %.0f, want between %.3f and 1", r.RecordsPerSecond, share, r.ProducerRatesSum, floor)
	}
}
