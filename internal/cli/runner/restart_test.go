package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestBrokerRestartAccounting restarts the (private) broker in the middle of an
// acks=1 and an acks=0 trial. Sends fail while it is down and consumers rejoin when
// it is back; the trial completes, and its delivery counts equal an independent
// read-back of every offset of the topic: delivered is what the log holds, lost is
// acknowledged ∖ log, unacknowledgedDelivered is log ∖ acknowledged, failed is what
// the producer reported failing.
func TestBrokerRestartAccounting(t *testing.T) {
	// A private broker's test that waits mostly on its broker's restarts and judges
	// exact counts, not times: the two such tests of this package run together
	// (TestLocalBrokerFaults, which bounds recovery times, runs alone).
	t.Parallel()
	broker := kafkatest.StartBroker(t, 19292)
	for _, c := range []struct {
		client trial.Client
		acks   trial.Acks
	}{{trial.ClientSarama, trial.AcksLeader}, {trial.ClientSarama, trial.AcksNone}, {trial.ClientFranz, trial.AcksLeader}, {trial.ClientRdkafka, trial.AcksLeader}} {
		acks := c.acks
		t.Run(string(c.client)+"/acks="+string(acks), func(t *testing.T) {
			records := int64(24000) // 12 s at 2000 rec/s
			trials, err := plan.Expand(v1alpha1.ExperimentSpec{Codecs: []trial.Codec{trial.CodecProtobuf},
				Payload: v1alpha1.PayloadSpec{Schema: "simple", SizesBytes: []int32{256}}, Records: &records,
				Rate: v1alpha1.Rate{RecordsPerSecond: 2000}, Consumers: 2, PoolSize: 32, Client: c.client,
				Producer: v1alpha1.ProducerSettings{Acks: acks, LingerMs: ptr(int32(5))}})
			if err != nil {
				t.Fatal(err)
			}
			tr := trials[0]
			type outcome struct {
				res *report.TrialResult
				err error
			}
			done := make(chan outcome, 1)
			before := kafkatest.Topics(t, broker.Bootstrap)
			// A test that fails while it waits must not leave the trial running.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				res, err := runner.RunTrial(ctx, tr, runner.Options{Brokers: broker.Bootstrap, Experiment: "it-restart",
					KeepTopics: true, TrialTimeout: 3 * time.Minute})
				done <- outcome{res, err}
			}()
			// Group settled and sending for a few seconds (of the trial's 12).
			kafkatest.WaitForRecords(t, broker.Bootstrap, before, "sx.it-restart.", 6000, time.Minute)
			if out, err := broker.Script("restart"); err != nil {
				t.Fatalf("restart: %v\n%s", err, out)
			}
			o := <-done
			if o.err != nil {
				t.Fatal(o.err)
			}
			r := o.res.Result
			a := account(t, o.res, broker.Bootstrap)
			t.Logf("%s acks=%s: sent(acked) %d, failed %d, delivered %d, lost %d, unacknowledged-delivered %d, duplicated %d; log: %d distinct of %d copies",
				c.client, acks, r.Sent, r.Failed, r.Delivered, r.Lost, r.UnacknowledgedDelivered, r.Duplicated, a.inLog, a.copies)
			// sarama gives up on sends while the broker is away; franz-go retries
			// them through the restart, and its consumers re-read after rejoining;
			// librdkafka holds them until the broker is back (their acknowledgements
			// waited out the restart).
			waited := r.Ack.Max >= time.Second.Microseconds()
			if r.Failed == 0 && r.Lost == 0 && (c.client == trial.ClientSarama || r.Duplicated == 0) && (c.client != trial.ClientRdkafka || !waited) {
				t.Fatalf("the restart did not disturb the trial (nothing failed, lost or re-read; slowest ack %d µs): the test proves nothing", r.Ack.Max)
			}
			if acks == trial.AcksLeader && r.Lost != 0 {
				t.Fatalf("acks=1 on a cleanly restarted broker lost %d acknowledged records", r.Lost)
			}
			// Every record the producer sent is accounted for: acknowledged or failed.
			if r.Sent+r.Failed != tr.Records {
				t.Fatalf("acknowledged %d + failed %d != %d sent", r.Sent, r.Failed, tr.Records)
			}
		})
	}
}

// accounting is a trial's delivery counts from an independent read-back of its
// topic and the producers' own sets.
type accounting struct {
	inLog, copies, lost, unacked, failed int64
}

// account reads the trial's topic back and fails the test unless the result's
// delivered, lost, unacknowledged-delivered and failed counts equal it: delivered
// is what the log holds, lost is acknowledged ∖ log, unacknowledgedDelivered is
// log ∖ acknowledged, failed is what the producers reported failing.
func account(t *testing.T, res *report.TrialResult, brokers []string) accounting {
	t.Helper()
	var a accounting
	acked := map[int32]summary.Intervals{}
	for _, s := range res.Summaries {
		for _, d := range s.Acked {
			acked[int32(d.Partition)] = append(acked[int32(d.Partition)], d.Intervals...)
		}
		for _, d := range s.Failed {
			a.failed += d.Intervals.Size()
		}
	}
	log := readBack(t, brokers, res.Topic, res.Trial.Partitions, false)
	for p := range res.Trial.Partitions {
		a.inLog += log[p].set.Size()
		a.copies += log[p].copies
		a.lost += acked[p].Minus(log[p].set).Size()
		a.unacked += log[p].set.Minus(acked[p]).Size()
	}
	r := res.Result
	if r.Delivered != a.inLog || r.Lost != a.lost || r.UnacknowledgedDelivered != a.unacked || r.Failed != a.failed {
		t.Fatalf("result delivered %d lost %d unacknowledged-delivered %d failed %d; read-back %d, %d, %d, producer failed %d",
			r.Delivered, r.Lost, r.UnacknowledgedDelivered, r.Failed, a.inLog, a.lost, a.unacked, a.failed)
	}
	return a
}

type partitionLog struct {
	set    summary.Intervals
	copies int64
}

// readBack is kafkatest.ReadBack by partition, for these single-producer tests: a
// second producer's records on a partition fail the test.
func readBack(t *testing.T, brokers []string, topic string, partitions int32, committed bool) map[int32]partitionLog {
	t.Helper()
	out := map[int32]partitionLog{}
	for s, l := range kafkatest.ReadBack(t, brokers, topic, partitions, committed) {
		if s.Producer != 0 {
			t.Fatalf("read-back of %s: records of producer %d on partition %d in a one-producer test", topic, s.Producer, s.Partition)
		}
		out[s.Partition] = partitionLog{set: l.Set, copies: l.Copies}
	}
	return out
}

// eachRecord calls fn with every record of one partition, from the first offset to
// the end the partition has now, read with a plain consumer (no group).
func eachRecord(t *testing.T, brokers []string, topic string, p int32, fn func(*sarama.ConsumerMessage)) {
	t.Helper()
	c, err := sarama.NewClient(brokers, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	cons, err := sarama.NewConsumerFromClient(c)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cons.Close() }()
	end, err := c.GetOffset(topic, p, sarama.OffsetNewest)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := cons.ConsumePartition(topic, p, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pc.Close() }()
	for next := int64(0); next < end; {
		select {
		case m := <-pc.Messages():
			next = m.Offset + 1
			fn(m)
		case <-time.After(30 * time.Second):
			t.Fatalf("read-back of partition %d of %s stalled before offset %d", p, topic, end)
		}
	}
}
