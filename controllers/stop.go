package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
)

// ReasonTargetMet (a Skipped trial's message): spec.repeatUntil's intervals met
// their target; the rounds left were skipped.
const ReasonTargetMet = "TargetMet"

// stopEarly skips the trials from next on when spec.repeatUntil's target is met
// by the result so far (plan.Stop, asked only at a round's start). It reports
// whether it did; the status update it makes is the reconcile's outcome then.
func (r *ExperimentReconciler) stopEarly(ctx context.Context, x *serdebenchv1.SerializationExperiment, trials []trial.Trial, next int) (bool, error) {
	t := trials[next]
	// The result is read only where a round beyond the fewest begins.
	if x.Spec.RepeatUntil == nil || t.Repetition <= max(1, x.Spec.Repetitions) || (next > 0 && trials[next-1].Repetition == t.Repetition) {
		return false, nil
	}
	res, err := r.ownResult(ctx, x)
	if err != nil || res == nil {
		return false, err
	}
	s, stop := plan.Stop(x.Spec.ExperimentSpec, t, report.ResultRows(res))
	if !stop {
		return false, nil
	}
	msg := fmt.Sprintf("target met after %d repetitions: %s", s.Repetitions, s.Widest)
	for i := next; i < len(trials); i++ {
		ts := &x.Status.Trials[i]
		ts.Phase, ts.Message, ts.CleanedUp, ts.TopicRequested = serdebenchv1.TrialSkipped, msg, true, ptr.To(false)
	}
	r.event(x, corev1.EventTypeNormal, ReasonTargetMet, "%s; %d planned trials skipped", msg, len(trials)-next)
	return true, nil
}
