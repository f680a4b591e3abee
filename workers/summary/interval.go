package summary

import (
	"maps"
	"slices"
	"time"
)

// MaxIntervals bounds a result's intervals; more, and they merge pairwise into
// intervals twice as long.
const MaxIntervals = 60

// Interval is one slice of a trial's measured window, from every worker's series
// merged (histograms added, never averaged).
type Interval struct {
	// Start of the interval (aligned to multiples of its length since the Unix epoch).
	Start time.Time `json:"start"`
	// Seconds of the interval inside the trial's window (the producers' measured
	// window, extended to the consumers' last measured receipt): the first and last
	// are usually partial.
	Seconds float64 `json:"seconds"`
	// Records is the measured records acknowledged during the interval, and
	// RecordsPerSecond that over the part of it in the producers' window: the
	// throughput achieved.
	Records          int64   `json:"records"`
	RecordsPerSecond float64 `json:"recordsPerSecond"`
	// OfferedRecords is the measured records due (intended) in the interval, and
	// OfferedRecordsPerSecond that over the same seconds: the load offered. Above
	// the achieved rate, the producers fall behind.
	OfferedRecords          int64   `json:"offeredRecords"`
	OfferedRecordsPerSecond float64 `json:"offeredRecordsPerSecond"`
	// ConsumedRecordsPerSecond is the measured records first received during the
	// interval over the part of it before the consumers' last measured receipt.
	ConsumedRecordsPerSecond float64 `json:"consumedRecordsPerSecond"`
	// Ack and EndToEnd are the latencies of the records due in the interval, in
	// microseconds at 1% precision.
	Ack      Percentiles `json:"ackMicros"`
	EndToEnd Percentiles `json:"endToEndMicros"`
	// BacklogRecords is, at the interval's end, how many of the trial's records had
	// been acknowledged and not yet received by any consumer (warmup included).
	BacklogRecords int64 `json:"backlogRecords"`
}

// IntervalsAtMost returns the result's intervals, merged pairwise into longer ones
// until at most n remain (n ≥ 1), and their length in seconds.
func (r *Result) IntervalsAtMost(n int) ([]Interval, int64) {
	if r.producerSeries == nil {
		return nil, 0
	}
	p, c := r.producerSeries.Clone(), r.consumerSeries.Clone()
	for {
		out := intervals(p, c, r.windowStart, r.windowEnd, r.consumerEnd)
		if len(out) <= max(n, 1) {
			return out, p.WidthSeconds
		}
		p.coarsen(p.WidthSeconds * 2)
	}
}

// intervals cuts [start, max(end, consumerEnd)) into p's buckets; end is the
// producers' window end. Backlog is the running difference of acknowledged and
// received records over every bucket, warmup included. It coarsens p and c to the
// wider one's width.
func intervals(p, c *Series, start, end, consumerEnd time.Time) []Interval {
	w := max(p.WidthSeconds, c.WidthSeconds)
	if p.WidthSeconds < w {
		p.coarsen(w)
	}
	if c.WidthSeconds < w {
		c.coarsen(w)
	}
	union := maps.Clone(p.Buckets)
	maps.Copy(union, c.Buckets)
	keys := slices.Sorted(maps.Keys(union))
	until := later(end, consumerEnd)
	width := time.Duration(w) * time.Second
	var out []Interval
	var backlog int64
	add := func(k int64) {
		pb, cb := p.Buckets[k], c.Buckets[k]
		if pb != nil {
			backlog += pb.Done
		}
		if cb != nil {
			backlog -= cb.Done
		}
		from := time.Unix(k, 0)
		// seconds of the bucket in [start, to)
		in := func(to time.Time) float64 {
			if lo, hi := later(from, start), earlier(from.Add(width), to); hi.After(lo) {
				return hi.Sub(lo).Seconds()
			}
			return 0
		}
		secs, pSecs, cSecs := in(until), in(end), in(consumerEnd)
		if secs == 0 {
			return
		}
		iv := Interval{Start: from.UTC(), Seconds: secs, BacklogRecords: max(backlog, 0)}
		if pb != nil {
			iv.Records, iv.OfferedRecords = pb.DoneMeasured, pb.Records
			iv.Ack = percentiles(pb.Latency)
			if pSecs > 0 {
				iv.RecordsPerSecond = float64(iv.Records) / pSecs
				iv.OfferedRecordsPerSecond = float64(iv.OfferedRecords) / pSecs
			}
		}
		if cb != nil {
			iv.EndToEnd = percentiles(cb.Latency)
			if cSecs > 0 {
				iv.ConsumedRecordsPerSecond = float64(cb.DoneMeasured) / cSecs
			}
		}
		out = append(out, iv)
	}
	first := floorDiv(start.Unix(), w) * w // the window's first bucket
	for i, k := range keys {
		add(k)
		// A bucket in the window where nothing was acknowledged or received (a
		// stall) is an interval too: the intervals cover the window without gaps.
		if i+1 < len(keys) {
			for g := max(k+w, first); g < keys[i+1] && time.Unix(g, 0).Before(until); g += w {
				add(g)
			}
		}
	}
	return out
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
