package control

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Barrier starts in-process producers together (the local runner's trials): once
// all n have arrived it gives each the same instant, lead after the last arrived.
// Their clocks are one, so the windows start within the pacer's precision.
type Barrier struct {
	n, arrived int
	lead       time.Duration
	mu         sync.Mutex
	at         time.Time
	err        error
	done       chan struct{}
}

// NewBarrier waits for n producers.
func NewBarrier(n int, lead time.Duration) *Barrier {
	return &Barrier{n: n, lead: lead, done: make(chan struct{})}
}

// Wait arrives and blocks until all have, timeout passes, the barrier is aborted
// or ctx ends.
func (b *Barrier) Wait(ctx context.Context, timeout time.Duration) (time.Time, error) {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n && b.err == nil {
		b.at = time.Now().Add(b.lead)
		close(b.done)
	}
	b.mu.Unlock()
	if err := await(ctx, b.done, timeout, func() error {
		return fmt.Errorf("%d of %d producers ready after %s", b.count(), b.n, timeout)
	}); err != nil {
		return time.Time{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.at, b.err
}

// Abort releases everyone waiting with err (a producer failed before arriving).
func (b *Barrier) Abort(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.done:
	default:
		b.err = err
		close(b.done)
	}
}

func (b *Barrier) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.arrived
}
