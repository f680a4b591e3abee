package controllers

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
)

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
