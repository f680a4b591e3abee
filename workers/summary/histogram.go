// Package summary defines what a worker reports at the end of a trial and how several
// workers' reports merge into one trial result. Latency distributions travel as
// encoded HdrHistograms, so merging is exact: histograms are added, never averaged.
package summary

import (
	"encoding/json"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram ranges. Negative values (clock steps) record as 0; values above the
// range are clamped to it and counted in Histogram.Clamped so a result can say so.
const (
	// SignificantDigits keeps every recorded value within 0.1%.
	SignificantDigits = 3
	// MaxLatencyMicros is one hour.
	MaxLatencyMicros = int64(3600 * 1e6)
	// MaxDurationNanos is ten seconds, for per-record (de)serialization times.
	MaxDurationNanos = int64(10 * 1e9)
)

// Histogram is an HdrHistogram that marshals to JSON as its compressed encoding.
type Histogram struct {
	h *hdrhistogram.Histogram
	// Clamped counts values above the range that were recorded at its top.
	Clamped int64
}

// NewLatency returns a histogram for latencies in microseconds.
func NewLatency() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, MaxLatencyMicros, SignificantDigits)}
}

// StoredDigits is the precision a latency histogram is kept at between
// repetitions (NewStoredLatency): within 1 %, at a tenth of the size.
const StoredDigits = 2

// NewStoredLatency returns a latency histogram at StoredDigits, for merging
// repetitions where every byte is stored in the API.
func NewStoredLatency() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, MaxLatencyMicros, StoredDigits)}
}

// Encode is HdrHistogram's compressed V2 encoding (base64), as MarshalJSON
// writes it, without the clamped count.
func (h *Histogram) Encode() ([]byte, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("encode histogram: %w", err)
	}
	return b, nil
}

// DecodeHistogram reads what Encode wrote.
func DecodeHistogram(b []byte) (*Histogram, error) {
	d, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return &Histogram{h: d}, nil
}

// NewDuration returns a histogram for short durations in nanoseconds.
func NewDuration() *Histogram {
	return &Histogram{h: hdrhistogram.New(1, MaxDurationNanos, SignificantDigits)}
}

// Record adds one value, clamping it into range. It is cheap and allocation-free.
func (h *Histogram) Record(v int64) {
	switch {
	case v < 0:
		v = 0
	case v > h.h.HighestTrackableValue():
		v = h.h.HighestTrackableValue()
		h.Clamped++
	}
	_ = h.h.RecordValue(v) // in range by construction
}

// Merge adds every value of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil {
		return
	}
	h.h.Merge(o.h)
	h.Clamped += o.Clamped
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Quantile returns the value at quantile q in [0, 100].
func (h *Histogram) Quantile(q float64) int64 { return h.h.ValueAtQuantile(q) }

// Buckets calls fn for every non-empty bucket, in value order: values in [from, to]
// were recorded count times.
func (h *Histogram) Buckets(fn func(from, to, count int64)) {
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			fn(b.From, b.To, b.Count)
		}
	}
}

// Max returns the largest recorded value (within the histogram's precision).
func (h *Histogram) Max() int64 { return h.h.Max() }

// Mean returns the mean of recorded values.
func (h *Histogram) Mean() float64 { return h.h.Mean() }

// Reset clears the histogram.
func (h *Histogram) Reset() { h.h.Reset(); h.Clamped = 0 }

type encoded struct {
	Encoding string `json:"hdr"`
	Clamped  int64  `json:"clamped,omitempty"`
}

// MarshalJSON encodes the histogram in HdrHistogram's compressed V2 format.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	b, err := h.Encode()
	if err != nil {
		return nil, err
	}
	return json.Marshal(encoded{Encoding: string(b), Clamped: h.Clamped})
}

// UnmarshalJSON decodes a histogram written by MarshalJSON.
func (h *Histogram) UnmarshalJSON(data []byte) error {
	var e encoded
	if err := json.Unmarshal(data, &e); err != nil {
		return err
	}
	d, err := hdrhistogram.Decode([]byte(e.Encoding))
	if err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	h.h, h.Clamped = d, e.Clamped
	return nil
}
