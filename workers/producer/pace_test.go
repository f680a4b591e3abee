package producer

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestPacerNeverEarly: a record is never sent before it is due, whether the wait is
// all precise sleep, all timer, or both.
func TestPacerNeverEarly(t *testing.T) {
	p, err := newPacer()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	for _, d := range []time.Duration{0, 50 * time.Microsecond, 900 * time.Microsecond, 3 * time.Millisecond, 12 * time.Millisecond} {
		due := time.Now().Add(d)
		if ok, err := p.until(context.Background(), due); !ok || err != nil {
			t.Fatalf("%v: until returned %v, %v without a cancelled context", d, ok, err)
		}
		if early := time.Until(due); early > 0 {
			t.Errorf("%v: returned %v before the due time", d, early)
		}
	}
}

// TestPacerCancel: a cancelled context ends a long wait at once.
func TestPacerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	done := make(chan bool)
	p, err := newPacer()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	go func() {
		ok, _ := p.until(ctx, time.Now().Add(time.Hour))
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("until reported the due time reached after its context was cancelled")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("until did not return within 10 s of its context being cancelled")
	}
}

// BenchmarkPacerLateness reports how late records due every 500 µs (2,000 rec/s)
// start, with the runtime timer alone and with the pacer: the timer's whole-
// millisecond netpoll wait shows as ~0.5 ms at p50.
func BenchmarkPacerLateness(b *testing.B) {
	run := func(b *testing.B, wait func(time.Time)) {
		late := make([]time.Duration, 0, b.N)
		start := time.Now()
		for i := range b.N {
			due := start.Add(time.Duration(i) * 500 * time.Microsecond)
			wait(due)
			late = append(late, time.Since(due))
		}
		slices.Sort(late)
		b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-late-µs")
		b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-late-µs")
	}
	b.Run("timer", func(b *testing.B) {
		timer := time.NewTimer(time.Hour)
		run(b, func(due time.Time) {
			if d := time.Until(due); d > 0 {
				timer.Reset(d)
				<-timer.C
			}
		})
	})
	b.Run("pacer", func(b *testing.B) {
		p, err := newPacer()
		if err != nil {
			b.Fatal(err)
		}
		defer p.close()
		run(b, func(due time.Time) { _, _ = p.until(context.Background(), due) })
	})
}
