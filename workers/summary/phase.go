package summary

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// Phase is one part of a faulted trial's window. Its bounds are interval
// boundaries (clipped to the window): an interval the fault overlaps belongs to
// the fault's phase.
type Phase struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Seconds of the producers' measured window in the phase.
	Seconds float64 `json:"seconds"`
	// Records is the measured records acknowledged during the phase, and
	// RecordsPerSecond that over Seconds: the throughput achieved.
	Records          int64   `json:"records"`
	RecordsPerSecond float64 `json:"recordsPerSecond"`
	// OfferedRecordsPerSecond is the measured records due in the phase over Seconds.
	OfferedRecordsPerSecond float64 `json:"offeredRecordsPerSecond"`
	// Ack and EndToEnd are the latencies of the records due in the phase, in
	// microseconds at 1% precision.
	Ack      Percentiles `json:"ackMicros"`
	EndToEnd Percentiles `json:"endToEndMicros"`
	// Failed, Lost and Duplicated count the phase's records (by due time) whose
	// send failed, that were acknowledged and never received, and the extra copies
	// received: the trial's exact sets, cut at the phase's bounds.
	Failed     int64 `json:"failed"`
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
}

// Phases are a faulted trial's measurements before, during and after its fault.
type Phases struct {
	// ResolutionSeconds is the length of the intervals the phases are made of:
	// phase bounds, the time to the first error's bucket and the recovery time are
	// exact to it.
	ResolutionSeconds int64 `json:"resolutionSeconds"`
	// FaultStart and FaultEnd are when the fault was applied and removed; a kill
	// acts once and has no end. A fault still in effect when the window ended has
	// a FaultEnd after it (when it was found so) and no after phase or recovery.
	FaultStart time.Time  `json:"faultStart"`
	FaultEnd   *time.Time `json:"faultEnd,omitempty"`
	// Before, During and After cover the window; each is absent when no interval
	// is left for it: Before when the fault began in the window's first interval,
	// After when the trial never recovered from a kill or the fault lasted until
	// the window's end.
	Before *Phase `json:"before,omitempty"`
	During *Phase `json:"during,omitempty"`
	After  *Phase `json:"after,omitempty"`
	// FirstErrorSeconds is from the fault's start to the first send that failed
	// after it (absent: none failed).
	FirstErrorSeconds *float64 `json:"firstErrorSeconds,omitempty"`
	// Band is what recovered means.
	Band trial.Recovery `json:"band"`
	// RecoverySeconds is from RecoveryFrom (the fault's end; for a kill, the kill)
	// to the start of the first interval of Band.Intervals in a row within Band
	// (absent: not recovered within the window; RecoveryNote says why).
	RecoverySeconds *float64 `json:"recoverySeconds,omitempty"`
	RecoveryFrom    string   `json:"recoveryFrom"`
	RecoveryNote    string   `json:"recoveryNote,omitempty"`
}

// Where recovery is timed from.
const (
	RecoveryFromEnd  = "FaultEnd"
	RecoveryFromKill = "Kill"
)

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

func (r *Result) phases(start, end time.Time, band trial.Recovery) (*Phases, error) {
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
	ph := &Phases{ResolutionSeconds: w, FaultStart: start.UTC(), Band: band, RecoveryFrom: RecoveryFromEnd}
	ref := end
	if end.IsZero() {
		ref, ph.RecoveryFrom = start, RecoveryFromKill
	} else {
		e := end.UTC()
		ph.FaultEnd = &e
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
		return math.Abs(rate-before.RecordsPerSecond) <= float64(band.ThroughputPercent)/100*before.RecordsPerSecond
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
		if float64(ack.Quantile(99)) > limit(before.Ack.P99) {
			return false
		}
		return before.EndToEnd.Count == 0 || (e2e.Count() > 0 && float64(e2e.Quantile(99)) <= limit(before.EndToEnd.P99))
	}
	// Recovery: the first interval starting at or after ref that begins a run of
	// band.Intervals intervals, each within the throughput band and together within
	// the latency band.
	recovered := -1
	n := int(band.Intervals)
	switch {
	case before == nil || before.Records == 0 || before.Ack.Count == 0:
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
		s := keys[recovered].Sub(ref).Seconds()
		ph.RecoverySeconds = &s
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
	ph.Before = before
	ph.During = r.phase(p, c, keys[duringFrom:afterFrom], pSecs, width)
	ph.After = r.phase(p, c, keys[afterFrom:], pSecs, width)
	// Time to the first error: the earliest failure at or after the fault's start
	// (an interval holds only its earliest failure's time, so in the interval the
	// fault began in, a failure just before it can hide one after).
	for _, k := range keys[duringFrom:] {
		if b := p.Buckets[k.Unix()]; b != nil && b.FirstFailure != nil && !b.FirstFailure.Before(start) {
			s := b.FirstFailure.Sub(start).Seconds()
			ph.FirstErrorSeconds = &s
			break
		}
	}
	if err := r.splitSets(ph, keys, duringFrom, afterFrom, w); err != nil {
		return nil, err
	}
	return ph, nil
}

// phase merges the intervals keys (contiguous) into one phase (nil for none).
func (r *Result) phase(p, c *Series, keys []time.Time, pSecs func(time.Time) float64, width time.Duration) *Phase {
	if len(keys) == 0 {
		return nil
	}
	ph := &Phase{Start: later(keys[0], r.windowStart).UTC(), End: earlier(keys[len(keys)-1].Add(width), later(r.windowEnd, r.consumerEnd)).UTC()}
	ack, e2e := newIntervalLatency(), newIntervalLatency()
	var offered int64
	for _, k := range keys {
		ph.Seconds += pSecs(k)
		if b := p.Buckets[k.Unix()]; b != nil {
			ph.Records += b.DoneMeasured
			offered += b.Records
			if b.Latency != nil {
				ack.Merge(b.Latency)
			}
		}
		if b := c.Buckets[k.Unix()]; b != nil {
			ph.Duplicated += b.Duplicates
			if b.Latency != nil {
				e2e.Merge(b.Latency)
			}
		}
	}
	if ph.Seconds > 0 {
		ph.RecordsPerSecond = float64(ph.Records) / ph.Seconds
		ph.OfferedRecordsPerSecond = float64(offered) / ph.Seconds
	}
	ph.Ack, ph.EndToEnd = percentiles(ack), percentiles(e2e)
	return ph
}

// splitSets counts each phase's failed and lost records: per producer and
// partition, the records from the first one due in the phase's first interval to
// the first one due in the next phase's.
func (r *Result) splitSets(ph *Phases, keys []time.Time, duringFrom, afterFrom int, w int64) error {
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
	phases := []*Phase{ph.Before, ph.During, ph.After}
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
			dst.Failed += failed[k].Intersect(in).Size()
			dst.Lost += acked[k].Intersect(in).Minus(received[k]).Size()
		}
	}
	return nil
}
