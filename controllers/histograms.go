package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/workers/summary"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;update

// keepHistograms merges a repetition's latency histograms into the experiment's
// histograms ConfigMap (build.Histograms), before the result is written, and
// returns it for the result's merged percentiles. A trial without repetitions
// keeps nothing (nil). The merged percentiles are a statistic beside the
// measurement: when they cannot be kept (the API's trouble, a ConfigMap of that
// name that is not this experiment's, the size limit) the result leaves them
// out and the trial goes on.
func (r *ExperimentReconciler) keepHistograms(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, m *summary.Result) *corev1.ConfigMap {
	if t.Repetition == 0 {
		return nil
	}
	cm, err := r.mergeHistograms(ctx, x, t, m)
	if err != nil {
		log.FromContext(ctx).Error(err, "merged percentiles left out", "experiment", x.Name, "trial", t.Name)
		r.event(x, corev1.EventTypeWarning, "MergedPercentilesLeftOut", "trial %s: %v", t.Name, err)
		return nil
	}
	return cm
}

func (r *ExperimentReconciler) mergeHistograms(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, m *summary.Result) (*corev1.ConfigMap, error) {
	cm := build.Histograms(x)
	err := r.reader().Get(ctx, client.ObjectKeyFromObject(cm), cm)
	create := apierrors.IsNotFound(err)
	if err != nil && !create {
		return nil, fmt.Errorf("get %s: %w", cm.Name, err)
	}
	if !create && !build.OwnsHistograms(x, cm) {
		return nil, fmt.Errorf("ConfigMap %s is not this experiment's (a predecessor's of the same name, or someone else's)", cm.Name)
	}
	changed, err := build.MergeHistograms(cm, t, m.Latency(summary.EndToEndMicros), m.Latency(summary.AckLatencyMicros))
	if err != nil || !changed {
		return cm, err
	}
	if create {
		if err := controllerutil.SetControllerReference(x, cm, r.Scheme); err != nil {
			return nil, err
		}
		err = r.Create(ctx, cm)
	} else {
		err = r.Update(ctx, cm)
	}
	if err != nil {
		return nil, fmt.Errorf("keep the histograms of %s in %s: %w", t.Name, cm.Name, err)
	}
	return cm, nil
}
