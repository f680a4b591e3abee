package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/serdebench/serdebench/controllers/build"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/kafkaconn"
	"github.com/serdebench/serdebench/workers/protocol"
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
	if ts.Fault != nil && !ts.Fault.Removed {
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

// sideEffect reports a completed external side effect (for crash-injection tests).
func (r *ExperimentReconciler) sideEffect(x *serdebenchv1.SerializationExperiment, what string) {
	if r.AfterSideEffect != nil {
		r.AfterSideEffect(x, what)
	}
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

// finalize removes every topic and Job of a deleted experiment, then its finalizer.
func (r *ExperimentReconciler) finalize(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(x, build.Finalizer) {
		return ctrl.Result{}, nil
	}
	if err := r.deleteJobs(ctx, x, labels.Everything()); err != nil {
		return ctrl.Result{}, err
	}
	if x.Spec.Faults != nil {
		if err := r.deleteFaults(ctx, x, nil); err != nil {
			return ctrl.Result{}, err
		}
		// Chaos Mesh undoes a fault before its object goes, and a never-applied one
		// is released only once Chaos Mesh has seen its deletion (a pass later):
		// the experiment stays until they are gone, within bounds.
		left, err := r.faultsLeft(ctx, x, "")
		if err != nil {
			return ctrl.Result{}, err
		}
		if left > 0 {
			if time.Since(x.DeletionTimestamp.Time) < r.cleanupGiveUp() {
				return ctrl.Result{RequeueAfter: r.poll()}, nil
			}
			r.event(x, corev1.EventTypeWarning, "CleanupIncomplete", "gave up waiting for Chaos Mesh to remove %d fault object(s) after %s", left, r.cleanupGiveUp())
		}
	}
	var failed []string
	if x.Spec.Topic.Name == "" { // an existing topic is never deleted
		failed = r.deleteTopics(ctx, x)
	}
	if len(failed) > 0 {
		if time.Since(x.DeletionTimestamp.Time) < r.cleanupGiveUp() {
			log.FromContext(ctx).Info("retrying topic cleanup", "experiment", x.Name, "errors", failed)
			return r.waitForDeletion(ctx, x, x.DeletionTimestamp.Time, strings.Join(failed, "; "))
		}
		r.event(x, corev1.EventTypeWarning, "CleanupIncomplete", "gave up deleting topics after %s: %s", r.cleanupGiveUp(), strings.Join(failed, "; "))
	}
	orig := x.DeepCopy()
	controllerutil.RemoveFinalizer(x, build.Finalizer)
	if err := r.Patch(ctx, x, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("remove finalizer: %w", err)
	}
	r.fresh.forget(client.ObjectKeyFromObject(x))
	return ctrl.Result{}, nil
}

// deleteTopics deletes every topic a trial may have made, returning what failed.
// With none (Kafka or Strimzi was never reached), Kafka is not asked at all.
func (r *ExperimentReconciler) deleteTopics(ctx context.Context, x *serdebenchv1.SerializationExperiment) []string {
	var names []string
	for _, ts := range x.Status.Trials {
		if ts.Phase != serdebenchv1.TrialPending && ts.Topic != "" && topicMayExist(ts) {
			names = append(names, ts.Topic)
		}
		// A disrupted attempt's topic existed; the next attempt removes it before
		// its own, unless the experiment went first.
		for a := 1; a < int(ts.Attempt); a++ {
			names = append(names, build.TopicName(x, trial.Trial{Name: ts.Name}, a))
		}
	}
	if len(names) == 0 {
		return nil
	}
	prov, err := r.provisioner(ctx, x)
	if err != nil {
		return []string{err.Error()}
	}
	var failed []string
	for _, name := range names {
		if err := prov.Delete(ctx, name); err != nil {
			failed = append(failed, err.Error())
		}
	}
	return failed
}

// topicMayExist says whether a trial's current topic may have been created: not
// when the operator recorded that it never asked for it.
func topicMayExist(ts serdebenchv1.TrialStatus) bool {
	return ts.TopicRequested == nil || *ts.TopicRequested
}

// admin is the Admin API client for the experiment's brokers (the workers' bootstrap
// address, with the experiment's TLS and SASL settings).
func (r *ExperimentReconciler) admin(ctx context.Context, x *serdebenchv1.SerializationExperiment) (*topics.Admin, error) {
	sec, err := r.security(ctx, x)
	if err != nil {
		return nil, err
	}
	return &topics.Admin{Brokers: build.Brokers(build.Bootstrap(x)), Security: sec, Pool: &r.admins}, nil
}

// provisioner returns the topic provisioner for the experiment's Kafka.
func (r *ExperimentReconciler) provisioner(ctx context.Context, x *serdebenchv1.SerializationExperiment) (topics.Provisioner, error) {
	if r.Topics != nil {
		return r.Topics(ctx, x)
	}
	k := x.Spec.Kafka
	if k.Strimzi != nil {
		return &topics.Strimzi{Client: r.Client, Cluster: k.Strimzi.ClusterName, Namespace: build.StrimziNamespace(x)}, nil
	}
	sec, err := r.security(ctx, x)
	if err != nil {
		return nil, err
	}
	return &topics.Admin{Brokers: build.Brokers(k.BootstrapServers), Security: sec, Pool: &r.admins}, nil
}

// security reads TLS and SASL material from the experiment's Secrets, uncached: a
// cached read would start a cluster-wide Secret informer that the operator's RBAC
// (get only) cannot list or watch.
func (r *ExperimentReconciler) security(ctx context.Context, x *serdebenchv1.SerializationExperiment) (kafkaconn.Security, error) {
	var s kafkaconn.Security
	k := x.Spec.Kafka
	if k.TLS != nil {
		s.TLS, s.InsecureSkipVerify = true, k.TLS.InsecureSkipVerify
		if ref := k.TLS.CASecretRef; ref != nil {
			v, err := r.secretValue(ctx, x.Namespace, ref.Name, ref.Key)
			if err != nil {
				return s, err
			}
			s.CAPEM = v
		}
	}
	if k.SASL != nil {
		s.SASLMechanism = string(k.SASL.Mechanism)
		u, err := r.secretValue(ctx, x.Namespace, k.SASL.SecretRef.Name, "username")
		if err != nil {
			return s, err
		}
		p, err := r.secretValue(ctx, x.Namespace, k.SASL.SecretRef.Name, "password")
		if err != nil {
			return s, err
		}
		s.Username, s.Password = string(u), string(p)
	}
	return s, nil
}

func (r *ExperimentReconciler) secretValue(ctx context.Context, ns, name, key string) ([]byte, error) {
	sec := &corev1.Secret{}
	if err := r.reader().Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sec); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", ns, name, err)
	}
	v, ok := sec.Data[key]
	if !ok {
		return nil, fmt.Errorf("secret %s/%s has no key %q", ns, name, key)
	}
	return v, nil
}

// failedPodMessages summarizes why a failed Job's containers stopped (their
// termination message falls back to the log tail on error).
func (r *ExperimentReconciler) failedPodMessages(ctx context.Context, x *serdebenchv1.SerializationExperiment, job *batchv1.Job) string {
	var b strings.Builder
	failed := r.failedContainers(ctx, x, job)
	for _, cs := range failed {
		term := cs.State.Terminated
		fmt.Fprintf(&b, "; container %s exited %d (%s): %s", cs.Name, term.ExitCode, term.Reason, names.Truncate(strings.TrimSpace(term.Message), 500))
	}
	if len(failed) == 0 && job.Status.Failed > 0 {
		pods, err := r.podsOf(ctx, x, job.Labels[build.LabelTrial], *job)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "; %v", err)
		case len(pods) == 0:
			// Deleted (kubectl delete pod, a drain without eviction): its exit is lost.
			b.WriteString("; the failed pod is gone, deleted while it ran (only disruptions the cluster reports, such as evictions, are retried)")
		default:
			for _, p := range pods {
				if p.Status.Phase == corev1.PodFailed {
					fmt.Fprintf(&b, "; pod %s failed: %s %s", p.Name, p.Status.Reason, names.Truncate(p.Status.Message, 300))
				}
			}
		}
	}
	return b.String()
}

// workersInterrupted reports whether a failed Job's containers stopped because
// they were interrupted (their exit code says so) rather than on an error.
func (r *ExperimentReconciler) workersInterrupted(ctx context.Context, x *serdebenchv1.SerializationExperiment, job *batchv1.Job) bool {
	failed := r.failedContainers(ctx, x, job)
	for _, cs := range failed {
		if cs.State.Terminated.ExitCode != protocol.ExitInterrupted {
			return false
		}
	}
	return len(failed) > 0
}

// failedContainers are the terminated, non-zero containers of the Job's pods.
func (r *ExperimentReconciler) failedContainers(ctx context.Context, x *serdebenchv1.SerializationExperiment, job *batchv1.Job) []corev1.ContainerStatus {
	pods, err := r.podsOf(ctx, x, job.Labels[build.LabelTrial], *job)
	if err != nil {
		return nil
	}
	var out []corev1.ContainerStatus
	for i := range pods {
		for _, cs := range pods[i].Status.ContainerStatuses {
			if term := cs.State.Terminated; term != nil && term.ExitCode != 0 {
				out = append(out, cs)
			}
		}
	}
	return out
}

// reader reads uncached (the API reader when the manager provides one).
func (r *ExperimentReconciler) reader() client.Reader {
	if r.APIReader != nil {
		return r.APIReader
	}
	return r.Client
}
