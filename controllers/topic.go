package controllers

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/topics"
)

// waitForTopic records why the topic is not there yet and waits.
func (r *ExperimentReconciler) waitForTopic(ctx context.Context, x *serdebenchv1.SerializationExperiment, ts *serdebenchv1.TrialStatus, err error) (ctrl.Result, error) {
	r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, err.Error())
	ts.Message = err.Error()
	if _, uerr := r.updateStatus(ctx, x); uerr != nil {
		return ctrl.Result{}, uerr
	}
	return ctrl.Result{RequeueAfter: r.poll()}, nil
}

// ensureTopic makes the trial's topic (or checks an existing one) and, once it is
// ready, moves the trial to Running.
func (r *ExperimentReconciler) ensureTopic(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (ctrl.Result, error) {
	ts := &x.Status.Trials[t.Index]
	// An earlier, disrupted attempt leaves its Jobs and topic: remove them first.
	if ts.Attempt > 1 {
		if err := r.cleanupAttempts(ctx, x, t, int(ts.Attempt)); err != nil {
			// Said where the user looks, and retried like any wait for Kafka.
			return r.waitForTopic(ctx, x, ts, fmt.Errorf("remove attempt %d's topic and Jobs: %w", ts.Attempt-1, err))
		}
	}
	if t.ExistingTopic != "" {
		// Used as it is: checked through the Admin API, never created.
		admin, err := r.admin(ctx, x)
		if err == nil {
			err = admin.Check(ctx, ts.Topic, t.Partitions)
		}
		if errors.Is(err, topics.ErrUnusableTopic) {
			return r.fail(ctx, x, t.Index, ReasonTopicFailed, err.Error())
		}
		if err != nil {
			return r.waitForTopic(ctx, x, ts, err)
		}
	} else {
		prov, err := r.provisioner(ctx, x)
		if err != nil {
			return r.waitForTopic(ctx, x, ts, err)
		}
		if ts.TopicRequested != nil && !*ts.TopicRequested {
			// Recorded before any create can be sent: until then the topic provably
			// does not exist, and deleting the experiment need not wait for Kafka.
			if err := prov.Reachable(ctx); err != nil {
				return r.waitForTopic(ctx, x, ts, err)
			}
			ts.TopicRequested = ptr.To(true)
			// Kafka answers: whatever kept the topic from being made is past.
			if waitingForKafka(x, *ts) {
				ts.Message = ""
			}
			r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, "creating topic "+ts.Topic)
			return r.updateStatus(ctx, x)
		}
		ready, err := prov.Ensure(ctx, r.topicSpec(x, t, ts.Topic))
		if errors.Is(err, topics.ErrRefused) {
			// Strimzi's Topic Operator will not make it as specified: its reason, quoted.
			return r.fail(ctx, x, t.Index, ReasonTopicFailed, err.Error())
		}
		if err != nil {
			// Kafka or the Topic Operator may recover; the trial timeout bounds this.
			return r.waitForTopic(ctx, x, ts, err)
		}
		r.sideEffect(x, "topic ensured")
		if !ready {
			return ctrl.Result{RequeueAfter: r.poll()}, nil
		}
	}
	ts.Phase = serdebenchv1.TrialRunning
	ts.Message = ""
	r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionTrue, ReasonTopicReady, "topic "+ts.Topic+" is ready")
	r.setCondition(x, serdebenchv1.ConditionRunning, metav1.ConditionTrue, ReasonTrialRunning, fmt.Sprintf("trial %s (%d/%d)", t.Name, t.Index+1, len(x.Status.Trials)))
	r.event(x, corev1.EventTypeNormal, ReasonTopicReady, "topic %s ready", ts.Topic)
	return r.updateStatus(ctx, x)
}
