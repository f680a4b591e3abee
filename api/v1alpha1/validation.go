package v1alpha1

import "github.com/serdebench/serdebench/api/trial"

// Limits on payload sizes: below the smallest record of any schema, above Kafka's
// default max.message.bytes. (The CRD markers on PayloadSpec.SizesBytes say the same.)
const (
	MinSizeBytes = 64
	MaxSizeBytes = 1 << 20
)

// TrialCount is the number of trials the spec expands into, repetitions included
// (with repeatUntil, the most it may run).
func (s *ExperimentSpec) TrialCount() int {
	return len(s.Codecs) * max(1, len(s.Payload.SizesBytes)) * (trial.Count(s.Matrix.Sweeps()) + len(s.Matrix.Included())) * s.Faults.Count() * int(s.MaxRepetitions())
}

// MaxRepetitions is the most repetitions a trial may run: repeatUntil's maximum,
// else repetitions.
func (s *ExperimentSpec) MaxRepetitions() int32 {
	if s.RepeatUntil != nil {
		return s.RepeatUntil.MaxRepetitions
	}
	return max(1, s.Repetitions)
}

// MaxTrials is how many trials the spec may expand into: fewer with faults, whose
// trials each carry their phases, or transactions, their transactions, or
// repetitions, whose statistics the result adds, and fewer still with both.
func (s *ExperimentSpec) MaxTrials() int {
	repeated := s.MaxRepetitions() > 1
	// A transactional trial's result carries its transactions, as a faulted
	// one's carries its phases: both count against the cap alike.
	heavy := s.Faults != nil || s.usesTransactions()
	switch {
	case heavy && repeated:
		return trial.MaxFaultedRepeatedTrials
	case heavy || repeated:
		return trial.MaxFaultedTrials
	}
	return trial.MaxTrials
}

// usesTransactions is whether any trial of the spec is transactional.
func (s *ExperimentSpec) usesTransactions() bool {
	if s.Producer.Transactions != nil && s.Producer.Transactions.Enabled() {
		return true
	}
	if s.Matrix == nil {
		return false
	}
	for _, t := range s.Matrix.Transactions {
		if t.Enabled() {
			return true
		}
	}
	for _, p := range s.Matrix.Include {
		if p.Transactions != nil && p.Transactions.Enabled() {
			return true
		}
	}
	return false
}

// MeasuredRecords is spec.records, 0 when the window is durationSeconds long.
func (s *ExperimentSpec) MeasuredRecords() int64 {
	if s.Records == nil {
		return 0
	}
	return *s.Records
}
