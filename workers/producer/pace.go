package producer

import (
	"context"
	"time"
)

// coarseMargin is how early the runtime timer is asked to fire before a record is
// due. Go's timers wake up to a millisecond late (the netpoller waits in whole
// milliseconds), which would add about 0.5 ms to every latency measured from the
// intended send time; the last stretch is slept precisely instead (fineTimer).
const coarseMargin = 2 * time.Millisecond

// pacer waits until records are due.
type pacer struct {
	// One reusable timer: time.After would allocate per record.
	timer *time.Timer
	fine  *fineTimer
}

func newPacer() (*pacer, error) {
	fine, err := newFineTimer()
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pacer{timer: t, fine: fine}, nil
}

// until waits until t, or returns false when ctx ends first. The precise part is at
// most coarseMargin long and not interruptible.
func (p *pacer) until(ctx context.Context, t time.Time) (bool, error) {
	if d := time.Until(t) - coarseMargin; d > 0 {
		p.timer.Reset(d)
		select {
		case <-p.timer.C:
		case <-ctx.Done():
			p.timer.Stop()
			return false, nil
		}
	}
	if d := time.Until(t); d > 0 {
		if err := p.fine.sleep(d); err != nil {
			return false, err
		}
	}
	return ctx.Err() == nil, nil
}

func (p *pacer) close() { p.fine.close() }
