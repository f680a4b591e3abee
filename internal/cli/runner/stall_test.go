package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestStallMeasuresAKnownPause: one of two consumers stops taking records for a
// known time, staying in its group. The result must report a stall of that
// length on each partition it held, and none on the others; the records delayed
// are what the producers sent to those partitions meanwhile; the baseline trial
// beside it, healthy, has no stall at all. The pause varies with the client,
// from 1 s to 4 s.
func TestStallMeasuresAKnownPause(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, c := range []struct {
		client trial.Client
		pause  int32
	}{{trial.ClientFranz, 1}, {trial.ClientSarama, 4}, {trial.ClientRdkafka, 2}} {
		t.Run(string(c.client), func(t *testing.T) {
			const rate, partitions = 3000, 3
			trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecProtobuf},
				Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{256}}, DurationSeconds: ptr(c.pause + 5),
				IntervalSeconds: 1, Warmup: trial.Warmup{DurationSeconds: 2},
				Rate: v1alpha1.Rate{RecordsPerSecond: rate}, Consumers: 2, PoolSize: 32, Client: c.client,
				Faults: &v1alpha1.Faults{Scenarios: []trial.Fault{{Name: "pause", StartSeconds: 3, DurationSeconds: c.pause,
					Consumers: &trial.ConsumerFault{Action: trial.ConsumerPause}}}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, tr := range trials {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				out, err := runner.RunTrial(ctx, tr, runner.Options{Brokers: brokers, Experiment: "it-stall", TrialTimeout: 2 * time.Minute,
					Faults: &runner.Faults{}})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				r := out.Result
				if r.Lost != 0 || r.Errors != 0 {
					t.Fatalf("%s: lost %d, errors %d", tr.Name, r.Lost, r.Errors)
				}
				if tr.Fault == nil {
					if r.Stalls != nil {
						t.Fatalf("%s: a healthy trial stalled: %+v", tr.Name, r.Stalls)
					}
					continue
				}
				st, want := r.Stalls, time.Duration(c.pause)*time.Second
				if st == nil || out.Fault == nil || out.Fault.Applied.IsZero() {
					t.Fatalf("%s: no stall measured (fault %+v)", tr.Name, out.Fault)
				}
				// The paused consumer held one or two of the three partitions.
				if st.Count != st.Partitions || st.Partitions < 1 || st.Partitions > 2 {
					t.Fatalf("%s: %d stalls on %d partitions: want one on each of the paused consumer's (1 or 2)", tr.Name, st.Count, st.Partitions)
				}
				for _, e := range st.Events {
					got := time.Duration(e.Micros) * time.Microsecond
					// The pause starts at the consumer's next poll, a few ms after its
					// last receipt, and ends with the next receipt; a stall counts from
					// when its first record became available, which the slack (the
					// ack p99) may put up to that much later (docs/measurement.md).
					slack := time.Duration(st.SlackMicros) * time.Microsecond
					if d := got - want; d < -slack-50*time.Millisecond || d > 250*time.Millisecond || e.Moved {
						t.Errorf("%s: partition %d stalled %s (moved %v, slack %s): want the pause's %s", tr.Name, e.Partition, got, e.Moved, slack, want)
					}
					if slack > want/4 {
						t.Errorf("%s: slack %s: a healthy trial's records are available within a quarter of the pause", tr.Name, slack)
					}
					// Sent to the partition meanwhile: the pause × its share of the rate.
					sent := float64(rate) / partitions * want.Seconds()
					if f := float64(e.Delayed) / sent; f < 0.9 || f > 1.1 {
						t.Errorf("%s: partition %d: %d records delayed, want about %.0f", tr.Name, e.Partition, e.Delayed, sent)
					}
					t.Logf("%s: partition %d stalled %s for a %s pause (slack %s); %d records delayed (%.0f sent meanwhile), their latency up to %.0f ms",
						tr.Name, e.Partition, got.Round(time.Millisecond), want, slack.Round(time.Millisecond), e.Delayed, sent, float64(e.DelayedMaxMicros)/1e3)
				}
			}
		})
	}
}
