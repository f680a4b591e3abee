package report

import (
	"math"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/summary"
)

// LatencyMicros converts merged percentiles into the API's.
func LatencyMicros(p summary.Percentiles) v1alpha1.LatencyMicros {
	return v1alpha1.LatencyMicros{Count: p.Count, Mean: int64(math.Round(p.Mean)), P50: p.P50, P75: p.P75, P90: p.P90, P95: p.P95, P99: p.P99, P999: p.P999,
		P9999: p.P9999, Max: p.Max}
}

// Merged are the latency percentiles of a trial's repetitions' histograms
// merged (each row's Latency), at the histograms' own resolution; nil when a
// repetition has none (rows read back from a result: the result's statistics
// carry them instead, MergedOf).
func Merged(group []Row) *v1alpha1.MergedLatency {
	e2e, ack := summary.NewLatency(), summary.NewLatency()
	for _, r := range group {
		h := r.Latency[summary.EndToEndMicros]
		if h == nil {
			return nil
		}
		e2e.Merge(h)
		if a := r.Latency[summary.AckLatencyMicros]; a != nil {
			ack.Merge(a)
		}
	}
	return &v1alpha1.MergedLatency{Runs: int32(len(group)), ResolutionPermille: 1,
		EndToEndMicros: LatencyMicros(e2e.Percentiles()), AckMicros: LatencyMicros(ack.Percentiles())}
}
