package producer

import (
	"testing"
	"time"

	"github.com/serdebench/serdebench/workers/summary"
)

// TestHotPathAllocatesNothing: apart from the codec's own Marshal, the per-record
// work — filling a pooled message and each client's record form, recording into
// histograms, and recycling the message — allocates nothing, so the worker does not become the
// bottleneck it measures. (Allocation counts are deterministic; times are not.)
func TestHotPathAllocatesNothing(t *testing.T) {
	r := &run{free: make(chan *message, 4)}
	ser, lat := summary.NewDuration(), summary.NewLatency()
	m := r.get()
	now := time.Now()
	ctx := t.Context()
	for _, compact := range []bool{false, true} {
		// A message's first compact use allocates its buffer, once: AllocsPerRun's
		// warm-up run takes that.
		allocs := testing.AllocsPerRun(1000, func() {
			m := r.get()
			m.setData(1, 0, 7, 42, now, now, false, -1, compact)
			_ = m.saramaForm("topic")
			_ = m.franzForm(ctx, "topic")
			_ = m.headerBytes()
			ser.Record(1234)
			lat.Record(5678)
			r.put(m)
		})
		if allocs != 0 {
			t.Fatalf("compact headers %v: %.1f allocations per record on the hot path", compact, allocs)
		}
	}
	r.put(m)
}

// BenchmarkHotPath is the per-record overhead the producer adds around Marshal.
func BenchmarkHotPath(b *testing.B) {
	r := &run{free: make(chan *message, 4)}
	ser, lat := summary.NewDuration(), summary.NewLatency()
	r.put(new(message))
	b.ReportAllocs()
	for b.Loop() {
		now := time.Now()
		m := r.get()
		m.setData(1, 0, 7, 42, now, now, false, -1, false)
		_ = m.saramaForm("topic")
		ser.Record(time.Since(now).Nanoseconds())
		lat.Record(5678)
		r.put(m)
	}
}
