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

// TestShareGroupRedeliveries runs share groups whose consumers release one record
// in N on every delivery (share.releaseOneIn), so the redeliveries are known in
// advance from an independent read-back of the topic: each such record is
// delivered deliveryCountLimit times, then archived; every other record once. The
// result must count exactly that, lose nothing the read-back holds, and call
// the extra copies duplicates, not failures. The operating point varies: 6
// consumers (sharing the 3 partitions) acknowledging explicitly, and 3 (one
// partition each) acknowledging implicitly while one of them leaves mid-window,
// whose fetched but unprocessed records the broker delivers again: redeliveries,
// yet no record processed twice beyond the releases.
func TestShareGroupRedeliveries(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, c := range []struct {
		name              string
		consumers         int32
		ack               trial.ShareAcknowledgement
		releaseOneIn, lim int32
		leave             bool
	}{
		{"6-explicit", 6, trial.ShareAckExplicit, 20, 5, false},
		{"3-implicit-leave", 3, trial.ShareAckImplicit, 50, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecProtobuf},
				Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{256}}, DurationSeconds: ptr(int32(5)),
				IntervalSeconds: 1, Warmup: trial.Warmup{DurationSeconds: 1},
				Rate: v1alpha1.Rate{RecordsPerSecond: 2000}, Consumers: c.consumers, PoolSize: 32, Client: trial.ClientFranz,
				Consumer: v1alpha1.ConsumerSettings{GroupType: trial.GroupTypeShare,
					Share: &v1alpha1.ShareSpec{Acknowledgement: c.ack, ReleaseOneIn: ptr(c.releaseOneIn), DeliveryCountLimit: ptr(c.lim)}}}
			if c.leave {
				spec.Faults = &v1alpha1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{{Name: "leave", StartSeconds: 2,
					Consumers: &trial.ConsumerFault{Action: trial.ConsumerLeave}}}}
			}
			trials, err := plan.Expand(spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(trials) != 1 {
				t.Fatalf("%d trials, want 1", len(trials))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := runner.RunTrial(ctx, trials[0], runner.Options{Brokers: brokers, Experiment: "it-share", TrialTimeout: 2 * time.Minute, KeepTopics: true,
				Faults: &runner.Faults{}})
			if err != nil {
				t.Fatal(err)
			}
			r, sh := out.Result, out.Result.Share
			if sh == nil {
				t.Fatalf("no share block in the result: %+v", r)
			}
			if c.leave && (out.Fault == nil || out.Fault.Applied.IsZero()) {
				t.Fatalf("the leave was not applied: %+v", out.Fault)
			}
			// The known truth: the topic as a plain consumer reads it, and in it
			// the records every delivery of which is released.
			log := readBack(t, brokers, out.Topic, out.Trial.Partitions, false)
			var stored, poison int64
			for _, pl := range log {
				stored += pl.set.Size()
				for _, iv := range pl.set {
					for seq := iv[0]; seq < iv[1]; seq++ {
						if seq%int64(c.releaseOneIn) == 0 {
							poison++
						}
					}
				}
			}
			if poison == 0 || stored != r.Sent {
				t.Fatalf("read-back: %d records (%d released each delivery); producer acknowledged %d", stored, poison, r.Sent)
			}
			known := poison * int64(c.lim-1) // redeliveries the releases make
			if r.Lost != 0 || r.Delivered != stored || r.Errors != 0 {
				t.Errorf("delivered %d of %d stored, lost %d, errors %d: want every stored record received", r.Delivered, stored, r.Lost, r.Errors)
			}
			if sh.Acknowledgement != string(c.ack) || (c.ack == trial.ShareAckExplicit) != (sh.Ack.Count > 0) || sh.AckErrors != 0 {
				t.Errorf("acknowledgement %s with %d timed, %d refused: want %s, timed only when explicit, none refused (no lock expired)",
					sh.Acknowledgement, sh.Ack.Count, sh.AckErrors, c.ack)
			}
			if !c.leave {
				// Healthy: each released record delivered exactly the limit's times,
				// every other record once.
				if sh.Released != poison*int64(c.lim) || sh.Archived != poison || sh.MaxDeliveryCount != c.lim ||
					sh.Redelivered != known || r.Duplicated != known {
					t.Errorf("released %d, archived %d, max delivery count %d, redelivered %d, duplicated %d: want %d, %d, %d, %d, %d (%d records released on each of %d deliveries)",
						sh.Released, sh.Archived, sh.MaxDeliveryCount, sh.Redelivered, r.Duplicated, poison*int64(c.lim), poison, c.lim, known, known, poison, c.lim)
				}
			} else {
				// The leaving member accepted what it processed and its client
				// released what it had fetched unseen: those deliveries count for the
				// broker (a released record may reach its limit unseen) and reach
				// another member as redeliveries, but nothing is processed twice
				// beyond the releases.
				if r.Duplicated != sh.Released-poison || sh.Released > poison*int64(c.lim) || sh.Archived > poison ||
					sh.Redelivered < r.Duplicated || sh.MaxDeliveryCount != c.lim {
					t.Errorf("released %d, archived %d, redelivered %d, duplicated %d, max delivery count %d: want duplicates = releases - %d released records, "+
						"at most %d releases and %d archived, redeliveries at least the duplicates, the limit's %d deliveries",
						sh.Released, sh.Archived, sh.Redelivered, r.Duplicated, sh.MaxDeliveryCount, poison, poison*int64(c.lim), poison, c.lim)
				}
			}
			// Kafka 4.4 persists the share group's lag in order
			// (apache/kafka#23112): it reaches 0, and the quiet-time rule kept
			// for 4.3's stale count never has to end the trial.
			if kafkatest.AtLeast(t, 4, 4) && sh.SettledLag != 0 {
				t.Errorf("Kafka %s: the trial ended by the quiet-time rule with a lag of %d still reported; want the lag to reach 0",
					kafkatest.Release(t), sh.SettledLag)
			}
			t.Logf("Kafka %s, %s: %d stored, %d released each delivery; settled lag %d; deliveries %d, redelivered %d (releases %d), duplicated %d, archived %d; ack p50 %d µs p99 %d µs; e2e p50 %d µs p99 %d µs",
				kafkatest.Release(t), c.name, stored, poison, sh.SettledLag, sh.Deliveries, sh.Redelivered, known, r.Duplicated, sh.Archived, sh.Ack.P50, sh.Ack.P99, r.EndToEnd.P50, r.EndToEnd.P99)
		})
	}
}
