package controllers

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/names"
)

// defaultCleanupGiveUp is how long a deleted experiment waits for an unreachable
// Kafka (or a stopped Topic Operator) before it lets go of its topics (with a
// warning event) rather than block deletion.
const defaultCleanupGiveUp = 2 * time.Minute

func (r *ExperimentReconciler) cleanupGiveUp() time.Duration {
	if r.CleanupGiveUp > 0 {
		return r.CleanupGiveUp
	}
	return defaultCleanupGiveUp
}

// cleanup removes a finished trial's Jobs (with their pods) and, per
// cleanupPolicy, its topic, then records that it did. Under Retain a measured
// trial keeps both; a failed trial's Jobs always go (its workers must stop).
// Deleting a topic is retried for a while and then given up with a warning (Kafka
// may be why the trial failed; deleting the experiment retries it).
func (r *ExperimentReconciler) cleanup(ctx context.Context, x *serdebenchv1.SerializationExperiment, ts *serdebenchv1.TrialStatus) (ctrl.Result, error) {
	retain := x.Spec.CleanupPolicy == serdebenchv1.CleanupRetain
	failed := ts.Phase == serdebenchv1.TrialFailed
	// A fault never outlives its trial, whatever the cleanup policy, and the next
	// trial waits until Chaos Mesh has undone it.
	if ts.Fault != nil && ts.Fault.Phase != serdebenchv1.FaultRemoved {
		if err := r.deleteFaults(ctx, x, labels.Set{build.LabelTrial: ts.Name}); err != nil {
			return ctrl.Result{}, err
		}
		left, err := r.faultsLeft(ctx, x, ts.Name)
		if err != nil {
			return ctrl.Result{}, err
		}
		if left > 0 && (ts.CompletionTime == nil || time.Since(ts.CompletionTime.Time) < r.cleanupGiveUp()) {
			return ctrl.Result{RequeueAfter: r.poll()}, nil
		}
		if left > 0 {
			r.event(x, corev1.EventTypeWarning, "CleanupIncomplete", "gave up waiting for Chaos Mesh to remove %d fault object(s) of trial %s after %s", left, ts.Name, r.cleanupGiveUp())
		}
	}
	if !retain || failed {
		if err := r.deleteJobs(ctx, x, labels.SelectorFromSet(labels.Set{build.LabelTrial: ts.Name})); err != nil {
			return ctrl.Result{}, err
		}
		r.sideEffect(x, "jobs deleted")
	}
	if !retain && x.Spec.Topic.Name != "" {
		// An existing topic is never deleted; the trial's consumer group on it is
		// (else it lingers, lag growing, until the broker's offsets retention).
		if err := r.deleteGroup(ctx, x, ts.Name, int(ts.Attempt)); err != nil {
			log.FromContext(ctx).Info("deleting consumer group", "experiment", x.Name, "trial", ts.Name, "err", err)
		}
	}
	if !retain && ts.Topic != "" && x.Spec.Topic.Name == "" && topicMayExist(*ts) {
		if err := r.deleteTopic(ctx, x, ts.Topic); err != nil {
			if ts.CompletionTime != nil && time.Since(ts.CompletionTime.Time) < r.cleanupGiveUp() {
				log.FromContext(ctx).Info("retrying topic cleanup", "experiment", x.Name, "topic", ts.Topic, "err", err)
				return r.waitForDeletion(ctx, x, ts.CompletionTime.Time, err.Error())
			}
			r.event(x, corev1.EventTypeWarning, "CleanupIncomplete", "gave up deleting topic %s after %s: %v", ts.Topic, r.cleanupGiveUp(), err)
			if failed {
				ts.Message += "; topic cleanup: " + err.Error()
			}
			r.endDeletionWait(x, ReasonTopicCleanupIncomplete, fmt.Sprintf("gave up deleting topic %s after %s: %v", ts.Topic, r.cleanupGiveUp(), err))
		} else {
			r.sideEffect(x, "topic deleted")
			r.endDeletionWait(x, ReasonTopicDeleted, "topic "+ts.Topic+" deleted")
		}
	}
	ts.CleanedUp = true
	return r.updateStatus(ctx, x)
}

// waitForDeletion waits for topics deleted since since; once that has taken a
// while (a Topic Operator takes about a second) it says, where `kubectl get sx`
// looks, what keeps them (Kafka unreachable, Strimzi's Topic Operator stopped). The
// status is written only when that changes.
func (r *ExperimentReconciler) waitForDeletion(ctx context.Context, x *serdebenchv1.SerializationExperiment, since time.Time, why string) (ctrl.Result, error) {
	if time.Since(since) < min(10*time.Second, r.cleanupGiveUp()/2) {
		return ctrl.Result{RequeueAfter: r.poll()}, nil
	}
	msg := fmt.Sprintf("deleting topics (for up to %s): %s", r.cleanupGiveUp(), why)
	if c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionTopicsReady); c == nil || c.Reason != ReasonDeletingTopics || c.Message != names.Truncate(msg, conditionMessageMax) {
		r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonDeletingTopics, msg)
		if res, err := r.updateStatus(ctx, x); err != nil || res.RequeueAfter > 0 {
			return res, client.IgnoreNotFound(err)
		}
	}
	return ctrl.Result{RequeueAfter: r.poll()}, nil
}

// endDeletionWait replaces a DeletingTopics condition, once the wait is over, with
// what became of the topic (written with the rest of the status).
func (r *ExperimentReconciler) endDeletionWait(x *serdebenchv1.SerializationExperiment, reason, msg string) {
	if c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionTopicsReady); c != nil && c.Reason == ReasonDeletingTopics {
		r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, reason, msg)
	}
}

// cleanupAttempts removes the Jobs and topics of a trial's attempts before attempt.
func (r *ExperimentReconciler) cleanupAttempts(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, attempt int) error {
	earlier, _ := labels.NewRequirement(build.LabelAttempt, selection.NotEquals, []string{fmt.Sprint(attempt)})
	if err := r.deleteJobs(ctx, x, labels.SelectorFromSet(labels.Set{build.LabelTrial: t.Name}).Add(*earlier)); err != nil {
		return err
	}
	if t.Fault != nil {
		// The new attempt's fault objects do not exist yet: every one is earlier.
		if err := r.deleteFaults(ctx, x, labels.Set{build.LabelTrial: t.Name}); err != nil {
			return err
		}
	}
	for a := 1; a < attempt; a++ {
		if t.ExistingTopic != "" {
			if err := r.deleteGroup(ctx, x, t.Name, a); err != nil {
				return err
			}
			continue
		}
		if err := r.deleteTopic(ctx, x, build.TopicName(x, t, a)); err != nil {
			return err
		}
	}
	return nil
}

// deleteGroup deletes a trial attempt's consumer group (on an existing topic).
func (r *ExperimentReconciler) deleteGroup(ctx context.Context, x *serdebenchv1.SerializationExperiment, trialName string, attempt int) error {
	admin, err := r.admin(ctx, x)
	if err != nil {
		return err
	}
	return admin.DeleteGroup(ctx, names.Group(x.Name, build.UIDPrefix(x, 8), trial.Trial{Name: trialName}, attempt))
}

func (r *ExperimentReconciler) deleteTopic(ctx context.Context, x *serdebenchv1.SerializationExperiment, topic string) error {
	prov, err := r.provisioner(ctx, x)
	if err != nil {
		return err
	}
	return prov.Delete(ctx, topic)
}

// deleteJobs deletes the experiment's Jobs that sel matches (with their pods).
func (r *ExperimentReconciler) deleteJobs(ctx context.Context, x *serdebenchv1.SerializationExperiment, sel labels.Selector) error {
	jobs, err := r.jobsOf(ctx, x, sel)
	if err != nil {
		return err
	}
	for i := range jobs {
		if err := r.Delete(ctx, &jobs[i], client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete job %s: %w", jobs[i].Name, err)
		}
	}
	return nil
}

// jobsOf lists the Jobs the experiment controls that sel matches (from the cache,
// which holds only the operator's own Jobs).
func (r *ExperimentReconciler) jobsOf(ctx context.Context, x *serdebenchv1.SerializationExperiment, sel labels.Selector) ([]batchv1.Job, error) {
	managed, _ := labels.NewRequirement(build.LabelManagedBy, selection.Equals, []string{build.ManagedBy})
	// From the index of Jobs by experiment (jobOwnerKey): a trial's name alone
	// matches that trial in every experiment, each match scanned and copied.
	list := &batchv1.JobList{}
	if err := r.List(ctx, list, client.InNamespace(x.Namespace), client.MatchingFields{jobOwnerKey: x.Name},
		client.MatchingLabelsSelector{Selector: sel.Add(*managed)}); err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var out []batchv1.Job
	for _, j := range list.Items {
		if metav1.IsControlledBy(&j, x) {
			out = append(out, j)
		}
	}
	return out, nil
}
