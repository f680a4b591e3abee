package summary

import (
	"slices"
	"time"
)

// StallMin is the shortest stall counted: a partition stalled when a record of it
// waited at least this long unconsumed while nothing of the partition was
// received. Normal consumption hands a waiting record over within a fetch's round
// trip; a rebalance, a member gone or a paused consumer leave it waiting for
// hundreds of milliseconds or seconds.
const StallMin = 200 * time.Millisecond

// MaxSegments bounds one partition's segments in one consumer: stalls are rare,
// and past it a stall joins the segment it ends (the result then undercounts
// stalls, never records).
const MaxSegments = 256

// Segment is one consumer's uninterrupted consumption of one partition: from its
// first receipt to its last, no gap of StallMin with a record waiting. A consumer
// starts a segment when it first receives a partition's records and again after
// such a gap; the merge tells which segments began after a stall (a rebalance
// moved the partition, or its owner stopped) and how long it lasted.
type Segment struct {
	Partition int32 `json:"partition"`
	// First and Last are the segment's first and last receipts.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
	// FirstIntended is the intended send time of its first record (Unix ns).
	FirstIntended int64 `json:"firstIntended"`
	// Records received in it (warmup and copies included).
	Records int64 `json:"records"`
	// Delayed are its records intended before First: those that were waiting when
	// consumption began (or resumed); DelayedMaxMicros and DelayedSumMicros their
	// end-to-end latencies' largest and sum.
	Delayed          int64 `json:"delayed"`
	DelayedMaxMicros int64 `json:"delayedMaxMicros"`
	DelayedSumMicros int64 `json:"delayedSumMicros"`
}

// Stall is one partition going unconsumed while records of it waited: from the
// later of its last receipt before and the waiting record's intended send time,
// to the next receipt.
type Stall struct {
	Partition int32     `json:"partition"`
	Start     time.Time `json:"start"`
	// Micros is how long the partition went unconsumed.
	Micros int64 `json:"micros"`
	// Moved says another consumer resumed the partition (a rebalance gave it a
	// new owner); false: the same consumer resumed it.
	Moved bool `json:"moved"`
	// Delayed are the records waiting when it resumed, DelayedMaxMicros and
	// DelayedMeanMicros their end-to-end latency.
	Delayed           int64   `json:"delayed"`
	DelayedMaxMicros  int64   `json:"delayedMaxMicros"`
	DelayedMeanMicros float64 `json:"delayedMeanMicros"`
}

// Stalls are a trial's partition stalls (nil: none).
type Stalls struct {
	// SlackMicros is how long after its intended send time a record is taken
	// to have become available to consumers: the acknowledgement p99, and for a
	// transactional producer its transactions' span and the commit p99 (a
	// read-committed consumer sees nothing before the commit). A stall counts
	// from then at the earliest, so a wait that batching or a commit explains
	// is never one, and a stall is under-measured by at most the slack.
	SlackMicros int64 `json:"slackMicros"`
	// Count of stalls, all partitions; Partitions the partitions that stalled;
	// Moved the stalls another consumer ended (a rebalance moved the partition).
	Count      int `json:"count"`
	Partitions int `json:"partitions"`
	Moved      int `json:"moved"`
	// MaxMicros is the longest; TotalMicros their sum (partition-time lost).
	MaxMicros   int64 `json:"maxMicros"`
	TotalMicros int64 `json:"totalMicros"`
	// Delayed are the records waiting when consumption resumed, all stalls;
	// DelayedMaxMicros their largest end-to-end latency.
	Delayed          int64 `json:"delayed"`
	DelayedMaxMicros int64 `json:"delayedMaxMicros"`
	// Events are the stalls in order of their start (at most MaxStallEvents: the
	// longest are kept).
	Events []Stall `json:"events"`
}

// MaxStallEvents bounds the stalls a result lists.
const MaxStallEvents = 32

// stalls finds the trial's stalls in the consumers' segments: a segment whose
// first record waited at least StallMin since it became available (its
// intended time plus slack), after a gap of at least StallMin since the
// partition's previous receipt by any consumer.
func stalls(segs []Segment, owners []int, slack time.Duration) *Stalls {
	idx := make([]int, len(segs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return segs[a].First.Compare(segs[b].First) })
	var out Stalls
	last := map[int32]int{} // partition → index of the segment with the latest Last so far
	parts := map[int32]bool{}
	for _, i := range idx {
		s := segs[i]
		prev, seen := last[s.Partition]
		if seen {
			p := segs[prev]
			start := max(p.Last.UnixNano(), s.FirstIntended+slack.Nanoseconds())
			if gap := s.First.Sub(p.Last); gap >= StallMin && s.First.UnixNano()-start >= StallMin.Nanoseconds() {
				st := Stall{Partition: s.Partition, Start: time.Unix(0, start), Micros: (s.First.UnixNano() - start) / 1e3,
					Moved: owners[prev] != owners[i], Delayed: s.Delayed, DelayedMaxMicros: s.DelayedMaxMicros}
				if s.Delayed > 0 {
					st.DelayedMeanMicros = float64(s.DelayedSumMicros) / float64(s.Delayed)
				}
				out.Events = append(out.Events, st)
				out.Count++
				if st.Moved {
					out.Moved++
				}
				parts[s.Partition] = true
				out.MaxMicros = max(out.MaxMicros, st.Micros)
				out.TotalMicros += st.Micros
				out.Delayed += st.Delayed
				out.DelayedMaxMicros = max(out.DelayedMaxMicros, st.DelayedMaxMicros)
			}
		}
		if !seen || s.Last.After(segs[prev].Last) {
			last[s.Partition] = i
		}
	}
	if out.Count == 0 {
		return nil
	}
	out.Partitions = len(parts)
	out.SlackMicros = slack.Microseconds()
	if len(out.Events) > MaxStallEvents {
		slices.SortStableFunc(out.Events, func(a, b Stall) int { return int(b.Micros - a.Micros) })
		out.Events = out.Events[:MaxStallEvents]
		slices.SortStableFunc(out.Events, func(a, b Stall) int { return a.Start.Compare(b.Start) })
	}
	return &out
}

// stallSlack is Stalls.SlackMicros for a merged result.
func stallSlack(r *Result) time.Duration {
	slack := time.Duration(r.Ack.P99) * time.Microsecond
	if t := r.Transactions; t != nil && r.Producers > 0 && r.ProducerRatesSum > 0 {
		span := t.RecordsPerTransaction / (r.ProducerRatesSum / float64(r.Producers))
		slack += time.Duration(span*float64(time.Second)) + time.Duration(t.Commit.P99)*time.Microsecond
	}
	return slack
}
