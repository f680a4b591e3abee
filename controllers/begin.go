package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
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

// begin starts trial i, the next Pending one: unless spec.repeatUntil's target is
// already met (the rest are skipped and the experiment succeeds), it records the
// trial's start and its topic's name and moves it to CreatingTopic.
func (r *ExperimentReconciler) begin(ctx context.Context, x *serdebenchv1.SerializationExperiment, trials []trial.Trial, i int) (ctrl.Result, error) {
	stopped, err := r.stopEarly(ctx, x, trials, i)
	if err != nil {
		return ctrl.Result{}, err
	}
	if stopped {
		return r.succeed(ctx, x)
	}
	t, ts, now := trials[i], &x.Status.Trials[i], metav1.Now()
	ts.Phase = serdebenchv1.TrialCreatingTopic
	ts.TopicRequested = ptr.To(false)
	ts.StartTime = &now
	if ts.Attempt == 0 {
		ts.Attempt, ts.Topic = 1, build.TopicName(x, t, 1)
	}
	if x.Status.StartTime == nil {
		x.Status.StartTime = &now
	}
	r.setStage(x, serdebenchv1.StageRunning)
	r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, "creating topic "+ts.Topic)
	r.event(x, corev1.EventTypeNormal, "TrialStarted", "trial %s (%d/%d) started", t.Name, t.Index+1, len(x.Status.Trials))
	return r.updateStatus(ctx, x)
}
