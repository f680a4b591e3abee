package plan

import (
	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/report"
)

// Stop says whether an experiment stops before trial next, given the rows of the
// trials measured before it: next begins a round beyond spec.repetitions and
// spec.repeatUntil's target is met (report.Stopping, which it returns). The
// controller and `serdebench run` ask it alike, only at a round's start, so every
// trial keeps the same number of repetitions.
func Stop(spec v1alpha1.ExperimentSpec, next trial.Trial, rows []report.Row) (*v1alpha1.Stopping, bool) {
	if spec.RepeatUntil == nil || next.Repetition <= max(1, spec.Repetitions) {
		return nil, false
	}
	for _, g := range report.Groups(rows) {
		if int32(len(g)) != next.Repetition-1 {
			return nil, false // mid-round
		}
	}
	s := report.Stopping(rows, spec.RepeatUntil)
	return s, s.Met
}
