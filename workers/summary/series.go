package summary

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// MaxBuckets bounds one worker's series: past it, buckets merge pairwise into ones
// twice as wide, so a day-long trial reports as much as a few minutes would.
const MaxBuckets = 120

// IntervalDigits is the precision of per-interval latency histograms: 1%, a
// twelfth of the memory of the whole-trial histograms' 0.1%.
const IntervalDigits = 2

// Series is one worker's measurements per interval of wall-clock time. Buckets are
// aligned to multiples of WidthSeconds since the Unix epoch, so every worker's
// buckets line up and merge exactly (clocks are assumed synchronized, as for
// end-to-end latency). Widths are WidthSeconds × 2^k, so any two series merge at
// the wider one's width.
type Series struct {
	// WidthSeconds is the length of every bucket.
	WidthSeconds int64 `json:"widthSeconds"`
	// Buckets by start time, in Unix seconds.
	Buckets map[int64]*Bucket `json:"buckets"`
}

// Bucket is one interval of one worker.
type Bucket struct {
	// Records is the measured records whose intended send time falls in the
	// bucket: acknowledged or failed (producer), or received, duplicates included
	// (consumer).
	Records int64 `json:"records"`
	// Latency of those records, in microseconds: acknowledgement (producer) or
	// end-to-end (consumer).
	Latency *Histogram `json:"latencyMicros,omitempty"`
	// Done is the trial's records, warmup included, acknowledged (producer) or
	// first received (consumer) during the bucket by this worker's clock. Their
	// running difference is the consumers' backlog.
	Done int64 `json:"done"`
	// DoneMeasured is the measured ones among Done: the throughput achieved in the
	// bucket, where Records is the load offered.
	DoneMeasured int64 `json:"doneMeasured"`
	// FirstSeq is, per partition, the least sequence number among one producer's
	// measured records due in the bucket. A producer numbers each partition's
	// records in the order they are due, so it maps a time to the records sent from
	// then on: the fault phases split the acknowledged, failed and lost sets by it.
	// Meaningless once series of several producers are merged.
	FirstSeq map[int]int64 `json:"firstSeq,omitempty"`
	// Duplicates is the extra copies received (consumer) of measured records due
	// in the bucket.
	Duplicates int64 `json:"duplicates,omitempty"`
	// Failures is the measured records whose send failed during the bucket, by this
	// worker's clock (producer), and FirstFailure when the earliest of them failed.
	Failures     int64      `json:"failures,omitempty"`
	FirstFailure *time.Time `json:"firstFailure,omitempty"`
}

// NewSeries returns an empty series of buckets widthSeconds long (at least 1).
func NewSeries(widthSeconds int64) *Series {
	return &Series{WidthSeconds: max(widthSeconds, 1), Buckets: map[int64]*Bucket{}}
}

// Clone returns a copy of s that shares nothing with it.
func (s *Series) Clone() *Series {
	c := NewSeries(s.WidthSeconds)
	c.Merge(s)
	return c
}

// done is the series' Done over all buckets.
func (s *Series) done() int64 {
	var n int64
	for _, b := range s.Buckets {
		n += b.Done
	}
	return n
}

// bucket returns the bucket holding t, creating it (and coarsening) as needed.
func (s *Series) bucket(t time.Time) *Bucket {
	k := floorDiv(t.Unix(), s.WidthSeconds) * s.WidthSeconds
	if b := s.Buckets[k]; b != nil {
		return b
	}
	if len(s.Buckets) >= MaxBuckets {
		s.coarsen(s.WidthSeconds * 2)
		return s.bucket(t)
	}
	b := &Bucket{}
	s.Buckets[k] = b
	return b
}

// Measured adds a measured record intended at intended with latency latMicros.
func (s *Series) Measured(intended time.Time, latMicros int64) {
	b := s.bucket(intended)
	b.Records++
	if b.Latency == nil {
		b.Latency = newIntervalLatency()
	}
	b.Latency.Record(latMicros)
}

// Offered counts a measured record due at intended that has no latency (its send
// failed): offered load, not achieved.
func (s *Series) Offered(intended time.Time) { s.bucket(intended).Records++ }

// Seq notes that a producer's measured record due at intended went to partition
// with sequence number seq.
func (s *Series) Seq(intended time.Time, partition int, seq int64) {
	b := s.bucket(intended)
	if b.FirstSeq == nil {
		b.FirstSeq = map[int]int64{}
	}
	if v, ok := b.FirstSeq[partition]; !ok || seq < v {
		b.FirstSeq[partition] = seq
	}
}

// Duplicate counts an extra copy received of a measured record due at intended.
func (s *Series) Duplicate(intended time.Time) { s.bucket(intended).Duplicates++ }

// Failure counts a measured record whose send failed at t.
func (s *Series) Failure(t time.Time) {
	b := s.bucket(t)
	b.Failures++
	if b.FirstFailure == nil || t.Before(*b.FirstFailure) {
		t := t.UTC()
		b.FirstFailure = &t
	}
}

// Done counts one of the trial's records acknowledged or first received at t.
func (s *Series) Done(t time.Time, measured bool) {
	b := s.bucket(t)
	b.Done++
	if measured {
		b.DoneMeasured++
	}
}

// Merge adds o's buckets to s, at the wider of the two widths.
func (s *Series) Merge(o *Series) {
	if o == nil {
		return
	}
	if o.WidthSeconds > s.WidthSeconds {
		s.coarsen(o.WidthSeconds)
	}
	for k, b := range o.Buckets {
		k = floorDiv(k, s.WidthSeconds) * s.WidthSeconds
		s.add(k, b)
	}
}

// coarsen re-buckets s at width (a multiple of its width).
func (s *Series) coarsen(width int64) {
	old := s.Buckets
	s.WidthSeconds, s.Buckets = width, map[int64]*Bucket{}
	for k, b := range old {
		s.add(floorDiv(k, width)*width, b)
	}
}

func (s *Series) add(k int64, b *Bucket) {
	d := s.Buckets[k]
	if d == nil {
		d = &Bucket{}
		s.Buckets[k] = d
	}
	d.Records += b.Records
	d.Done += b.Done
	d.DoneMeasured += b.DoneMeasured
	d.Duplicates += b.Duplicates
	d.Failures += b.Failures
	if b.FirstFailure != nil && (d.FirstFailure == nil || b.FirstFailure.Before(*d.FirstFailure)) {
		t := *b.FirstFailure
		d.FirstFailure = &t
	}
	for p, seq := range b.FirstSeq {
		if d.FirstSeq == nil {
			d.FirstSeq = map[int]int64{}
		}
		if v, ok := d.FirstSeq[p]; !ok || seq < v {
			d.FirstSeq[p] = seq
		}
	}
	if b.Latency != nil {
		if d.Latency == nil {
			d.Latency = newIntervalLatency()
		}
		d.Latency.Merge(b.Latency)
	}
}

func newIntervalLatency() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, MaxLatencyMicros, IntervalDigits)}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
