package summary

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/serdebench/serdebench/workers/usage"
)

// TestMergeIsExact: percentiles of merged encoded histograms equal those of one
// histogram holding every value; averaging per-worker percentiles would not.
func TestMergeIsExact(t *testing.T) {
	all := NewLatency()
	var sums []*Summary
	start := time.Unix(1000, 0)
	for w := range 3 {
		s := &Summary{Role: RoleProducer, Worker: string(rune('0' + w)), WindowStart: start, WindowEnd: start.Add(time.Duration(w+1) * time.Second)}
		h := s.Histogram(AckLatencyMicros, NewLatency)
		// Worker 0 is fast, worker 2 very slow: the merged p99 is worker 2's.
		for i := range 1000 {
			v := int64((w*w*100 + 1) * (i + 1))
			h.Record(v)
			all.Record(v)
		}
		s.Records = 1000
		s.Acked = []Delivery{{Partition: 0, Intervals: Intervals{{0, 1000}}}}
		// Round-trip through JSON, as summaries travel.
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, &back)
	}
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	for q, got := range map[float64]int64{50: r.Ack.P50, 99: r.Ack.P99, 99.9: r.Ack.P999} {
		if want := all.Quantile(q); got != want {
			t.Errorf("p%v: merged %d, want %d", q, got, want)
		}
	}
	if r.Ack.Count != 3000 || r.Ack.Max != all.Max() {
		t.Errorf("count %d max %d", r.Ack.Count, r.Ack.Max)
	}
	var avgP99 int64
	for _, s := range sums {
		avgP99 += s.Histograms[AckLatencyMicros].Quantile(99) / 3
	}
	if avgP99 == r.Ack.P99 {
		t.Error("test is not discriminating: averaged p99 equals merged p99")
	}
	if r.WindowSeconds != 3 || r.RecordsPerSecond != 1000 {
		t.Errorf("window %v s, rate %v", r.WindowSeconds, r.RecordsPerSecond)
	}
}

func TestMergeDelivery(t *testing.T) {
	var a, b SeqSet
	for i := range int64(100) {
		if i != 42 { // lost
			a.Add(i)
		}
	}
	for i := int64(90); i < 100; i++ { // redelivered to another consumer after a rebalance
		b.Add(i)
	}
	a.Add(7) // duplicate within one consumer
	sums := []*Summary{
		{Role: RoleProducer, Worker: "0", Acked: []Delivery{{Partition: 0, Intervals: Intervals{{0, 100}}}, {Partition: 1, Intervals: Intervals{{0, 5}}}}},
		{Role: RoleConsumer, Worker: "c0", Received: []Delivery{{Producer: 0, Partition: 0, Total: a.Total(), Intervals: a.Intervals()}}},
		{Role: RoleConsumer, Worker: "c1", Received: []Delivery{{Producer: 0, Partition: 0, Total: b.Total(), Intervals: b.Intervals()}}},
	}
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	// Partition 0: 99 of 100 arrived (42 lost); partition 1: none of 5 arrived.
	if r.Lost != 1+5 || r.Delivered != 99 || r.Duplicated != 11 || r.Sent != 105 || r.UnacknowledgedDelivered != 0 {
		t.Errorf("lost %d delivered %d duplicated %d sent %d unacked-delivered %d", r.Lost, r.Delivered, r.Duplicated, r.Sent, r.UnacknowledgedDelivered)
	}
}

// TestMergeLossIsASetDifference: a record whose send failed but which the broker
// stored anyway must not hide a lost acknowledged record, as a count difference
// (acked − received) would.
func TestMergeLossIsASetDifference(t *testing.T) {
	sums := []*Summary{
		// Sequence 5 failed (timeout) but was stored; 3 was acknowledged but never read.
		{Role: RoleProducer, Worker: "0", Acked: []Delivery{{Partition: 0, Intervals: Intervals{{0, 5}, {6, 10}}}},
			Failed: []Delivery{{Partition: 0, Intervals: Intervals{{5, 6}}}}, Errors: 1, FirstError: "timeout"},
		{Role: RoleConsumer, Worker: "c0", Received: []Delivery{{Producer: 0, Partition: 0, Total: 9, Intervals: Intervals{{0, 3}, {4, 10}}}}},
	}
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 9 || r.Delivered != 9 || r.Lost != 1 || r.Failed != 1 || r.UnacknowledgedDelivered != 1 || r.Duplicated != 0 {
		t.Fatalf("sent %d delivered %d lost %d failed %d unacked-delivered %d dup %d", r.Sent, r.Delivered, r.Lost, r.Failed, r.UnacknowledgedDelivered, r.Duplicated)
	}
}

func TestMergeInterrupted(t *testing.T) {
	r, err := Merge([]*Summary{{Role: RoleProducer, Worker: "0", Interrupted: true}, {Role: RoleConsumer, Worker: "c0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Interrupted) != 1 || r.Interrupted[0] != "producer 0" {
		t.Fatalf("interrupted %v", r.Interrupted)
	}
}

// TestMergeJITShares: each role's JIT share is its largest worker's own, over that
// worker's window, and is kept where a worker without usage leaves the trial's
// usage unmeasured (a Go side in `serdebench run`'s process).
func TestMergeJITShares(t *testing.T) {
	win := func(jit, secs float64) *usage.Window {
		return &usage.Window{JITSeconds: jit, Seconds: secs, CPUSeconds: 1}
	}
	r, err := Merge([]*Summary{
		{Role: RoleProducer, Worker: "0", Usage: win(1, 10)},
		{Role: RoleProducer, Worker: "1", Usage: win(3, 5)},
		{Role: RoleConsumer, Worker: "c0"}, // in-process: no usage
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Usage != nil || r.JITShares.Producers != 0.6 || r.JITShares.Consumers != 0 {
		t.Fatalf("usage %+v, JIT shares %+v: want unmeasured usage, producers 0.6 (3 of 5 s), consumers 0", r.Usage, r.JITShares)
	}
}

func TestIntervalsMinus(t *testing.T) {
	for _, c := range []struct {
		a, b Intervals
		want int64
	}{
		{Intervals{{0, 10}}, nil, 10},
		{Intervals{{0, 10}}, Intervals{{0, 10}}, 0},
		{Intervals{{0, 10}}, Intervals{{2, 3}, {5, 7}}, 7},
		{Intervals{{5, 7}, {0, 10}}, Intervals{{-5, 1}, {9, 20}}, 8},      // unsorted, overlapping
		{Intervals{{0, 3}, {10, 13}}, Intervals{{2, 11}}, 4},              // one spans a gap
		{Intervals{{0, 3}, {3, 6}}, Intervals{{1, 2}, {2, 4}, {5, 5}}, 3}, // touching, empty
	} {
		if got := c.a.Minus(c.b).Size(); got != c.want {
			t.Errorf("%v ∖ %v: size %d, want %d (%v)", c.a, c.b, got, c.want, c.a.Minus(c.b))
		}
		// Brute force agrees.
		in := func(s Intervals, v int64) bool {
			for _, iv := range s {
				if v >= iv[0] && v < iv[1] {
					return true
				}
			}
			return false
		}
		var n int64
		for v := int64(-10); v < 30; v++ {
			if in(c.a, v) && !in(c.b, v) {
				n++
			}
		}
		if n != c.want {
			t.Errorf("brute force %d, table %d", n, c.want)
		}
	}
}

func TestSeqSetIntervals(t *testing.T) {
	var s SeqSet
	for _, v := range []int64{0, 1, 2, 5, 63, 64, 65, 200} {
		s.Add(v)
	}
	want := Intervals{{0, 3}, {5, 6}, {63, 66}, {200, 201}}
	got := s.Intervals()
	if len(got) != len(want) {
		t.Fatalf("got %v want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v want %v", got, want)
		}
	}
	if s.Add(64) || s.Distinct() != 8 || s.Total() != 9 {
		t.Fatal("duplicate not detected")
	}
}

func TestHistogramClamps(t *testing.T) {
	h := NewDuration()
	h.Record(-5)
	h.Record(0)
	h.Record(MaxDurationNanos * 10)
	if h.Count() != 3 || h.Clamped != 1 || h.Quantile(50) != 0 {
		t.Fatalf("count %d clamped %d p50 %d", h.Count(), h.Clamped, h.Quantile(50))
	}
}

// TestPercentilesFromMergedHistograms: every reported percentile is read from the
// merged histogram, within its 0.1% precision (values 1..100000 µs, uniform, split
// over two workers).
func TestPercentilesFromMergedHistograms(t *testing.T) {
	a, b := &Summary{Role: RoleProducer, Worker: "0"}, &Summary{Role: RoleProducer, Worker: "1"}
	for v := int64(1); v <= 100000; v++ {
		s := a
		if v%2 == 0 {
			s = b
		}
		s.Histogram(AckLatencyMicros, NewLatency).Record(v)
	}
	r, err := Merge([]*Summary{a, b})
	if err != nil {
		t.Fatal(err)
	}
	p := r.Ack
	for name, c := range map[string]struct{ got, want int64 }{
		"p50": {p.P50, 50000}, "p75": {p.P75, 75000}, "p90": {p.P90, 90000}, "p95": {p.P95, 95000},
		"p99": {p.P99, 99000}, "p99.9": {p.P999, 99900}, "p99.99": {p.P9999, 99990}, "max": {p.Max, 100000},
	} {
		if d := float64(c.got-c.want) / float64(c.want); d < -0.001 || d > 0.001 {
			t.Errorf("%s = %d, want %d ± 0.1%%", name, c.got, c.want)
		}
	}
}

// TestUnionRateFloor: producers whose windows begin a start spread apart and end
// a drain apart (one stops on schedule, another acknowledges its last record the
// largest ack latency later) give a rate over the union of their windows below
// the sum of their own rates, but not below the floor; windows that coincide give
// the sum exactly.
func TestUnionRateFloor(t *testing.T) {
	at := time.Unix(1000, 0)
	const d, spread, ack = 10 * time.Second, 40 * time.Millisecond, 300 * time.Millisecond
	merge := func(windows [][2]time.Duration) *Result {
		t.Helper()
		var sums []*Summary
		for i, w := range windows {
			s := &Summary{Role: RoleProducer, Worker: string(rune('0' + i)), WindowStart: at.Add(w[0]), WindowEnd: at.Add(w[1]), Records: 50_000}
			s.Histogram(AckLatencyMicros, NewLatency).Record(ack.Microseconds())
			sums = append(sums, s)
		}
		r, err := Merge(sums)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := merge([][2]time.Duration{{0, d + ack}, {spread, spread + d}, {spread / 2, spread/2 + d + ack/2}})
	share := r.RecordsPerSecond / r.ProducerRatesSum
	floor := UnionRateFloor(time.Duration(r.WindowSeconds*float64(time.Second)), time.Duration(r.WindowStartSpreadMicros)*time.Microsecond,
		time.Duration(r.Ack.Max)*time.Microsecond)
	if share >= 1 || share < floor {
		t.Errorf("windows a start spread and a drain apart: the union's rate is %.4f of the sum, want in [%.4f, 1)", share, floor)
	}
	if floor < 0.9 || floor > 0.98 {
		t.Errorf("floor %.4f for a 40 ms spread and a 300 ms drain in 10 s", floor)
	}
	if r := merge([][2]time.Duration{{0, d}, {0, d}}); r.RecordsPerSecond != r.ProducerRatesSum {
		t.Errorf("coinciding windows: %.1f rec/s over the union, %.1f summed", r.RecordsPerSecond, r.ProducerRatesSum)
	}
	if f := UnionRateFloor(0, spread, ack); f != 0 {
		t.Errorf("no window: floor %v, want 0", f)
	}
}
