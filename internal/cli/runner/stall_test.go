package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestStallMeasuresAKnownPause: one of two consumers stops taking records for a
// known time, staying in its group. The result must report a stall of that
// length on each partition it held, and none on the others; the records delayed
// are what the producers sent to those partitions meanwhile; the baseline trial
// beside it, healthy, has no stall at all. The pause varies with the client,
// from 1 s to 4 s. A trial that fails these checks runs again, twice at most.
func TestStallMeasuresAKnownPause(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, c := range []struct {
		client trial.Client
		pause  int32
	}{{trial.ClientFranz, 1}, {trial.ClientSarama, 4}, {trial.ClientRdkafka, 2}} {
		t.Run(string(c.client), func(t *testing.T) {
			const rate, partitions = 3000, 3 // records/s; the topic's
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
				// A stall the machine caused (a starved broker or consumer on a loaded
				// 2-core machine) is a real one, not the detector's error: a trial whose
				// checks fail is run again, twice at most. A detector that invents or
				// mismeasures stalls every time fails all three; one wrong only now
				// and then can pass, which the retry's log lines show.
				var problems []string
				for attempt := 1; attempt <= 3; attempt++ {
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					out, err := runner.RunTrial(ctx, tr, runner.Options{Brokers: brokers, Experiment: "it-stall", TrialTimeout: 2 * time.Minute,
						Faults: &runner.Faults{}})
					cancel()
					if err != nil {
						t.Fatal(err)
					}
					if r := out.Result; r.Lost != 0 || r.Errors != 0 {
						t.Fatalf("%s: lost %d, errors %d", tr.Name, r.Lost, r.Errors)
					}
					if problems = checkStalls(t, tr, out, c.pause, rate, partitions); len(problems) == 0 {
						break
					}
					t.Logf("%s, attempt %d: %s", tr.Name, attempt, strings.Join(problems, "; "))
				}
				if len(problems) > 0 {
					t.Fatalf("%s: three attempts, each failed; the last: %s", tr.Name, strings.Join(problems, "; "))
				}
			}
		})
	}
}

// checkStalls says what is wrong with a trial's stalls: the healthy baseline must
// have none; the paused consumer's partitions, one stall each of the pause's
// length, with the records sent to them meanwhile delayed. It logs what it found.
func checkStalls(t *testing.T, tr trial.Trial, out *report.TrialResult, pause int32, rate, partitions float64) []string {
	st := out.Result.Stalls
	if tr.Fault == nil {
		if st != nil {
			return []string{fmt.Sprintf("a healthy trial stalled: %+v", st)}
		}
		return nil
	}
	want := time.Duration(pause) * time.Second
	if st == nil || out.Fault == nil || out.Fault.Applied.IsZero() {
		return []string{fmt.Sprintf("no stall measured (fault %+v)", out.Fault)}
	}
	// The paused consumer held one or two of the three partitions.
	if st.Count != st.Partitions || st.Partitions < 1 || st.Partitions > 2 {
		return []string{fmt.Sprintf("%d stalls on %d partitions: want one on each of the paused consumer's (1 or 2): %+v", st.Count, st.Partitions, st)}
	}
	var problems []string
	slack := time.Duration(st.SlackMicros) * time.Microsecond
	if slack > want/4 {
		problems = append(problems, fmt.Sprintf("slack %s: a healthy trial's records are available within a quarter of the pause", slack))
	}
	for _, e := range st.Events {
		got := time.Duration(e.Micros) * time.Microsecond
		// The pause starts at the consumer's next poll, a few ms after its
		// last receipt, and ends with the next receipt; a stall counts from
		// when its first record became available, which the slack (the
		// ack p99) may put up to that much later (docs/measurement.md).
		if d := got - want; d < -slack-50*time.Millisecond || d > 250*time.Millisecond || e.Moved {
			problems = append(problems, fmt.Sprintf("partition %d stalled %s (moved %v, slack %s): want the pause's %s", e.Partition, got, e.Moved, slack, want))
		}
		// Sent to the partition meanwhile: the pause × its share of the rate.
		sent := rate / partitions * want.Seconds()
		if f := float64(e.Delayed) / sent; f < 0.9 || f > 1.1 {
			problems = append(problems, fmt.Sprintf("partition %d: %d records delayed, want about %.0f", e.Partition, e.Delayed, sent))
		}
		t.Logf("%s: partition %d stalled %s for a %s pause (slack %s); %d records delayed (%.0f sent meanwhile), their latency up to %.0f ms",
			tr.Name, e.Partition, got.Round(time.Millisecond), want, slack.Round(time.Millisecond), e.Delayed, sent, float64(e.DelayedMaxMicros)/1e3)
	}
	return problems
}
