package consumer

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestLagWatch: offsets count as settled only once they have stayed the same for
// the quiet time, counted afresh at any change and from no earlier than the
// end of the member's own pause.
func TestLagWatch(t *testing.T) {
	t0 := time.Unix(1_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	a := map[int32]shareOffset{0: {start: 3960, lag: 1}, 1: {start: 3980, lag: 0}}
	b := map[int32]shareOffset{0: {start: 3960, lag: 0}, 1: {start: 3980, lag: 0}}
	a2 := map[int32]shareOffset{0: {start: 3960, lag: 1}, 1: {start: 3980, lag: 0}}
	w := lagWatch{quiet: 40 * time.Second}
	for i, step := range []struct {
		at, pauseEnd float64
		seen         map[int32]shareOffset
		want         bool
	}{
		{0, 0, a, false},     // first look
		{39.9, 0, a2, false}, // the same, not yet for the quiet time
		{40, 0, a, true},     // the same for 40 s
		{41, 0, b, false},    // a change starts afresh
		{80, 0, a, false},    // and another
		{121, 100, a, false}, // the same for 41 s, but the member was paused until 100
		{140, 100, a, true},  // 40 s after its pause ended
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
	if got, err = recordLockDuration(ctx, cl, group); err != nil || got != 20*time.Second {
		t.Fatalf("group with %s=20000: %v, %v; want 20s", lockConfig, got, err)
	}
}
