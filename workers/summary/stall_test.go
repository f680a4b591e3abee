package summary

import (
	"testing"
	"time"
)

// TestStallsFromSegments: a gap counts as a stall only while a record waited
// through it; an idle partition (nothing sent) does not stall, a moved partition
// is told from one its owner resumed, and the stall starts when the waiting
// record was sent if that is after the last receipt.
func TestStallsFromSegments(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(1000, 0).Add(time.Duration(ms) * time.Millisecond) }
	ns := func(ms int) int64 { return at(ms).UnixNano() }
	segs := []Segment{
		// Partition 0: consumer 0 until 1000, consumer 1 from 1500, its first
		// record sent at 1001: stalled 499 ms, moved.
		{Partition: 0, First: at(0), Last: at(1000), FirstIntended: ns(0), Records: 100},
		{Partition: 0, First: at(1500), Last: at(3000), FirstIntended: ns(1001), Records: 100, Delayed: 50, DelayedMaxMicros: 499000, DelayedSumMicros: 50 * 250000},
		// Partition 1: idle from 1000 to 2000 (the first record after the gap was
		// sent at 1999): no stall.
		{Partition: 1, First: at(0), Last: at(1000), FirstIntended: ns(0), Records: 100},
		{Partition: 1, First: at(2000), Last: at(3000), FirstIntended: ns(1999), Records: 100},
		// Partition 2: consumer 1 paused 1000 to 2200; its record was sent at 1100:
		// stalled from 1100, 1100 ms, not moved.
		{Partition: 2, First: at(0), Last: at(1000), FirstIntended: ns(0), Records: 100},
		{Partition: 2, First: at(2200), Last: at(3000), FirstIntended: ns(1100), Records: 100, Delayed: 110},
		// Partition 0 again: a gap under StallMin is no stall.
		{Partition: 0, First: at(3100), Last: at(4000), FirstIntended: ns(2900), Records: 10},
	}
	owners := []int{0, 1, 0, 0, 1, 1, 1}
	st := stalls(segs, owners, 0)
	if st == nil || st.Count != 2 || st.Partitions != 2 || st.Moved != 1 || st.MaxMicros != 1100000 || st.TotalMicros != 1599000 || st.Delayed != 160 {
		t.Fatalf("stalls %+v", st)
	}
	e := st.Events
	if e[0].Partition != 0 || !e[0].Moved || e[0].Micros != 499000 || e[0].DelayedMeanMicros != 250000 ||
		e[1].Partition != 2 || e[1].Moved || e[1].Micros != 1100000 || !e[1].Start.Equal(at(1100)) {
		t.Fatalf("events %+v", e)
	}
	if stalls(segs[2:4], owners[2:4], 0) != nil {
		t.Fatal("an idle partition stalled")
	}
	// With 400 ms of slack (a transaction's span and its commit) the move on
	// partition 0 (a record waiting 499 ms since it was sent) is 99 ms past
	// availability, no stall; the pause on partition 2 counts from 1500.
	if st := stalls(segs, owners, 400*time.Millisecond); st == nil || st.Count != 1 || st.Events[0].Partition != 2 || st.Events[0].Micros != 700000 || st.SlackMicros != 400000 {
		t.Fatalf("with slack: %+v", st)
	}
}
