package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
)

// succeed marks the experiment done once every trial is measured.
func (r *ExperimentReconciler) succeed(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	now := metav1.Now()
	x.Status.CompletionTime = &now
	r.setCondition(x, serdebenchv1.ConditionRunning, metav1.ConditionFalse, ReasonAllTrialsMeasured, "no trial running")
	measured, skipped := 0, 0
	for _, ts := range x.Status.Trials {
		if ts.Phase == serdebenchv1.TrialSkipped {
			skipped++
		} else {
			measured++
		}
	}
	reason, msg := ReasonAllTrialsMeasured, fmt.Sprintf("%d trials measured; see SerializationResult %s", measured, build.ResultName(x))
	if skipped > 0 {
		// The skipped trials all carry the rule's message.
		reason = ReasonTargetMet
		msg = fmt.Sprintf("%d trials measured, %d not needed (%s); see SerializationResult %s", measured, skipped, x.Status.Trials[len(x.Status.Trials)-1].Message, build.ResultName(x))
	}
	r.setCondition(x, serdebenchv1.ConditionSucceeded, metav1.ConditionTrue, reason, msg)
	r.setStage(x, serdebenchv1.StageSucceeded)
	r.event(x, corev1.EventTypeNormal, "Succeeded", "%d trials measured", measured)
	return r.updateStatus(ctx, x)
}

// fail records that the experiment stopped, with a reason. The failed trial's
// workers and topic are removed by the next reconcile (cleanup), after the outcome
// is recorded, so a restart in between can never start them again. trial is -1
// when no trial is involved.
func (r *ExperimentReconciler) fail(ctx context.Context, x *serdebenchv1.SerializationExperiment, trial int, reason, msg string) (ctrl.Result, error) {
	log.FromContext(ctx).Info("experiment failed", "experiment", x.Name, "reason", reason, "message", msg)
	now := metav1.Now()
	if trial >= 0 && trial < len(x.Status.Trials) {
		ts := &x.Status.Trials[trial]
		ts.Phase = serdebenchv1.TrialFailed
		ts.CompletionTime = &now
		ts.Message = msg
		// A trial that never created anything has nothing to clean up.
		ts.CleanedUp = ts.StartTime == nil
	}
	x.Status.CompletionTime = &now
	x.Status.ObservedGeneration = x.Generation
	if reason == ReasonInvalidSpec || (reason == ReasonInvalidPayloadSource && trial < 0) {
		r.setCondition(x, serdebenchv1.ConditionAccepted, metav1.ConditionFalse, reason, msg)
	}
	r.setCondition(x, serdebenchv1.ConditionRunning, metav1.ConditionFalse, reason, "stopped")
	r.setCondition(x, serdebenchv1.ConditionFailed, metav1.ConditionTrue, reason, msg)
	r.setStage(x, serdebenchv1.StageFailed)
	r.event(x, corev1.EventTypeWarning, reason, "%s", msg)
	return r.updateStatus(ctx, x)
}

// backfillKstatus adds, once, the kstatus conditions (Ready) to an experiment that
// finished under an operator without them.
func (r *ExperimentReconciler) backfillKstatus(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	if meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionReady) == nil {
		return r.updateStatus(ctx, x)
	}
	return ctrl.Result{}, nil
}
