package summary

import "fmt"

// Step is one step of a rate search as one worker saw it.
type Step struct {
	// Index of the step, from 0.
	Index int `json:"index"`
	// TargetPerSecond is the producer's rate in the step (producers only).
	TargetPerSecond int64 `json:"targetPerSecond,omitempty"`
	// Complete is true when the producer sent the whole step, CutShort when the
	// measured window ended within it (producers only).
	Complete bool `json:"complete,omitempty"`
	CutShort bool `json:"cutShort,omitempty"`
	// Records of the step: acknowledged (producer) or received, each once
	// (consumer).
	Records int64 `json:"records"`
	// Failed sends of the step (producers only).
	Failed int64 `json:"failed,omitempty"`
	// Latency of the step's records in microseconds: acknowledgement (producer) or
	// end-to-end (consumer), at 1% precision.
	Latency *Histogram `json:"latencyMicros,omitempty"`
}

// Steps are a rate search's steps by index.
type Steps []Step

// At returns step k, adding the steps up to it.
func (s *Steps) At(k int) *Step {
	for len(*s) <= k {
		*s = append(*s, Step{Index: len(*s)})
	}
	return &(*s)[k]
}

// Clone returns a copy that shares nothing with s.
func (s Steps) Clone() Steps {
	var c Steps
	for _, st := range s {
		c = append(c, st.Clone())
	}
	return c
}

// Add records one of the step's records with latency latMicros.
func (s *Step) Add(latMicros int64) {
	s.Records++
	if s.Latency == nil {
		s.Latency = newIntervalLatency()
	}
	s.Latency.Record(latMicros)
}

// Clone returns a copy that shares nothing with s.
func (s Step) Clone() Step {
	c := s
	if s.Latency != nil {
		c.Latency = newIntervalLatency()
		c.Latency.Merge(s.Latency)
	}
	return c
}

// Search is a rate search's outcome: its steps, all workers merged, and the
// highest rate every step up to it sustained.
type Search struct {
	// MaxSustainedRecordsPerSecond is the target rate of all producers together
	// in the last of the sustained steps that began the search (0: not even the
	// first).
	MaxSustainedRecordsPerSecond int64 `json:"maxSustainedRecordsPerSecond"`
	// Steps in order.
	Steps []SearchStep `json:"steps"`
	// Stopped says why the search ended before its duration, if it did.
	Stopped string `json:"stopped,omitempty"`
}

// SearchStep is one step of a search, every worker merged.
type SearchStep struct {
	Index int `json:"index"`
	// TargetRecordsPerSecond is the producers' rates in the step, added.
	TargetRecordsPerSecond int64 `json:"targetRecordsPerSecond"`
	// Records acknowledged of the step's records.
	Records int64 `json:"records"`
	// Received of the step's records, each once per consumer.
	Received int64 `json:"received"`
	// Failed sends of the step.
	Failed int64 `json:"failed"`
	// Ack and EndToEnd are the step's latencies in microseconds (1% precision).
	Ack      Percentiles `json:"ackMicros"`
	EndToEnd Percentiles `json:"endToEndMicros"`
	// Sustained: every producer sent the whole step, nothing failed, every
	// acknowledged record arrived, and both p99s are within the bound.
	Sustained bool `json:"sustained"`
	// Why the step was not sustained.
	Reason string `json:"reason,omitempty"`
}

// EvaluateSearch sets r.Search from the merged workers' steps of a rate search;
// maxP99Micros bounds a sustained step's p99s.
func (r *Result) EvaluateSearch(maxP99Micros int64) {
	r.Search = mergeSearch(r.summaries, r.Producers, maxP99Micros)
}

func mergeSearch(summaries []*Summary, producers int, maxP99Micros int64) *Search {
	type acc struct {
		target, records, received, failed int64
		complete, cut                     int
		ack, e2e                          *Histogram
	}
	var steps []*acc
	get := func(k int) *acc {
		for len(steps) <= k {
			steps = append(steps, &acc{ack: newIntervalLatency(), e2e: newIntervalLatency()})
		}
		return steps[k]
	}
	out := &Search{}
	searched := false
	for _, s := range summaries {
		if s.SearchStop != "" && out.Stopped == "" {
			out.Stopped = s.SearchStop
		}
		for _, st := range s.Steps {
			searched = true
			a := get(st.Index)
			if s.Role == RoleProducer {
				a.target += st.TargetPerSecond
				a.records += st.Records
				a.failed += st.Failed
				if st.Complete {
					a.complete++
				}
				if st.CutShort {
					a.cut++
				}
				a.ack.Merge(st.Latency)
			} else {
				a.received += st.Records
				a.e2e.Merge(st.Latency)
			}
		}
	}
	if !searched {
		return nil
	}
	// A step a producer opened but never sent a record of (it stopped the search
	// on that record) is no step.
	for len(steps) > 0 {
		if a := steps[len(steps)-1]; a.records > 0 || a.failed > 0 || a.received > 0 {
			break
		}
		steps = steps[:len(steps)-1]
	}
	sustaining := true
	for k, a := range steps {
		st := SearchStep{Index: k, TargetRecordsPerSecond: a.target, Records: a.records, Received: a.received, Failed: a.failed,
			Ack: percentiles(a.ack), EndToEnd: percentiles(a.e2e)}
		// The cause first: a producer that saw its step fail stops sending, which
		// leaves the step incomplete as a consequence.
		switch {
		case a.failed > 0:
			st.Reason = fmt.Sprintf("%d sends failed", a.failed)
		case st.Ack.P99 > maxP99Micros:
			st.Reason = fmt.Sprintf("ack p99 %d µs above %d µs", st.Ack.P99, maxP99Micros)
		case st.EndToEnd.P99 > maxP99Micros:
			st.Reason = fmt.Sprintf("end-to-end p99 %d µs above %d µs", st.EndToEnd.P99, maxP99Micros)
		case a.received < a.records:
			st.Reason = fmt.Sprintf("%d of %d acknowledged records arrived", a.received, a.records)
		case a.cut > 0:
			st.Reason = "the trial's durationSeconds ended within the step"
		case a.complete < producers:
			st.Reason = fmt.Sprintf("%d of %d producers sent the whole step", a.complete, producers)
		default:
			st.Sustained = true
		}
		if sustaining && st.Sustained {
			out.MaxSustainedRecordsPerSecond = st.TargetRecordsPerSecond
		} else {
			sustaining = false
		}
		out.Steps = append(out.Steps, st)
	}
	return out
}
