package consumer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Control acts on a running consumer from outside: the consumer group events of
// a fault scenario (trial.ConsumerFault). Its methods are safe for concurrent use
// and may be called before the consumer runs.
type Control struct {
	// pausedUntil is when the pause ends (Unix ns; 0: none).
	pausedUntil atomic.Int64
	paused      atomic.Bool
	left        atomic.Bool
	mu          sync.Mutex
	leave       chan struct{}
	// join and abandon are a standby's (nil otherwise): closed by Join and Abandon.
	join, abandon         chan struct{}
	joinOnce, abandonOnce sync.Once
}

// NewControl returns a Control for one consumer (Config.Control).
func NewControl() *Control { return &Control{leave: make(chan struct{})} }

// NewStandby returns a Control for a standby consumer: Run reads the trial's
// start (on an existing topic, its end offsets: a joiner mid-window must not skip
// the backlog it inherits) and then waits for Join before it joins its group.
func NewStandby() *Control {
	c := NewControl()
	c.join, c.abandon = make(chan struct{}), make(chan struct{})
	return c
}

// Join lets a standby join its group; a repeat, or a call on a consumer that is
// no standby, does nothing.
func (c *Control) Join() {
	if c != nil && c.join != nil {
		c.joinOnce.Do(func() { close(c.join) })
	}
}

// Abandon ends a standby that was never told to join: its Run returns no summary
// and no error (its coordinator reports the join that did not happen). After a
// Join it does nothing.
func (c *Control) Abandon() {
	if c != nil && c.abandon != nil {
		c.abandonOnce.Do(func() { close(c.abandon) })
	}
}

// errAbandoned: a standby was abandoned before its join.
var errAbandoned = errors.New("standby abandoned before its join")

// awaitJoin returns at once for a consumer that is no standby; a standby's waits
// for Join (nil), Abandon (errAbandoned) or the end of ctx.
func (c *Control) awaitJoin(ctx context.Context) error {
	if c == nil || c.join == nil {
		return nil
	}
	select {
	case <-c.join:
	case <-c.abandon:
	case <-ctx.Done():
	}
	// Told to join counts, whatever else had happened (Abandon follows a join).
	select {
	case <-c.join:
		return nil
	default:
	}
	select {
	case <-c.abandon:
		return errAbandoned
	default:
		return fmt.Errorf("standby: never told to join (%w)", context.Cause(ctx))
	}
}

// Pause makes the consumer take no record for d: it stays in its group (its
// client keeps heartbeating) while its partitions wait. A consumer pauses once:
// a trial has one fault, and a coordinator's retry, during or after the pause,
// must neither lengthen nor repeat it.
func (c *Control) Pause(d time.Duration) {
	if c.paused.CompareAndSwap(false, true) {
		c.pausedUntil.Store(time.Now().Add(d).UnixNano())
	}
}

// Leave shuts the consumer down cleanly before its trial is complete: it commits
// what it processed, leaves its group, and returns its summary as a complete one
// (its measurements up to then count; the others finish the trial).
func (c *Control) Leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left.CompareAndSwap(false, true) {
		close(c.leave)
	}
}

// hold waits out a pause, if one is on; false if ctx ended first. The members
// call it before they take a poll's records, so the records count as received
// when the pause ends.
func (c *Control) hold(ctx context.Context) bool {
	if c == nil {
		return ctx.Err() == nil
	}
	d := time.Until(time.Unix(0, c.pausedUntil.Load()))
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// pauseEnd is when the consumer's pause ends (zero: none, or nil Control).
func (c *Control) pauseEnd() time.Time {
	if c == nil {
		return time.Time{}
	}
	if ns := c.pausedUntil.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// leaving is closed once Leave is called (nil Control: never).
func (c *Control) leaving() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.leave
}

// standby says whether c is a standby's Control.
func (c *Control) standby() bool { return c != nil && c.join != nil }
