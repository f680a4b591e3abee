package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/names"
)

// sideEffect reports a completed external side effect (for crash-injection tests).
func (r *ExperimentReconciler) sideEffect(x *serdebenchv1.SerializationExperiment, what string) {
	if r.AfterSideEffect != nil {
		r.AfterSideEffect(x, what)
	}
}

// updateStatus writes the status. The write is watched, so the next step follows
// from the watch event; a conflict (someone else wrote first) re-reads shortly.
func (r *ExperimentReconciler) updateStatus(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	r.setKstatus(x)
	if err := r.Status().Update(ctx, x); err != nil {
		// Whether it was written is unknown (a timeout), or the experiment
		// changed: read it uncached next time.
		r.fresh.forget(client.ObjectKeyFromObject(x))
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: conflictBackoff}, nil
		}
		return ctrl.Result{}, fmt.Errorf("update status: %w", err)
	}
	r.fresh.remember(x)
	if r.AfterStatusWrite != nil {
		r.AfterStatusWrite(x)
	}
	return ctrl.Result{}, nil
}

// setStage moves the stage forward only. Acceptance gets an event of its own;
// the later stages come with theirs (TrialStarted, Succeeded, the failure's
// reason), which a second event would only repeat: events were two fifths of
// the apiserver requests at 1,000 experiments.
func (r *ExperimentReconciler) setStage(x *serdebenchv1.SerializationExperiment, s serdebenchv1.Stage) {
	if stageOrder[s] <= stageOrder[x.Status.Stage] {
		return
	}
	if s == serdebenchv1.StageAccepted {
		r.event(x, corev1.EventTypeNormal, "Stage", "stage %s → %s", x.Status.Stage, s)
	}
	x.Status.Stage = s
}

// setKstatus derives the standard conditions kstatus reads from the stage: InProgress
// (Reconciling) until the experiment ends, Current (Ready) once it succeeded, Failed
// (Stalled) once it failed. GitOps tools then wait for an experiment to finish.
func (r *ExperimentReconciler) setKstatus(x *serdebenchv1.SerializationExperiment) {
	switch x.Status.Stage {
	case serdebenchv1.StageSucceeded:
		r.setCondition(x, serdebenchv1.ConditionReady, metav1.ConditionTrue, ReasonAllTrialsMeasured, "result "+build.ResultName(x))
		r.setCondition(x, serdebenchv1.ConditionReconciling, metav1.ConditionFalse, ReasonAllTrialsMeasured, "finished")
		meta.RemoveStatusCondition(&x.Status.Conditions, serdebenchv1.ConditionStalled)
	case serdebenchv1.StageFailed:
		reason, msg := "Failed", "failed"
		if f := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed); f != nil {
			reason, msg = f.Reason, f.Message
		}
		r.setCondition(x, serdebenchv1.ConditionReady, metav1.ConditionFalse, reason, msg)
		r.setCondition(x, serdebenchv1.ConditionReconciling, metav1.ConditionFalse, reason, "finished")
		r.setCondition(x, serdebenchv1.ConditionStalled, metav1.ConditionTrue, reason, msg)
	default:
		stage := string(x.Status.Stage)
		if stage == "" {
			stage = "Pending"
		}
		msg := fmt.Sprintf("%d of %d trials measured", x.Status.CompletedTrials, x.Status.TrialCount)
		// A trial whose topic cannot be made yet is waiting for Kafka (unreachable,
		// Strimzi absent, credentials missing): said where `kubectl get sx` shows it.
		for _, ts := range x.Status.Trials {
			if waitingForKafka(x, ts) {
				stage, msg = ReasonWaitingForKafka, fmt.Sprintf("trial %s: %s", ts.Name, ts.Message)
			}
		}
		r.setCondition(x, serdebenchv1.ConditionReady, metav1.ConditionFalse, stage, msg)
		r.setCondition(x, serdebenchv1.ConditionReconciling, metav1.ConditionTrue, stage, msg)
		meta.RemoveStatusCondition(&x.Status.Conditions, serdebenchv1.ConditionStalled)
	}
}

// waitingForKafka says whether the trial's topic cannot be made yet: it is being
// created and its message is the TopicsReady condition's error (waitForTopic).
func waitingForKafka(x *serdebenchv1.SerializationExperiment, ts serdebenchv1.TrialStatus) bool {
	topics := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionTopicsReady)
	return ts.Phase == serdebenchv1.TrialCreatingTopic && ts.Message != "" && topics != nil &&
		topics.Status == metav1.ConditionFalse && topics.Reason == ReasonWaitingForTopic &&
		topics.Message == names.Truncate(ts.Message, conditionMessageMax)
}

func (r *ExperimentReconciler) setCondition(x *serdebenchv1.SerializationExperiment, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&x.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: names.Truncate(msg, conditionMessageMax), ObservedGeneration: x.Generation})
}

func (r *ExperimentReconciler) event(x *serdebenchv1.SerializationExperiment, typ, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(x, typ, reason, format, args...)
	}
}

func (r *ExperimentReconciler) poll() time.Duration {
	if r.Poll > 0 {
		return r.Poll
	}
	return 2 * time.Second
}

// conflictBackoff is how soon a step that lost a write race is retried.
const conflictBackoff = 100 * time.Millisecond

// stageOrder: status.stage only moves forward.
var stageOrder = map[serdebenchv1.Stage]int{"": 0, serdebenchv1.StageAccepted: 2,
	serdebenchv1.StageRunning: 3, serdebenchv1.StageSucceeded: 4, serdebenchv1.StageFailed: 4}

// conditionMessageMax bounds condition messages below metav1.Condition's 32768
// (Truncate cuts bytes, which may leave a split rune for JSON to replace).
const conditionMessageMax = 32000
