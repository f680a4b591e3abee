package consumer

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/kubetest"
	"github.com/serdebench/serdebench/internal/topics"
)

// TestLagWatch: offsets count as settled only once they have stayed the same for
// the quiet time, counted afresh at any change (a start offset's too), after a
// look that failed or looks too far apart, and from no earlier than the end of
// the member's own pause.
func TestLagWatch(t *testing.T) {
	t0 := time.Unix(1_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	a := map[int32]shareOffset{0: {start: 3960, lag: 1}, 1: {start: 3980, lag: 0}}
	b := map[int32]shareOffset{0: {start: 3960, lag: 0}, 1: {start: 3980, lag: 0}}
	a2 := map[int32]shareOffset{0: {start: 3960, lag: 1}, 1: {start: 3980, lag: 0}}
	c := map[int32]shareOffset{0: {start: 3980, lag: 1}, 1: {start: 3980, lag: 0}}
	w := lagWatch{quiet: 40 * time.Second}
	for i, step := range []struct {
		at, pauseEnd float64
		seen         map[int32]shareOffset
		want         bool
	}{
		{0, 0, a, false},   // first look
		{10, 0, a2, false}, // the same offsets (an equal map), not yet for the quiet time
		{20, 0, a, false},
		{30, 0, a, false},
		{39.9, 0, a, false},
		{40, 0, a, true},  // the same for 40 s
		{41, 0, b, false}, // a change starts afresh
		{50, 0, a, false}, // and another
		{60, 0, a, false},
		{70, 0, a, false},
		{80, 0, a, false},
		{90, 100, a, false}, // the same for 40 s, but the member is paused until 100
		{100, 100, a, false},
		{110, 100, a, false},
		{120, 100, a, false},
		{130, 100, a, false},
		{140, 100, a, true}, // 40 s after its pause ended
		{141, 0, c, false},  // only a start offset moved: a change
		{151, 0, c, false},  // looks 10 s apart
		{171, 0, c, false},  // then 20 s without a look: not seen, not quiet
		{181, 0, c, false},
		{191, 0, c, false},
		{201, 0, c, false},
		{211, 0, c, true}, // 40 s of looks at most 10 s apart
	} {
		from := time.Time{}
		if step.pauseEnd > 0 {
			from = at(step.pauseEnd)
		}
		if got := w.settled(at(step.at), from, step.seen); got != step.want {
			t.Errorf("step %d at %.1f s: settled %v, want %v", i, step.at, got, step.want)
		}
	}
}

// TestRecordLockDuration reads a share group's record lock duration from a real
// broker: Kafka's default for a group that sets none, the group's own value once
// it sets one.
func TestRecordLockDuration(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	group := fmt.Sprintf("sx.unit-lock.%d", time.Now().UnixNano())
	got, err := recordLockDuration(ctx, cl, group)
	if err != nil || got != 30*time.Second {
		t.Fatalf("group without its own value: %v, %v; want Kafka's default group.share.record.lock.duration.ms, 30s", got, err)
	}
	if err := setGroupConfigs(ctx, cl, group, map[string]string{lockConfig: "20000"}); err != nil {
		t.Fatal(err)
	}
	// The broker applies a group's configs through its metadata log: a read at once
	// may still see the default (it did once in a full unit run).
	kubetest.WaitFor(t, 10*time.Second, 100*time.Millisecond, fmt.Sprintf("group with %s=20000 read as 20s", lockConfig), func() (bool, error) {
		got, err = recordLockDuration(ctx, cl, group)
		if err == nil && got != 20*time.Second {
			err = fmt.Errorf("read %s", got)
		}
		return err == nil, err
	})
}

// TestLagWatchReset: a look that failed starts the quiet time again.
func TestLagWatchReset(t *testing.T) {
	t0 := time.Unix(1_000, 0)
	a := map[int32]shareOffset{0: {start: 10, lag: 1}}
	w := lagWatch{quiet: 20 * time.Second}
	for s := 0; s <= 15; s += 5 {
		if w.settled(t0.Add(time.Duration(s)*time.Second), time.Time{}, a) {
			t.Fatalf("settled after %d s of 20", s)
		}
	}
	w.reset()
	for s := 20; s < 40; s += 5 {
		if w.settled(t0.Add(time.Duration(s)*time.Second), time.Time{}, a) {
			t.Fatalf("settled %d s after the failed look, want 20 s after it", s-20)
		}
	}
	if !w.settled(t0.Add(40*time.Second), time.Time{}, a) {
		t.Fatal("not settled 20 s after the failed look")
	}
}

// TestOpenTransactions: a partition with a transaction open on a real broker is
// seen as such, and no longer once it commits.
func TestOpenTransactions(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := fmt.Sprintf("sx.unit-open-txn.%d", time.Now().UnixNano())
	admin := &topics.Admin{Brokers: brokers}
	kubetest.WaitFor(t, 30*time.Second, 100*time.Millisecond, "topic "+topic, func() (bool, error) {
		return admin.Ensure(ctx, topics.Spec{Name: topic, Partitions: 3, Replicas: 1})
	})
	ends, err := sarama.NewClient(brokers, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ends.Close() }()
	// A new topic's leaders reach every broker's metadata a moment after it is
	// reported created.
	kubetest.WaitFor(t, 30*time.Second, 100*time.Millisecond, "end offsets of "+topic, func() (bool, error) {
		_, err := endOffsets(ctx, ends, topic, 3)
		return err == nil, err
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c := &consumer{cfg: Config{Topic: topic, Trial: trial.Trial{Partitions: 3}}}
	open := func() bool {
		t.Helper()
		e, err := endOffsets(ctx, ends, topic, 3)
		if err != nil {
			t.Fatal(err)
		}
		o, err := c.openTransactions(ctx, cl, e)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if open() {
		t.Fatal("empty topic: seen with a transaction open")
	}
	tx, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID(topic), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, &kgo.Record{Partition: 1, Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if !open() {
		t.Fatal("a transaction open on partition 1: not seen")
	}
	if err := tx.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	// The commit markers reach the partitions a moment after the commit returns.
	kubetest.WaitFor(t, 10*time.Second, 50*time.Millisecond, "the committed transaction seen closed", func() (bool, error) {
		return !open(), nil
	})
}
