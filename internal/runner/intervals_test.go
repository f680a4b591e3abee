package runner_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/kafkatest"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/runner"
)

// TestIntervals runs 2 producers at a fixed rate for 12 s in 2 s intervals, with
// each client: the intervals add up to the trial's records and its latency
// histograms, every whole interval carries the target rate, and the consumers keep
// up, so the backlog at the end of each interval is at most a few batches.
func TestIntervals(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, client := range []v1alpha1.Client{v1alpha1.ClientSarama, v1alpha1.ClientFranz} {
		t.Run(string(client), func(t *testing.T) {
			const rate, seconds = 1000, 12
			s := spec("protobuf")
			s.Client, s.Producers, s.IntervalSeconds = client, 2, 2
			s.Rate.RecordsPerSecond = rate
			s.Records, s.DurationSeconds = nil, ptr(int32(seconds))
			s.Warmup = v1alpha1.Warmup{DurationSeconds: 2}
			trials, err := plan.Expand(s)
			if err != nil {
				t.Fatal(err)
			}
			res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Experiment: "it-intervals", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			if r.IntervalSeconds != 2 || len(r.Intervals) < seconds/2 || len(r.Intervals) > seconds/2+1 {
				t.Fatalf("%d intervals of %d s for a %d s window", len(r.Intervals), r.IntervalSeconds, seconds)
			}
			var records, offered, acks, e2es int64
			var covered float64
			for i, iv := range r.Intervals {
				records += iv.Records
				offered += iv.OfferedRecords
				acks += iv.Ack.Count
				e2es += iv.EndToEnd.Count
				covered += iv.Seconds
				whole := math.Abs(iv.Seconds-2) < 1e-9
				if whole && (math.Abs(iv.RecordsPerSecond-2*rate) > 0.02*2*rate || math.Abs(iv.OfferedRecordsPerSecond-2*rate) > 0.02*2*rate ||
					math.Abs(iv.ConsumedRecordsPerSecond-2*rate) > 0.02*2*rate) {
					t.Errorf("interval %d (%v): %.0f rec/s achieved, %.0f offered, %.0f consumed; want %d ± 2%%", i, iv.Start,
						iv.RecordsPerSecond, iv.OfferedRecordsPerSecond, iv.ConsumedRecordsPerSecond, 2*rate)
				}
				// Two producers' batches (acks=1, 5 ms linger) in flight at most.
				if iv.BacklogRecords > 2*rate/10 {
					t.Errorf("interval %d: backlog %d records, want at most %d", i, iv.BacklogRecords, 2*rate/10)
				}
				if iv.Records > 0 && (iv.Ack.P50 <= 0 || iv.EndToEnd.P50 < iv.Ack.P50/2 || iv.Ack.P99 > r.Ack.Max*101/100) {
					t.Errorf("interval %d: implausible latency: ack %+v, e2e %+v", i, iv.Ack, iv.EndToEnd)
				}
			}
			if records != r.Records || offered != r.Records || acks != r.Ack.Count || e2es != r.EndToEnd.Count {
				t.Fatalf("intervals hold %d records acknowledged, %d offered, %d ack and %d e2e latencies; the trial %d, %d, %d",
					records, offered, acks, e2es, r.Records, r.Ack.Count, r.EndToEnd.Count)
			}
			// The producers' window, extended to the consumers' last receipt.
			if covered < r.WindowSeconds-1e-6 || covered > r.WindowSeconds+1 {
				t.Fatalf("intervals cover %.3f s of a %.3f s window", covered, r.WindowSeconds)
			}
		})
	}
}
