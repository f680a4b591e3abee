package controllers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestConsumerGroupEvents: the operator acts out a consumers fault itself, over
// HTTP to the consumer's control endpoint, without Chaos Mesh: a standby
// consumer joins (its summary counts), the last consumer leaves (the other
// finishes its partitions), and the last consumer pauses for 2 s (its partitions
// stall about that long, and do not move). Each fault's status names
// the consumer's pod and its time, and the result is split at it.
func TestConsumerGroupEvents(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	ctx := context.Background()
	startManager(t, nil, newKubelet(t, ns, brokers))
	create(t, experiment(ns, "rebalance", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Codecs = []trial.Codec{"protobuf"}
		x.Spec.Client = trial.ClientFranz
		x.Spec.Records, x.Spec.DurationSeconds, x.Spec.IntervalSeconds = nil, ptr(int32(9)), 1
		x.Spec.Warmup = trial.Warmup{DurationSeconds: 1}
		x.Spec.Rate.RecordsPerSecond = 600
		x.Spec.Faults = &serdebenchv1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{
			{Name: "join", StartSeconds: 2, Consumers: &trial.ConsumerFault{Action: trial.ConsumerJoin}},
			{Name: "leave", StartSeconds: 2, Consumers: &trial.ConsumerFault{Action: trial.ConsumerLeave}},
			{Name: "pause", StartSeconds: 2, DurationSeconds: 2, Consumers: &trial.ConsumerFault{Action: trial.ConsumerPause}},
		}}
	}))
	x := waitStage(t, ns, "rebalance", serdebenchv1.StageSucceeded, 3*time.Minute)
	res := &serdebenchv1.SerializationResult{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "rebalance"}, res); err != nil {
		t.Fatal(err)
	}
	if len(res.Trials) != 3 {
		t.Fatalf("%d trials, want 3", len(res.Trials))
	}
	for i, tr := range res.Trials {
		fs := x.Status.Trials[i].Fault
		if fs == nil || tr.Fault == nil || tr.Name != x.Status.Trials[i].Name {
			t.Fatalf("trial %d: status %+v, result %s with fault %+v", i, fs, tr.Name, tr.Fault)
		}
		name := fs.Name
		if fs.InjectedTime == nil || fs.Phase != serdebenchv1.FaultRemoved || len(fs.Objects) != 0 || len(fs.Targets) != 1 ||
			!strings.HasPrefix(fs.Targets[0], ns+"/rebalance-") || !strings.Contains(fs.Targets[0], "-consumers-") {
			t.Errorf("%s: fault status %+v: want applied to one consumer pod, no Chaos Mesh object", name, fs)
			continue
		}
		if tr.LostRecords != 0 || tr.Phases == nil || tr.Phases.During == nil {
			t.Errorf("%s: lost %d, phases %+v", name, tr.LostRecords, tr.Phases)
		}
		st := tr.Stalls
		switch name {
		case "join":
			if tr.Consumers != 3 {
				t.Errorf("join: %d consumers reported, want the 2 and the standby that joined", tr.Consumers)
			}
		case "leave":
			// The trial completed, so the other consumer took the leaver's
			// partitions over, and the leaver's summary says it left (collect
			// fails the trial otherwise); how long the takeover took varies with
			// the heartbeat (0.2–0.5 s here), so a stall is not always long
			// enough to count, but one that counts moved.
			if tr.Consumers != 2 || (st != nil && st.Moved < 1) {
				t.Errorf("leave: %d consumers, stalls %+v: want both summaries, and a stall only where the leaver's partitions moved", tr.Consumers, st)
			}
		case "pause":
			if fs.RecoveredTime == nil || tr.Phases.After == nil {
				t.Errorf("pause: recovered %v, after-phase %+v: want the pause over within the window", fs.RecoveredTime, tr.Phases.After)
			}
			// A stall counts from when its records became available, up to the
			// slack (the ack p99) late: the bound below holds only while the
			// slack is at most a quarter of the pause (as TestStallMeasuresAKnownPause
			// asks), so that is checked first, not read into the bound.
			if st == nil || time.Duration(st.SlackMicros)*time.Microsecond > 500*time.Millisecond {
				t.Errorf("pause: stalls %+v: want a stall, with a slack of at most a quarter of the 2 s pause", st)
			} else if st.Moved != 0 || time.Duration(st.MaxMicros)*time.Microsecond < 2*time.Second-550*time.Millisecond ||
				time.Duration(st.MaxMicros)*time.Microsecond > 2*time.Second+500*time.Millisecond {
				t.Errorf("pause: stalls %+v: want the paused consumer's partitions to stall about 2 s, not moved", st)
			}
		}
		t.Logf("%s: e2e p99 %d µs max %d µs; during %+v", name, tr.EndToEndMicros.P99, tr.EndToEndMicros.Max, tr.Phases.During)
		if st != nil {
			t.Logf("%s: %d consumers; %d stalls, longest %.2f s, moved %d, %d records delayed", name, tr.Consumers, st.Count, float64(st.MaxMicros)/1e6, st.Moved, st.DelayedRecords)
		}
	}
}
