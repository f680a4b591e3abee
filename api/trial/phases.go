package trial

// Phases are a faulted trial's measurements before, during and after its fault:
// one model for the workers' summary, the SerializationResult and the reports.
// The phases are whole intervals of the workers' own series (an interval the
// fault overlaps is during it). Instants are in milliseconds since the
// producers' measured window began, durations in milliseconds from the instant
// their field names, so the model needs no clock type and reads the same wherever
// it is stored (docs/faults.md, "Results by phase").
type Phases struct {
	// ResolutionSeconds is the length of those intervals: the phases' bounds, the
	// time to the first error and the recovery time are exact to it.
	ResolutionSeconds int32 `json:"resolutionSeconds"`
	// FaultStartMillis is when the fault was applied: Chaos Mesh's injectedTime
	// in a cluster, when the local rig's rule went in or its kill was asked for.
	// Optional, as are the phases' bounds: results stored before this model lack
	// them, and an object must stay writable.
	// +optional
	FaultStartMillis int64 `json:"faultStartMillis,omitempty"`
	// FaultEndMillis is when it was removed (absent for a kill, which acts once).
	// A fault still in effect when the window ended ends after it (when it was
	// found so) and has no after phase or recovery.
	// +optional
	FaultEndMillis *int64 `json:"faultEndMillis,omitempty"`
	// Before is the measured window until the fault (absent when the fault began
	// in the window's first interval: then nothing says what recovered means).
	// +optional
	Before *Phase `json:"before,omitempty"`
	// During is the fault's intervals; for a kill, from the kill until the trial
	// recovered (to the window's end if it did not).
	// +optional
	During *Phase `json:"during,omitempty"`
	// After is the rest of the window (absent when nothing is left).
	// +optional
	After *Phase `json:"after,omitempty"`
	// FirstErrorMillis is from the fault's start to the first send that failed
	// after it (absent: none failed).
	// +optional
	FirstErrorMillis *int64 `json:"firstErrorMillis,omitempty"`
	// RecoveryMillis is from RecoveryFrom to the start of the first run of
	// band.intervals intervals within the band (absent: not recovered within the
	// window; RecoveryNote says why).
	// +optional
	RecoveryMillis *int64 `json:"recoveryMillis,omitempty"`
	// RecoveryFrom is where the recovery time counts from.
	RecoveryFrom RecoveryFrom `json:"recoveryFrom"`
	// RecoveryNote says why there is no recovery time.
	// +optional
	RecoveryNote string `json:"recoveryNote,omitempty"`
	// Band is what recovered means (spec.faults.recovery).
	Band Recovery `json:"band"`
}

// RecoveryFrom is the instant a recovery time counts from.
// +kubebuilder:validation:Enum=FaultEnd;Kill
type RecoveryFrom string

// Where recovery is timed from.
const (
	// RecoveryFromEnd is the fault's end.
	RecoveryFromEnd RecoveryFrom = "FaultEnd"
	// RecoveryFromKill is a kill, which has no end.
	RecoveryFromKill RecoveryFrom = "Kill"
)

// Phase is one part of a faulted trial's window.
type Phase struct {
	// StartMillis is where the phase begins: an interval boundary, or the
	// window's start (0) for the first phase.
	// +optional
	StartMillis int64 `json:"startMillis,omitempty"`
	// EndMillis is where it ends: an interval boundary, or for the last phase
	// the end of the window or of the consumers' receiving, whichever is later.
	// +optional
	EndMillis int64 `json:"endMillis,omitempty"`
	// WindowMillis is how much of the producers' measured window lies in the phase.
	WindowMillis int64 `json:"windowMillis"`
	// Records is the measured records acknowledged during the phase.
	Records int64 `json:"records"`
	// RecordsPerSecond is Records over WindowMillis: the throughput achieved.
	RecordsPerSecond int64 `json:"recordsPerSecond"`
	// OfferedRecordsPerSecond is the measured records due in the phase over
	// WindowMillis: the load offered.
	OfferedRecordsPerSecond int64 `json:"offeredRecordsPerSecond"`
	// AckMicros is the acknowledgement latency of the records due in the phase
	// (from their intended send time, 1% precision).
	AckMicros PhaseLatencyMicros `json:"ackMicros"`
	// EndToEndMicros is their end-to-end latency (1% precision).
	EndToEndMicros PhaseLatencyMicros `json:"endToEndMicros"`
	// FailedRecords counts the phase's records (by due time) whose send failed.
	// The three counts are the trial's exact sets cut at the phase's bounds, so
	// the phases add up to the trial's measured records.
	FailedRecords int64 `json:"failedRecords"`
	// LostRecords counts its records acknowledged and never received.
	LostRecords int64 `json:"lostRecords"`
	// DuplicatedRecords counts the extra copies of its records received.
	DuplicatedRecords int64 `json:"duplicatedRecords"`
}

// PhaseLatencyMicros are a phase's latency percentiles, in microseconds: few, so
// that a result of many faulted trials stays small.
type PhaseLatencyMicros struct {
	// P50 is the median.
	P50 int64 `json:"p50"`
	// P99 is the 99th percentile.
	P99 int64 `json:"p99"`
	// Max is the largest value.
	Max int64 `json:"max"`
}

// FaultEnd is where the fault's effect ends, in milliseconds since the window
// began: its removal, or for a kill the end of the during phase (the trial's
// recovery), or its start when there is neither.
func (p *Phases) FaultEnd() int64 {
	switch {
	case p.FaultEndMillis != nil:
		return *p.FaultEndMillis
	case p.During != nil:
		return p.During.EndMillis
	}
	return p.FaultStartMillis
}

// Named are the phases present, in order, with their names.
func (p *Phases) Named() []NamedPhase {
	var out []NamedPhase
	for _, n := range []NamedPhase{{"before", p.Before}, {"during", p.During}, {"after", p.After}} {
		if n.Phase != nil {
			out = append(out, n)
		}
	}
	return out
}

// NamedPhase is a phase with its name (before, during or after).
// +kubebuilder:object:generate=false
type NamedPhase struct {
	// Name is before, during or after.
	Name string
	*Phase
}
