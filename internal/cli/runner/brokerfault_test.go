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

// TestLocalBrokerFaults runs a pod fault without Kubernetes: serdebench run kills
// (SIGKILL) or fails (stops, and restarts after the fault's duration) a private
// broker through hack/kafka/kafka.sh mid-trial. The fault is recorded when it was
// applied, the trial is split at it, the broker serves again afterwards, and the
// delivery counts equal a read-back of the topic; with acks=all nothing
// acknowledged is lost.
func TestLocalBrokerFaults(t *testing.T) {
	broker := kafkatest.StartBroker(t, 19392)
	faults := &runner.Faults{Broker: &runner.BrokerScript{Path: broker.ScriptPath(), Env: broker.Environ()},
		Recovery: trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}}
	for _, c := range []struct {
		client   trial.Client
		acks     trial.Acks
		action   trial.PodAction
		duration int32
	}{
		{trial.ClientFranz, trial.AcksAll, trial.PodKill, 0},
		{trial.ClientSarama, trial.AcksLeader, trial.PodFailure, 4},
	} {
		t.Run(string(c.action)+"/"+string(c.client)+"/acks="+string(c.acks), func(t *testing.T) {
			trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecProtobuf},
				Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{256}}, DurationSeconds: ptr(int32(30)),
				IntervalSeconds: 1, Warmup: trial.Warmup{DurationSeconds: 3},
				Rate: v1alpha1.Rate{RecordsPerSecond: 1000}, Consumers: 1, PoolSize: 32, Client: c.client,
				Producer: v1alpha1.ProducerSettings{Acks: c.acks, LingerMs: ptr(int32(5))},
				Faults: &v1alpha1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{{Name: "broker", StartSeconds: 6,
					DurationSeconds: c.duration, Pod: &trial.PodFault{Action: c.action}}}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(trials) != 1 || trials[0].Fault == nil {
				t.Fatalf("want one faulted trial, got %+v", trials)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := runner.RunTrial(ctx, trials[0], runner.Options{Brokers: broker.Bootstrap, Experiment: "it-brokerfault",
				KeepTopics: true, TrialTimeout: 3 * time.Minute, Faults: faults})
			if err != nil {
				t.Fatal(err)
			}
			if msg, err := broker.Script("status"); err != nil {
				t.Fatalf("the broker is not running after the trial: %v\n%s", err, msg)
			}
			f, r := out.Fault, out.Result
			if f == nil || f.Action != string(c.action) || f.Applied.IsZero() || !f.Ready.After(f.Applied) || f.Rig != nil {
				t.Fatalf("fault record %+v", f)
			}
			if c.action == trial.PodKill && !f.Removed.IsZero() {
				t.Fatalf("a kill acts once, but the record has an end: %+v", f)
			}
			if f.Down.Before(f.Applied) || f.Ready.Before(f.Down) {
				t.Fatalf("fault record out of order: %+v", f)
			}
			if c.action == trial.PodFailure {
				// 4 s from the stop's start, or when the stop ended if it took longer.
				want := later(f.Applied.Add(4*time.Second), f.Down)
				if d := f.Removed.Sub(want); d < 0 || d > 500*time.Millisecond {
					t.Fatalf("the failure ended %s after it was due: %+v", d, f)
				}
			}
			if late := f.Applied.Sub(f.Due); late < 0 || late > time.Second {
				t.Fatalf("applied %s after it was due", late)
			}
			a := account(t, out, broker.Bootstrap)
			ph := r.Phases
			if ph == nil || ph.Before == nil || ph.During == nil || len(r.Intervals) == 0 {
				t.Fatalf("phases %+v, %d intervals", ph, len(r.Intervals))
			}
			// The phases count from the measured window's start, which lies in the
			// series' first interval: the fault's offset must put it there.
			if ws, first := f.Applied.Add(-time.Duration(ph.FaultStartMillis)*time.Millisecond), r.Intervals[0].Start; ws.Before(first.Add(-time.Millisecond)) ||
				!ws.Before(first.Add(time.Duration(r.IntervalSeconds)*time.Second)) {
				t.Fatalf("the fault, applied at %s, is %d ms into the window: the window would start at %s, outside its first interval from %s",
					f.Applied, ph.FaultStartMillis, ws, first)
			}
			rec := "none: " + ph.RecoveryNote
			if ph.RecoveryMillis != nil {
				rec = (time.Duration(*ph.RecoveryMillis) * time.Millisecond).String()
			}
			t.Logf("%s: stop %s, down %s (restart %s); sent %d, failed %d, lost %d, duplicated %d, in topic %d (%d copies); during: %d rec/s, ack p99 %.0f ms; recovery %s",
				c.action, f.Down.Sub(f.Applied).Round(time.Millisecond), f.Ready.Sub(f.Applied).Round(time.Millisecond), f.Ready.Sub(later(f.Applied, f.Removed)).Round(time.Millisecond),
				r.Sent, r.Failed, r.Lost, r.Duplicated, a.inLog, a.copies, ph.During.RecordsPerSecond, float64(ph.During.AckMicros.P99)/1e3, rec)
			// The broker was away for seconds: the records due meanwhile waited (or
			// failed). A fault that did not disturb the trial proves nothing.
			if ph.During.AckMicros.Max < 1e6 && r.Failed == 0 {
				t.Fatalf("the %s did not disturb the trial: during-phase ack max %d µs, nothing failed", c.action, ph.During.AckMicros.Max)
			}
			if c.acks == trial.AcksAll && r.Lost != 0 {
				t.Fatalf("acks=all lost %d acknowledged records", r.Lost)
			}
		})
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
