package summary

import (
	"encoding/json"
	"testing"
	"time"
)

var t0 = time.Unix(1_800_000_000, 0) // a multiple of 10 s

func TestSeriesMergeIsExact(t *testing.T) {
	a, b, all := NewSeries(10), NewSeries(10), NewSeries(10)
	for i := range 1000 {
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond) // 0-10 s: one bucket
		lat := int64(100 + i)
		if i%3 == 0 {
			a.Measured(at, lat)
		} else {
			b.Measured(at, lat*10)
		}
		all.Measured(at, map[bool]int64{true: lat, false: lat * 10}[i%3 == 0])
	}
	// Through JSON, as summaries travel.
	var back Series
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	m := NewSeries(10)
	m.Merge(&back)
	m.Merge(b)
	got, want := m.Buckets[t0.Unix()], all.Buckets[t0.Unix()]
	if got == nil || got.Records != 1000 {
		t.Fatalf("merged bucket %+v, want 1000 records", got)
	}
	if percentiles(got.Latency) != percentiles(want.Latency) {
		t.Fatalf("merged percentiles %+v, want those of all values %+v", percentiles(got.Latency), percentiles(want.Latency))
	}
}

func TestSeriesCoarsens(t *testing.T) {
	s := NewSeries(10)
	for i := range MaxBuckets + 1 {
		s.Done(t0.Add(time.Duration(i)*10*time.Second), false)
	}
	if s.WidthSeconds != 20 || len(s.Buckets) > MaxBuckets {
		t.Fatalf("width %d with %d buckets; want 20 and at most %d", s.WidthSeconds, len(s.Buckets), MaxBuckets)
	}
	var done int64
	for k, b := range s.Buckets {
		if k%20 != 0 {
			t.Errorf("bucket %d not aligned to 20 s", k)
		}
		done += b.Done
	}
	if done != MaxBuckets+1 {
		t.Fatalf("%d records after coarsening, want %d", done, MaxBuckets+1)
	}
	// A narrower series merges at the wider width.
	n := NewSeries(10)
	n.Done(t0.Add(10*time.Second), false)
	s.Merge(n)
	if s.WidthSeconds != 20 || s.Buckets[t0.Unix()].Done != 3 {
		t.Fatalf("merge of a 10 s series into a 20 s one: width %d, bucket %+v", s.WidthSeconds, s.Buckets[t0.Unix()])
	}
}

func TestIntervalsWindowAndBacklog(t *testing.T) {
	p, c := NewSeries(10), NewSeries(10)
	// Warmup acknowledged and received before the window: backlog 0 after it.
	for i := range 50 {
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		p.Done(at, false)
		c.Done(at, false)
	}
	// Window [t0+5 s, t0+25 s): 2,000 records per 10 s bucket intended, acknowledged
	// at once; the consumer receives 1,500 of the second bucket's during it and the
	// rest in the third.
	for i := range 4000 {
		at := t0.Add(10*time.Second + time.Duration(i)*5*time.Millisecond)
		p.Measured(at, 2000)
		p.Done(at, true)
		recv := at
		if i < 2000 && i >= 1500 {
			recv = t0.Add(20*time.Second + time.Duration(i-1500)*time.Millisecond)
		}
		c.Measured(at, recv.Sub(at).Microseconds()+3000)
		c.Done(recv, true)
	}
	r := &Result{producerSeries: p, consumerSeries: c, windowStart: t0.Add(5 * time.Second), windowEnd: t0.Add(30 * time.Second),
		consumerEnd: t0.Add(30 * time.Second)}
	got, width := r.IntervalsAtMost(MaxIntervals)
	if width != 10 || len(got) != 3 {
		t.Fatalf("%d intervals of %d s, want 3 of 10: %+v", len(got), width, got)
	}
	if got[0].Seconds != 5 || got[0].Records != 0 || got[0].BacklogRecords != 0 {
		t.Errorf("first interval (warmup half): %+v", got[0])
	}
	// Per-interval histograms keep 1%: 2000 µs reads back as at most 2020.
	if got[1].Records != 2000 || got[1].RecordsPerSecond != 200 || got[1].OfferedRecordsPerSecond != 200 || got[1].ConsumedRecordsPerSecond != 150 ||
		got[1].Ack.P50 < 2000 || got[1].Ack.P50 > 2020 || got[1].BacklogRecords != 500 {
		t.Errorf("second interval: %+v; want 2000 records at 200/s offered and achieved, 150/s consumed, ack p50 2000 µs ±1%%, backlog 500", got[1])
	}
	if got[2].BacklogRecords != 0 || got[2].Records != 2000 || got[2].ConsumedRecordsPerSecond != 250 {
		t.Errorf("third interval: %+v; want 2000 records, 250/s consumed and the backlog drained", got[2])
	}
	if got[1].EndToEnd.P99 < 100000 || got[2].EndToEnd.P50 > 3030 {
		t.Errorf("end-to-end: second interval p99 %d µs (late records), third p50 %d µs", got[1].EndToEnd.P99, got[2].EndToEnd.P50)
	}
	// At most 2: merged pairwise into 20 s intervals, [0, 20) and [20, 40), of
	// which the window holds 15 and 10 s.
	got, width = r.IntervalsAtMost(2)
	if width != 20 || len(got) != 2 || got[0].Seconds != 15 || got[0].Records != 2000 || got[1].Records != 2000 || got[1].BacklogRecords != 0 {
		t.Fatalf("at most 2: %d intervals of %d s: %+v", len(got), width, got)
	}
}

// drainedIntervals are the 10 s intervals of 1,000 records intended and
// acknowledged over 0-10 s and received from t0+from, one every step, until 25 s.
func drainedIntervals(from, step time.Duration) []Interval {
	p, c := NewSeries(10), NewSeries(10)
	for i := range 1000 {
		at := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		p.Measured(at, 1000)
		p.Done(at, true)
		recv := t0.Add(from + time.Duration(i)*step)
		c.Measured(at, recv.Sub(at).Microseconds())
		c.Done(recv, true)
	}
	r := &Result{producerSeries: p, consumerSeries: c, windowStart: t0, windowEnd: t0.Add(10 * time.Second), consumerEnd: t0.Add(25 * time.Second)}
	got, _ := r.IntervalsAtMost(MaxIntervals)
	return got
}

// TestIntervalsRunUntilTheConsumersDrain: records acknowledged by 20 s and received
// until 25 s: the intervals go on to 25 s, where only the consumers' rate and the
// backlog move; each rate is over its own side's seconds.
func TestIntervalsRunUntilTheConsumersDrain(t *testing.T) {
	got := drainedIntervals(10*time.Second, 15*time.Millisecond) // received 10-25 s
	if len(got) != 3 || got[2].Seconds != 5 {
		t.Fatalf("intervals %+v; want 3, the last 5 s long", got)
	}
	if got[0].RecordsPerSecond != 100 || got[0].BacklogRecords != 1000 || got[1].RecordsPerSecond != 0 {
		t.Errorf("producers: %+v, %+v", got[0], got[1])
	}
	// 10-20 s: 667 received; 20-25 s: 333 over 5 s.
	if got[1].ConsumedRecordsPerSecond != 66.7 || got[1].BacklogRecords != 333 || got[2].ConsumedRecordsPerSecond != 66.6 || got[2].BacklogRecords != 0 {
		t.Errorf("consumers: %+v, %+v", got[1], got[2])
	}
}

// TestIntervalsCoverAStall: the consumers receive nothing for a whole interval (a
// stall) and then drain; that interval is still reported, with no receipts and the
// backlog where it stood, so the intervals cover the window without a gap.
func TestIntervalsCoverAStall(t *testing.T) {
	got := drainedIntervals(20*time.Second, 5*time.Millisecond) // received 20-25 s
	var covered float64
	for _, iv := range got {
		covered += iv.Seconds
	}
	if len(got) != 3 || covered != 25 {
		t.Fatalf("%d intervals covering %.1f s, want 3 covering the 25 s window: %+v", len(got), covered, got)
	}
	if s := got[1]; !s.Start.Equal(t0.Add(10*time.Second)) || s.Seconds != 10 || s.Records != 0 || s.ConsumedRecordsPerSecond != 0 || s.BacklogRecords != 1000 {
		t.Errorf("the stalled interval: %+v; want 10 s, nothing acknowledged or received, backlog 1000", s)
	}
	if got[2].BacklogRecords != 0 || got[2].ConsumedRecordsPerSecond != 200 {
		t.Errorf("the draining interval: %+v", got[2])
	}
}
