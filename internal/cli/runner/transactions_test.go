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
	"github.com/serdebench/serdebench/workers/summary"
)

// TestTransactionsBrokerKill runs each transactional producer (franz-go's by
// time, librdkafka's by records; sarama's is refused) against
// read-committed consumers and SIGKILLs the (private) broker mid-transaction, as
// `serdebench run` does for a pod-kill fault. Its accounting must equal two
// independent read-backs of the topic:
//   - read committed: every record of a committed transaction, once; nothing else
//     (no duplicates, nothing of an aborted transaction);
//   - read uncommitted: every stored record the producer did not count committed
//     belongs to a transaction it counted aborted;
//
// and every record sent is in exactly one of the two. A kill that disturbed
// nothing (no abort, no wait of a second) proves nothing and fails.
func TestTransactionsBrokerKill(t *testing.T) {
	// A private broker's test that waits mostly on its broker's restarts and judges
	// exact counts, not times: the two such tests of this package run together
	// (TestLocalBrokerFaults, which bounds recovery times, runs alone).
	t.Parallel()
	broker := kafkatest.StartBroker(t, 19492)
	faults := &runner.Faults{Broker: &runner.BrokerScript{Path: broker.ScriptPath(), Env: broker.Environ()},
		Recovery: trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}}
	for _, c := range []struct {
		client   trial.Client
		txn      trial.Transactions
		inflight int32
	}{
		{trial.ClientFranz, trial.Transactions{TransactionMillis: 100}, 5},
		{trial.ClientRdkafka, trial.Transactions{RecordsPerTransaction: 50}, 5},
	} {
		t.Run(string(c.client)+"/txn="+c.txn.String(), func(t *testing.T) {
			const rate = 1000
			txn := c.txn
			trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecProtobuf},
				Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{256}}, DurationSeconds: ptr(int32(10)),
				IntervalSeconds: 1, Warmup: trial.Warmup{DurationSeconds: 2},
				Rate: v1alpha1.Rate{RecordsPerSecond: rate}, Consumers: 1, PoolSize: 32, Client: c.client,
				Producer: v1alpha1.ProducerSettings{Acks: trial.AcksAll, MaxInFlight: &c.inflight, LingerMs: ptr(int32(5)), Transactions: &txn},
				Consumer: v1alpha1.ConsumerSettings{Isolation: trial.IsolationReadCommitted},
				Faults: &v1alpha1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{{Name: "kill", StartSeconds: 4,
					Pod: &trial.PodFault{Action: trial.PodKill}}}}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			out, err := runner.RunTrial(ctx, trials[0], runner.Options{Brokers: broker.Bootstrap, Experiment: "it-txnkill",
				KeepTopics: true, TrialTimeout: 3 * time.Minute, Faults: faults})
			if err != nil {
				t.Fatal(err)
			}
			if f := out.Fault; f == nil || f.Applied.IsZero() {
				t.Fatalf("the kill was not applied: %+v", f)
			}
			r, tx := out.Result, out.Result.Transactions
			if tx == nil {
				t.Fatal("a transactional trial's result has no transactions")
			}
			committed, aborted, doubtful := map[int32]summary.Intervals{}, map[int32]summary.Intervals{}, map[int32]summary.Intervals{}
			var sent []int64
			for _, s := range out.Summaries {
				for _, d := range s.Acked {
					committed[int32(d.Partition)] = append(committed[int32(d.Partition)], d.Intervals...)
				}
				for _, d := range s.Aborted {
					aborted[int32(d.Partition)] = append(aborted[int32(d.Partition)], d.Intervals...)
				}
				for _, d := range s.InDoubt {
					doubtful[int32(d.Partition)] = append(doubtful[int32(d.Partition)], d.Intervals...)
				}
			}
			rc := readBack(t, broker.Bootstrap, out.Topic, out.Trial.Partitions, true)
			ru := readBack(t, broker.Bootstrap, out.Topic, out.Trial.Partitions, false)
			var inCommitted, abortedStored int64
			for p := range out.Trial.Partitions {
				cset, aset, dset := committed[p].Union(nil), aborted[p].Union(nil), doubtful[p].Union(nil)
				if rc[p].copies != rc[p].set.Size() {
					t.Errorf("partition %d: read committed, %d copies of %d records: duplicates", p, rc[p].copies, rc[p].set.Size())
				}
				// Committed: all read; a transaction in doubt (its commit unanswered)
				// may be read or not, but nothing else.
				if d := rc[p].set.Minus(cset).Minus(dset).Size() + cset.Minus(rc[p].set).Size(); d != 0 {
					t.Errorf("partition %d: read committed %v, the producer counted committed %v, in doubt %v (%d differ)", p, rc[p].set, cset, dset, d)
				}
				if limbo := ru[p].set.Minus(cset).Minus(aset).Minus(dset); limbo.Size() != 0 {
					t.Errorf("partition %d: stored records %v are neither committed nor in an aborted or in-doubt transaction", p, limbo)
				}
				if both := cset.Intersect(aset).Union(cset.Intersect(dset)).Union(aset.Intersect(dset)); both.Size() != 0 {
					t.Errorf("partition %d: records %v counted in two outcomes", p, both)
				}
				// Every sequence number the producer used has one outcome.
				all := cset.Union(aset).Union(dset)
				if n := all.Size(); n > 0 && (all[0][0] != 0 || len(all) != 1) {
					t.Errorf("partition %d: committed ∪ aborted is %v, not one run from 0", p, all)
				}
				sent = append(sent, all.Size())
				inCommitted += rc[p].set.Size()
				abortedStored += ru[p].set.Intersect(aset).Size()
			}
			t.Logf("%s txn=%s: %d committed (%.1f records each in the window, %.1f/s), %d aborted (%d records, %d of them stored; first: %q), %d in doubt (%d records, %d read committed); commit p50 %d µs, max %d µs; read committed %d; consumer delivered %d, duplicated %d; sent per partition %v",
				c.client, c.txn, tx.Committed, tx.RecordsPerTransaction, tx.PerSecond, tx.Aborted, tx.AbortedRecords, abortedStored, firstAbort(out.Summaries),
				tx.InDoubt, tx.InDoubtRecords, tx.InDoubtDelivered,
				tx.Commit.P50, tx.Commit.Max, inCommitted, r.Delivered, r.Duplicated, sent)
			if r.Lost != 0 || tx.AbortedDelivered != 0 || r.Delivered != inCommitted {
				t.Fatalf("lost %d, aborted records delivered %d, delivered %d of %d committed", r.Lost, tx.AbortedDelivered, r.Delivered, inCommitted)
			}
			if tx.Commit.Count == 0 || tx.RecordsPerTransaction <= 0 || tx.PerSecond <= 0 {
				t.Fatalf("no measured transactions: %+v", tx)
			}
			// A transaction holds at most the records asked for, or those due within
			// its span of schedule time (a stall does not pack the backlog into one).
			limit := float64(c.txn.RecordsPerTransaction)
			if c.txn.TransactionMillis > 0 {
				limit = float64(rate*c.txn.TransactionMillis)/1000 + 1
			}
			if tx.RecordsPerTransaction > limit {
				t.Fatalf("%.1f records per transaction, more than the %.0f its setting allows", tx.RecordsPerTransaction, limit)
			}
			if tx.Aborted == 0 && tx.InDoubt == 0 && tx.Commit.Max < time.Second.Microseconds() && r.Ack.Max < time.Second.Microseconds() {
				t.Fatalf("the kill did not disturb the trial (no abort, slowest commit %d µs, slowest ack %d µs): the test proves nothing", tx.Commit.Max, r.Ack.Max)
			}
		})
	}
}

// firstAbort is the first producer's reason its first transaction aborted.
func firstAbort(sums []*summary.Summary) string {
	for _, s := range sums {
		if s.Transactions != nil && s.Transactions.FirstAbort != "" {
			return s.Transactions.FirstAbort
		}
	}
	return ""
}
