package consumer

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStandbyControl: a standby waits for its join, returns errAbandoned if it is
// abandoned first (a join that came first wins), and an error naming the cause
// when its context ends; a consumer that is no standby does not wait.
func TestStandbyControl(t *testing.T) {
	ctx := context.Background()
	if err := NewControl().awaitJoin(ctx); err != nil || NewControl().standby() {
		t.Fatalf("a consumer that is no standby: %v", err)
	}
	var none *Control
	if err := none.awaitJoin(ctx); err != nil {
		t.Fatalf("no control: %v", err)
	}
	joined := NewStandby()
	go func() { time.Sleep(20 * time.Millisecond); joined.Join(); joined.Join() }()
	if err := joined.awaitJoin(ctx); err != nil || !joined.standby() {
		t.Fatalf("joined: %v", err)
	}
	joined.Abandon() // after the join: changes nothing
	if err := joined.awaitJoin(ctx); err != nil {
		t.Fatalf("abandoned after its join: %v", err)
	}
	abandoned := NewStandby()
	abandoned.Abandon()
	if err := abandoned.awaitJoin(ctx); !errors.Is(err, errAbandoned) {
		t.Fatalf("abandoned: %v, want errAbandoned", err)
	}
	cause := errors.New("trial over")
	cctx, cancel := context.WithCancelCause(ctx)
	cancel(cause)
	if err := NewStandby().awaitJoin(cctx); !errors.Is(err, cause) {
		t.Fatalf("ended: %v, want the cause", err)
	}
}

// TestPauseOnce: a consumer pauses once; a repeat, during the pause or after it,
// neither lengthens nor repeats it.
func TestPauseOnce(t *testing.T) {
	c := NewControl()
	c.Pause(30 * time.Millisecond)
	first := c.pausedUntil.Load()
	c.Pause(time.Hour)
	if c.pausedUntil.Load() != first {
		t.Fatal("a repeat during the pause lengthened it")
	}
	time.Sleep(40 * time.Millisecond)
	c.Pause(time.Hour)
	if c.pausedUntil.Load() != first {
		t.Fatal("a repeat after the pause paused again")
	}
	if !c.hold(context.Background()) {
		t.Fatal("hold after the pause ended: false")
	}
}
