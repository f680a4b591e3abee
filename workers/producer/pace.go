package producer

import (
	"context"
	"time"
)

// coarseMargin is how early the runtime timer is asked to fire before a record is
// due. Go's timers wake up to a millisecond late (the netpoller waits in whole
// milliseconds), which would add about 0.5 ms to every latency measured from the
// intended send time; the last stretch is slept precisely instead (fineSleep).
const coarseMargin = 2 * time.Millisecond

// pacer waits until records are due.
type pacer struct {
	// One reusable timer: time.After would allocate per record.
	timer *time.Timer
}

func newPacer() *pacer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pacer{timer: t}
}

// until waits until t, or returns false when ctx ends first. The precise part is at
// most coarseMargin long and not interruptible.
func (p *pacer) until(ctx context.Context, t time.Time) bool {
	if d := time.Until(t) - coarseMargin; d > 0 {
		p.timer.Reset(d)
		select {
		case <-p.timer.C:
		case <-ctx.Done():
			p.timer.Stop()
			return false
		}
	}
	if d := time.Until(t); d > 0 {
		fineSleep(d)
	}
	return ctx.Err() == nil
}
