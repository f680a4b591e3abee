package consumer

import (
	"time"

	"github.com/serdebench/serdebench/workers/summary"
)

// track adds one received record of the partition (intended: its intended send
// time, Unix ns) to the partition's current segment, starting a new one after a
// stall: a gap of at least summary.StallMin since the last receipt, with this
// record waiting that long. Called with st.mu held.
func (st *partition) track(p int32, now time.Time, intended int64) {
	s := st.seg
	waited := now.UnixNano() - intended
	if s == nil || (now.Sub(s.Last) >= summary.StallMin && waited >= summary.StallMin.Nanoseconds() && len(st.segs) < summary.MaxSegments) {
		if s != nil {
			st.segs = append(st.segs, *s)
		}
		st.seg = &summary.Segment{Partition: p, First: now, FirstIntended: intended}
		s = st.seg
	}
	s.Last = now
	s.Records++
	if intended < s.First.UnixNano() {
		// Waiting when the segment began: after a stall, delayed by it.
		us := waited / 1e3
		s.Delayed++
		s.DelayedSumMicros += us
		s.DelayedMaxMicros = max(s.DelayedMaxMicros, us)
	}
}

// segments are the partition's segments so far. Called with st.mu held.
func (st *partition) segments() []summary.Segment {
	out := st.segs
	if st.seg != nil {
		out = append(out[:len(out):len(out)], *st.seg)
	}
	return out
}

// endSegments closes the partitions' current segments: their assignment ended
// (a revoke), so a later one begins a segment of its own even if no gap shows
// (a partition that went elsewhere and came back).
func (c *consumer) endSegments(parts []int32) {
	for _, p := range parts {
		c.mu.Lock()
		st := c.parts[p]
		c.mu.Unlock()
		if st == nil {
			continue
		}
		st.mu.Lock()
		if st.seg != nil {
			st.segs = append(st.segs, *st.seg)
			st.seg = nil
		}
		st.mu.Unlock()
	}
}
