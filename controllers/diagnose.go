package controllers

import (
	"context"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/workers/protocol"
)

// failedPodMessages summarizes why a failed Job's containers stopped (their
// termination message falls back to the log tail on error).
func (r *ExperimentReconciler) failedPodMessages(ctx context.Context, x *serdebenchv1.SerializationExperiment, job *batchv1.Job) string {
	var b strings.Builder
	failed := r.failedContainers(ctx, x, job)
	for _, cs := range failed {
		term := cs.State.Terminated
		fmt.Fprintf(&b, "; container %s exited %d (%s): %s", cs.Name, term.ExitCode, term.Reason, names.Truncate(strings.TrimSpace(term.Message), 500))
	}
	if len(failed) > 0 {
		// A pod deleted mid-trial may still be terminating when its Job fails: its
		// containers' exits are read, and the deletion is what stopped them.
		if pods, err := r.podsOf(ctx, x, job.Labels[build.LabelTrial], *job); err == nil {
			for _, p := range pods {
				if p.DeletionTimestamp != nil {
					fmt.Fprintf(&b, "; pod %s was deleted while it ran (only disruptions the cluster reports, such as evictions, are retried)", p.Name)
				}
			}
		}
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
