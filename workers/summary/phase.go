package summary

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// part is a phase while it is measured: its rates exact and its percentiles
// whole, as the recovery test compares against them; model makes it the
// result's integers.
type part struct {
	start, end time.Time
	// seconds of the producers' measured window in the phase.
	seconds                  float64
	records, offered         int64
	ack, e2e                 Percentiles
	failed, lost, duplicated int64
}

// rate is the records acknowledged per second of the window in the part.
func (pt *part) rate() float64 {
	if pt.seconds == 0 {
		return 0
	}
	return float64(pt.records) / pt.seconds
}

// model is the part as the result states it, its bounds in milliseconds since
// origin (the measured window's start).
func (pt *part) model(origin time.Time) *trial.Phase {
	if pt == nil {
		return nil
	}
	ph := &trial.Phase{StartMillis: millisSince(origin, pt.start), EndMillis: millisSince(origin, pt.end),
		WindowMillis: int64(math.Round(pt.seconds * 1000)), Records: pt.records,
		AckMicros:      trial.PhaseLatencyMicros{P50: pt.ack.P50, P99: pt.ack.P99, Max: pt.ack.Max},
		EndToEndMicros: trial.PhaseLatencyMicros{P50: pt.e2e.P50, P99: pt.e2e.P99, Max: pt.e2e.Max},
		FailedRecords:  pt.failed, LostRecords: pt.lost, DuplicatedRecords: pt.duplicated}
	if pt.seconds > 0 {
		ph.RecordsPerSecond = int64(math.Round(pt.rate()))
		ph.OfferedRecordsPerSecond = int64(math.Round(float64(pt.offered) / pt.seconds))
	}
	return ph
}

// millisSince is t - origin in whole milliseconds, rounded.
func millisSince(origin, t time.Time) int64 {
	return t.Sub(origin).Round(time.Millisecond).Milliseconds()
}

// SplitAtFault sets r.Phases: the trial split at its fault's actual window, start
// to end, or a kill at start (end zero). The phases are whole intervals of the
// workers' series.
func (r *Result) SplitAtFault(start, end time.Time, band trial.Recovery) error {
	ph, err := r.phases(start, end, band)
	if err != nil {
		return err
	}
	r.Phases = ph
	return nil
}

func (r *Result) phases(start, end time.Time, band trial.Recovery) (*trial.Phases, error) {
	if r.producerSeries == nil {
		return nil, fmt.Errorf("phases: the trial has no per-interval series (workers of an older version)")
	}
	if start.IsZero() {
		return nil, fmt.Errorf("phases: the fault's start is unknown")
	}
	band.Intervals = max(band.Intervals, 1)
	p, c := r.producerSeries.Clone(), r.consumerSeries.Clone()
	w := max(p.WidthSeconds, c.WidthSeconds)
	p.coarsen(w)
	c.coarsen(w)
	width := time.Duration(w) * time.Second
	until := later(r.windowEnd, r.consumerEnd)
	first := time.Unix(floorDiv(r.windowStart.Unix(), w)*w, 0)
	var keys []time.Time                                // every interval of the window, in order
	for k := first; !k.After(until); k = k.Add(width) { // an acknowledgement at until is in until's interval
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("phases: the trial's window is empty")
	}
	// pSecs is the part of interval k in the producers' window.
	pSecs := func(k time.Time) float64 {
		if lo, hi := later(k, r.windowStart), earlier(k.Add(width), r.windowEnd); hi.After(lo) {
			return hi.Sub(lo).Seconds()
		}
		return 0
	}
	ph := &trial.Phases{ResolutionSeconds: int32(w), FaultStartMillis: millisSince(r.windowStart, start), Band: band, RecoveryFrom: trial.RecoveryFromEnd}
	ref := end
	if end.IsZero() {
		ref, ph.RecoveryFrom = start, trial.RecoveryFromKill
	} else {
		e := millisSince(r.windowStart, end)
		ph.FaultEndMillis = &e
	}
	// Intervals wholly before the fault make the before phase; the rest until
	// afterFrom the during phase.
	duringFrom := len(keys)
	for i, k := range keys {
		if k.Add(width).After(start) {
			duringFrom = i
			break
		}
	}
	before := r.phase(p, c, keys[:duringFrom], pSecs, width)
	// steady: whole interval k has producer records and throughput within the band.
	steady := func(k time.Time) bool {
		pb := p.Buckets[k.Unix()]
		if pSecs(k) < width.Seconds() || pb == nil || pb.Latency == nil {
			return false
		}
		rate := float64(pb.DoneMeasured) / pSecs(k)
		return math.Abs(rate-before.rate()) <= float64(band.ThroughputPercent)/100*before.rate()
	}
	// calm: the records due in intervals run, together, have their p99 within the
	// band (one interval's p99 of a few dozen records is its maximum: merged, one
	// slow record does not decide).
	calm := func(run []time.Time) bool {
		ack, e2e := newIntervalLatency(), newIntervalLatency()
		for _, k := range run {
			if b := p.Buckets[k.Unix()]; b != nil && b.Latency != nil {
				ack.Merge(b.Latency)
			}
			if b := c.Buckets[k.Unix()]; b != nil && b.Latency != nil {
				e2e.Merge(b.Latency)
			}
		}
		limit := func(p99 int64) float64 { return float64(p99) * (1 + float64(band.LatencyPercent)/100) }
		if float64(ack.Quantile(99)) > limit(before.ack.P99) {
			return false
		}
		return before.e2e.Count == 0 || (e2e.Count() > 0 && float64(e2e.Quantile(99)) <= limit(before.e2e.P99))
	}
	// Recovery: the first interval starting at or after ref that begins a run of
	// band.Intervals intervals, each within the throughput band and together within
	// the latency band.
	recovered := -1
	n := int(band.Intervals)
	switch {
	case before == nil || before.records == 0 || before.ack.Count == 0:
		ph.RecoveryNote = "no interval before the fault: nothing to recover to (start the fault later)"
	case !end.IsZero() && end.After(until):
		ph.RecoveryNote = "the fault was still in effect when the window ended: nothing to recover from (end it earlier or measure longer)"
	default:
		for i := range keys {
			// A kill's own interval is during it, even when the kill falls on the
			// interval's first instant (Chaos Mesh reports whole seconds): the
			// earliest recovery is the interval after.
			if keys[i].Before(ref) || (end.IsZero() && i <= duringFrom) || i+n > len(keys) {
				continue
			}
			run := keys[i : i+n]
			if slices.IndexFunc(run, func(k time.Time) bool { return !steady(k) }) < 0 && calm(run) {
				recovered = i
				break
			}
		}
		if recovered < 0 {
			ph.RecoveryNote = fmt.Sprintf("not back within the band (%s) before the window ended", band)
		}
	}
	if recovered >= 0 {
		ms := millisSince(ref, keys[recovered])
		ph.RecoveryMillis = &ms
	}
	// The during phase ends with the fault (a kill: with the recovery); an
	// interval the fault's end falls in is still during.
	afterFrom := len(keys)
	switch {
	case !end.IsZero():
		for i := duringFrom; i < len(keys); i++ {
			if !keys[i].Before(end) {
				afterFrom = i
				break
			}
		}
	case recovered >= 0:
		afterFrom = max(recovered, duringFrom)
	}
	parts := [3]*part{before, r.phase(p, c, keys[duringFrom:afterFrom], pSecs, width), r.phase(p, c, keys[afterFrom:], pSecs, width)}
	// Time to the first error: the earliest failure at or after the fault's start
	// (an interval holds only its earliest failure's time, so in the interval the
	// fault began in, a failure just before it can hide one after).
	for _, k := range keys[duringFrom:] {
		if b := p.Buckets[k.Unix()]; b != nil && b.FirstFailure != nil && !b.FirstFailure.Before(start) {
			ms := millisSince(start, *b.FirstFailure)
			ph.FirstErrorMillis = &ms
			break
		}
	}
	if err := r.splitSets(parts, keys, duringFrom, afterFrom, w); err != nil {
		return nil, err
	}
	ph.Before, ph.During, ph.After = parts[0].model(r.windowStart), parts[1].model(r.windowStart), parts[2].model(r.windowStart)
	return ph, nil
}

// phase merges the intervals keys (contiguous) into one phase (nil for none).
func (r *Result) phase(p, c *Series, keys []time.Time, pSecs func(time.Time) float64, width time.Duration) *part {
	if len(keys) == 0 {
		return nil
	}
	ph := &part{start: later(keys[0], r.windowStart), end: earlier(keys[len(keys)-1].Add(width), later(r.windowEnd, r.consumerEnd))}
	ack, e2e := newIntervalLatency(), newIntervalLatency()
	for _, k := range keys {
		ph.seconds += pSecs(k)
		if b := p.Buckets[k.Unix()]; b != nil {
			ph.records += b.DoneMeasured
			ph.offered += b.Records
			if b.Latency != nil {
				ack.Merge(b.Latency)
			}
		}
		if b := c.Buckets[k.Unix()]; b != nil {
			ph.duplicated += b.Duplicates
			if b.Latency != nil {
				e2e.Merge(b.Latency)
			}
		}
	}
	ph.ack, ph.e2e = percentiles(ack), percentiles(e2e)
	return ph
}

// splitSets counts each phase's failed and lost records: per producer and
// partition, the records from the first one due in the phase's first interval to
// the first one due in the next phase's.
func (r *Result) splitSets(phases [3]*part, keys []time.Time, duringFrom, afterFrom int, w int64) error {
	type key struct{ producer, partition int }
	acked, failed, received := map[key]Intervals{}, map[key]Intervals{}, map[key]Intervals{}
	cuts := map[key][3]int64{} // first seq of before, during, after
	bounds := [3]int64{keys[0].Unix(), math.MaxInt64, math.MaxInt64}
	if duringFrom < len(keys) {
		bounds[1] = keys[duringFrom].Unix()
	}
	if afterFrom < len(keys) {
		bounds[2] = keys[afterFrom].Unix()
	}
	for _, s := range r.summaries {
		switch s.Role {
		case RoleConsumer:
			for _, d := range s.Received {
				k := key{d.Producer, d.Partition}
				received[k] = append(received[k], d.Intervals...)
			}
		case RoleProducer:
			var id int
			if _, err := fmt.Sscanf(s.Worker, "%d", &id); err != nil {
				return fmt.Errorf("producer summary with non-numeric worker %q", s.Worker)
			}
			for _, d := range s.Acked {
				k := key{id, d.Partition}
				acked[k] = append(acked[k], d.Intervals...)
			}
			for _, d := range s.Failed {
				k := key{id, d.Partition}
				failed[k] = append(failed[k], d.Intervals...)
			}
			if s.Series == nil {
				continue
			}
			own := s.Series.Clone()
			own.coarsen(w)
			for _, b := range slices.Sorted(maps.Keys(own.Buckets)) {
				for part, seq := range own.Buckets[b].FirstSeq {
					k := key{id, part}
					c, ok := cuts[k]
					if !ok {
						c = [3]int64{math.MaxInt64, math.MaxInt64, math.MaxInt64}
					}
					// cut i: the least seq due at or after phase i's first interval
					for i, from := range bounds {
						if b >= from && seq < c[i] {
							c[i] = seq
						}
					}
					cuts[k] = c
				}
			}
		}
	}
	for k, c := range cuts {
		for i, dst := range phases {
			if dst == nil {
				continue
			}
			hi := int64(math.MaxInt64)
			if i+1 < len(c) {
				hi = c[i+1]
			}
			in := Intervals{{c[i], hi}}
			if c[i] >= hi {
				continue
			}
			dst.failed += failed[k].Intersect(in).Size()
			dst.lost += acked[k].Intersect(in).Minus(received[k]).Size()
		}
	}
	return nil
}
