package trial

import "fmt"

// Recovery is when a faulted trial counts as recovered: for Intervals intervals in
// a row, throughput within ±ThroughputPercent of the before-phase's in each, and
// the acknowledgement and end-to-end p99 of their records together at most
// LatencyPercent above the before-phase's (docs/faults.md, "Results by phase").
type Recovery struct {
	// ThroughputPercent is how far an interval's throughput may stray from the
	// before-phase's.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	ThroughputPercent int32 `json:"throughputPercent,omitempty"`
	// LatencyPercent is how far an interval's p99 may exceed the before-phase's.
	// +kubebuilder:default=50
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +optional
	LatencyPercent int32 `json:"latencyPercent,omitempty"`
	// Intervals is how many intervals in a row must be within the band.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=60
	// +optional
	Intervals int32 `json:"intervals,omitempty"`
}

// Defaults of Recovery (the same values as its +kubebuilder:default markers).
const (
	DefaultRecoveryThroughputPercent int32 = 10
	DefaultRecoveryLatencyPercent    int32 = 50
	DefaultRecoveryIntervals         int32 = 3
)

// Default fills the band's unset fields.
func (r *Recovery) Default() {
	if r.ThroughputPercent == 0 {
		r.ThroughputPercent = DefaultRecoveryThroughputPercent
	}
	if r.LatencyPercent == 0 {
		r.LatencyPercent = DefaultRecoveryLatencyPercent
	}
	if r.Intervals == 0 {
		r.Intervals = DefaultRecoveryIntervals
	}
}

// String states the band in words, for results and reports.
func (r Recovery) String() string {
	return fmt.Sprintf("%d intervals in a row with throughput within ±%d%% of the before phase's and ack and end-to-end p99 at most %d%% above its",
		r.Intervals, r.ThroughputPercent, r.LatencyPercent)
}
