package producer

import (
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

func TestScheduleFixedRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := newSchedule(4, nil, t0)
	for i := range int64(10) {
		due, ok := s.at(i)
		if !ok || !due.Equal(t0.Add(time.Duration(i)*250*time.Millisecond)) {
			t.Fatalf("record %d due %v (ok %v)", i, due, ok)
		}
	}
}

// TestScheduleSearchSteps: 2 s of warmup at the start rate, then steps of 1 s at
// 10, 15 (+50%), 23 (22.5 rounded) and the cap 30, which ends the search after its step.
func TestScheduleSearchSteps(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := newSchedule(10, &trial.RateSearch{StepPercent: 50, StepSeconds: 1, MaxRecordsPerSecond: 30}, t0)
	var i int64
	for ; i < 20; i++ { // warmup: 2 s at 10/s
		due, _ := s.at(i)
		if want := t0.Add(time.Duration(i) * 100 * time.Millisecond); !due.Equal(want) {
			t.Fatalf("warmup record %d due %v, want %v", i, due, want)
		}
	}
	due, _ := s.at(i)
	s.begin(i, due, time.Minute)
	perStep := map[int]int{}
	var last time.Time
	for {
		due, ok := s.at(i)
		if !ok {
			break
		}
		if due.Before(last) {
			t.Fatalf("record %d due %v before the previous one %v", i, due, last)
		}
		last = due
		perStep[s.step]++
		i++
		if i > 1000 {
			t.Fatal("the search never ended")
		}
	}
	want := []int64{10, 15, 23, 30}
	if len(s.steps) != len(want) {
		t.Fatalf("steps %+v, want rates %v", s.steps, want)
	}
	for k, st := range s.steps {
		if st.target != want[k] || !st.complete || perStep[k] != int(want[k]) {
			t.Errorf("step %d: %+v with %d records; want rate %d, complete, %d records", k, st, perStep[k], want[k], want[k])
		}
	}
	if end := t0.Add(6 * time.Second); !last.Before(end) || last.Before(end.Add(-100*time.Millisecond)) {
		t.Errorf("last record due %v, want just before %v", last, end)
	}
}

func TestScheduleBehind(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := newSchedule(10, &trial.RateSearch{StepPercent: 25, StepSeconds: 2}, t0)
	if s.behind(t0, t0.Add(time.Hour)) {
		t.Error("behind before the search began")
	}
	s.begin(0, t0, 0)
	if s.behind(t0, t0.Add(1999*time.Millisecond)) || !s.behind(t0, t0.Add(2*time.Second)) {
		t.Error("a whole step (2 s) late is behind; less is not")
	}
}

// TestScheduleWindowEnds: a window of 2.5 steps ends the search within step 2,
// which is cut short; a window of exactly 2 steps completes both and starts no
// third.
func TestScheduleWindowEnds(t *testing.T) {
	for _, c := range []struct {
		window time.Duration
		steps  []stepPlan
	}{
		{2500 * time.Millisecond, []stepPlan{{10, true, false}, {20, true, false}, {40, false, true}}},
		{2 * time.Second, []stepPlan{{10, true, false}, {20, true, false}}},
	} {
		t0 := time.Unix(1000, 0)
		s := newSchedule(10, &trial.RateSearch{StepPercent: 100, StepSeconds: 1}, t0)
		s.begin(0, t0, c.window)
		var i int64
		for ; ; i++ {
			due, ok := s.at(i)
			if !ok {
				break
			}
			if !due.Before(t0.Add(c.window)) {
				t.Fatalf("window %v: record %d due %v, after the window", c.window, i, due)
			}
		}
		if len(s.steps) != len(c.steps) {
			t.Fatalf("window %v: steps %+v, want %+v", c.window, s.steps, c.steps)
		}
		for k := range c.steps {
			if s.steps[k] != c.steps[k] {
				t.Errorf("window %v: step %d %+v, want %+v", c.window, k, s.steps[k], c.steps[k])
			}
		}
	}
}

// TestFirstMeasured: the first measured record of an open loop is the first at or
// after the warmup's records whose intended time is not before the warmup's end,
// as the sender classifies each record, across rates that divide a second evenly
// and ones that do not.
func TestFirstMeasured(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, rate := range []int64{1, 3, 7, 1000, 7777, 250000} {
		for _, warmup := range []time.Duration{0, time.Second, 1500 * time.Millisecond, 3 * time.Second} {
			for _, records := range []int64{0, 1, 5, 20000} {
				s := newSchedule(rate, nil, t0)
				end := t0.Add(warmup)
				want := int64(0)
				for ; ; want++ { // the sender's rule, record by record
					at, _ := s.at(want)
					if want >= records && !at.Before(end) {
						break
					}
				}
				if got := firstMeasured(s, records, end); got != want {
					t.Errorf("rate %d, warmup %v and %d records: first measured %d, want %d", rate, warmup, records, got, want)
				}
			}
		}
	}
}
