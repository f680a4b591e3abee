package producer

import (
	"math"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// schedule gives each record of an open loop its intended send time: start +
// i/rate at a fixed rate; with a rate search, measuring runs in steps of
// search.StepSeconds whose rate rises by search.StepPercent each.
type schedule struct {
	rate   float64
	origin time.Time // the current segment's start: record first is due then
	first  int64
	search *trial.RateSearch
	// step is the current step (-1: not measuring yet, or no search); steps are
	// the rates each step ran at and whether it was sent in full.
	step      int
	stepStart time.Time
	steps     []stepPlan
	// end is when the measured window ends (zero: no end by time).
	end time.Time
}

// stepPlan is one step as the producer ran it.
type stepPlan struct {
	target int64
	// complete: the whole step was sent; cut: the measured window ended within it.
	complete, cut bool
}

func newSchedule(rate int64, search *trial.RateSearch, start time.Time) *schedule {
	return &schedule{rate: float64(rate), origin: start, search: search, step: -1}
}

func (s *schedule) stepLen() time.Duration { return time.Duration(s.search.StepSeconds) * time.Second }

// at returns record i's intended time, starting the next step when the current one
// is over; ok is false when the search has run its last step or its time.
func (s *schedule) at(i int64) (time.Time, bool) {
	due := s.origin.Add(time.Duration(float64(i-s.first) * 1e9 / s.rate))
	if s.step < 0 {
		return due, true
	}
	end := s.stepStart.Add(s.stepLen())
	if !s.end.IsZero() && !due.Before(s.end) {
		// The window is over: the step ended with it, or was cut short by it.
		s.steps[s.step].complete = !due.Before(end)
		s.steps[s.step].cut = due.Before(end)
		return time.Time{}, false
	}
	if due.Before(end) {
		return due, true
	}
	s.steps[s.step].complete = true
	cur := int64(s.rate)
	if limit := s.search.MaxRecordsPerSecond; limit > 0 && cur >= limit {
		return time.Time{}, false
	}
	// At least one more record per second, so small rates rise too.
	next := max(cur+1, int64(math.Round(float64(cur)*float64(100+s.search.StepPercent)/100)))
	if limit := s.search.MaxRecordsPerSecond; limit > 0 {
		next = min(next, limit)
	}
	s.step++
	s.steps = append(s.steps, stepPlan{target: next})
	s.rate, s.origin, s.first, s.stepStart = float64(next), end, i, end
	return end, true
}

// begin starts step 0 with record i, the first measured one, due at due; the
// measured window lasts window (0: not limited by time).
func (s *schedule) begin(i int64, due time.Time, window time.Duration) {
	if s.search == nil {
		return
	}
	if window > 0 {
		s.end = due.Add(window)
	}
	s.step, s.stepStart, s.origin, s.first = 0, due, due, i
	s.steps = []stepPlan{{target: int64(s.rate)}}
}

// behind reports whether a record due at due and sent now is a whole step late:
// the current step cannot be sustained and the search ends.
func (s *schedule) behind(due, now time.Time) bool {
	return s.step >= 0 && now.Sub(due) >= s.stepLen()
}

// firstMeasured is an open loop's first measured record: the first at or after
// warmupRecords whose intended time is not before measureStart. It asks at
// before the search's first step, where at is a pure function of i.
func firstMeasured(s *schedule, warmupRecords int64, measureStart time.Time) int64 {
	before := func(i int64) bool { at, _ := s.at(i); return at.Before(measureStart) }
	i := max(warmupRecords, int64(measureStart.Sub(s.origin).Seconds()*s.rate)-1)
	for i > warmupRecords && !before(i-1) {
		i--
	}
	for before(i) {
		i++
	}
	return i
}
