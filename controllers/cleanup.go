package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/kafkaconn"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/topics"
)

// finalizeGiveUp is how long a deleted experiment waits for an unreachable Kafka
// before it lets go of its topics (with a warning event) rather than block deletion.
const finalizeGiveUp = 2 * time.Minute

// cleanupTrial deletes a trial's Jobs (with their pods) and, per cleanupPolicy, its
// topic. force deletes the Jobs even under Retain (a failed trial's workers must stop).
func (r *ExperimentReconciler) cleanupTrial(ctx context.Context, x *serdebenchv1.SerializationExperiment, ts *serdebenchv1.TrialStatus, force bool) error {
	retain := x.Spec.CleanupPolicy == serdebenchv1.CleanupRetain
	if !retain || force {
		if err := r.deleteJobs(ctx, x, client.MatchingLabels{LabelExperiment: truncate(x.Name, 63), LabelTrial: ts.Name}); err != nil {
			return err
		}
	}
	if retain || ts.Phase == serdebenchv1.TrialPending {
		return nil
	}
	prov, err := r.provisioner(ctx, x)
	if err != nil {
		return topicError{err}
	}
	if err := prov.Delete(ctx, ts.Topic); err != nil {
		return topicError{err}
	}
	return nil
}

// topicError marks a failure to delete a topic (as opposed to a Job).
type topicError struct{ err error }

func (e topicError) Error() string { return "topic cleanup: " + e.err.Error() }
func (e topicError) Unwrap() error { return e.err }

func (r *ExperimentReconciler) deleteJobs(ctx context.Context, x *serdebenchv1.SerializationExperiment, sel client.MatchingLabels) error {
	jobs := &batchv1.JobList{}
	if err := r.List(ctx, jobs, client.InNamespace(x.Namespace), sel); err != nil {
		return fmt.Errorf("list jobs: %w", err)
	}
	for i := range jobs.Items {
		if !metav1.IsControlledBy(&jobs.Items[i], x) {
			continue
		}
		if err := r.Delete(ctx, &jobs.Items[i], client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete job %s: %w", jobs.Items[i].Name, err)
		}
	}
	return nil
}

// finalize removes every topic and Job of a deleted experiment, then its finalizer.
func (r *ExperimentReconciler) finalize(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(x, Finalizer) {
		return ctrl.Result{}, nil
	}
	if err := r.deleteJobs(ctx, x, client.MatchingLabels{LabelExperiment: truncate(x.Name, 63)}); err != nil {
		return ctrl.Result{}, err
	}
	var failed []string
	if prov, err := r.provisioner(ctx, x); err != nil {
		failed = append(failed, err.Error())
	} else {
		for _, ts := range x.Status.Trials {
			if ts.Phase == serdebenchv1.TrialPending || ts.Topic == "" {
				continue
			}
			if err := prov.Delete(ctx, ts.Topic); err != nil {
				failed = append(failed, err.Error())
			}
		}
	}
	if len(failed) > 0 {
		if time.Since(x.DeletionTimestamp.Time) < finalizeGiveUp {
			log.FromContext(ctx).Info("retrying topic cleanup", "experiment", x.Name, "errors", failed)
			return ctrl.Result{RequeueAfter: r.poll()}, nil
		}
		r.event(x, corev1.EventTypeWarning, "CleanupIncomplete", "gave up deleting topics after %s: %s", finalizeGiveUp, strings.Join(failed, "; "))
	}
	controllerutil.RemoveFinalizer(x, Finalizer)
	if err := r.Update(ctx, x); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("remove finalizer: %w", err)
	}
	return ctrl.Result{}, nil
}

// provisioner returns the topic provisioner for the experiment's Kafka.
func (r *ExperimentReconciler) provisioner(ctx context.Context, x *serdebenchv1.SerializationExperiment) (topics.Provisioner, error) {
	if r.Topics != nil {
		return r.Topics(ctx, x)
	}
	k := x.Spec.Kafka
	if k.Strimzi != nil {
		return &topics.Strimzi{Client: r.Client, Cluster: k.Strimzi.ClusterName, Namespace: strimziNamespace(x)}, nil
	}
	sec, err := r.security(ctx, x)
	if err != nil {
		return nil, err
	}
	return &topics.Admin{Brokers: brokersOf(k.BootstrapServers), Security: sec}, nil
}

// security reads TLS and SASL material from the experiment's Secrets.
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
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sec); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", ns, name, err)
	}
	v, ok := sec.Data[key]
	if !ok {
		return nil, fmt.Errorf("secret %s/%s has no key %q", ns, name, key)
	}
	return v, nil
}

// failedPodMessages summarizes why the trial's failed containers stopped (their
// termination message falls back to the log tail on error).
func (r *ExperimentReconciler) failedPodMessages(ctx context.Context, x *serdebenchv1.SerializationExperiment, t plan.Trial) string {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(x.Namespace), client.MatchingLabels{LabelExperiment: truncate(x.Name, 63), LabelTrial: t.Name}); err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			if term := cs.State.Terminated; term != nil && term.ExitCode != 0 {
				fmt.Fprintf(&b, "; pod %s container %s exited %d (%s): %s", p.Name, cs.Name, term.ExitCode, term.Reason, truncate(strings.TrimSpace(term.Message), 500))
			}
		}
	}
	return b.String()
}
