package consumer

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Control acts on a running consumer from outside: the consumer group events of
// a fault scenario (trial.ConsumerFault). Its methods are safe for concurrent use
// and may be called before the consumer runs.
type Control struct {
	// pausedUntil is when a pause ends (Unix ns; 0: none).
	pausedUntil atomic.Int64
	left        atomic.Bool
	mu          sync.Mutex
	leave       chan struct{}
}

// NewControl returns a Control for one consumer (Config.Control).
func NewControl() *Control { return &Control{leave: make(chan struct{})} }

// Pause makes the consumer take no record for d: it stays in its group (its
// client keeps heartbeating) while its partitions wait. A pause asked for while
// one is in effect is ignored: a coordinator's retry does not lengthen it.
func (c *Control) Pause(d time.Duration) {
	now := time.Now()
	for {
		cur := c.pausedUntil.Load()
		if cur > now.UnixNano() || c.pausedUntil.CompareAndSwap(cur, now.Add(d).UnixNano()) {
			return
		}
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

// leaving is closed once Leave is called (nil Control: never).
func (c *Control) leaving() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.leave
}
