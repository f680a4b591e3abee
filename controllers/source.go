package controllers

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/codec"
)

// Reasons for payload source conditions.
const (
	ReasonInvalidPayloadSource = "InvalidPayloadSource"
	ReasonWaitingForSource     = "WaitingForPayloadSource"
	ReasonSourceUnreadable     = "PayloadSourceUnreadable"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get

// checkSource reads the payload source's ConfigMap and checks every sample against
// the schema and through every codec. missing reports a ConfigMap or key that does
// not exist (worth waiting for before the first trial); invalid is a source that
// cannot work, naming the samples line; err is a failure to read (worth a retry).
func (r *ExperimentReconciler) checkSource(ctx context.Context, x *serdebenchv1.SerializationExperiment) (missing string, invalid, err error) {
	src := x.Spec.Payload.Source
	if src.ConfigMap == nil {
		return "", errors.New("payload.source.schemaPath and samplesPath are for serdebench run: in a cluster, put the schema and samples in a ConfigMap and set payload.source.configMap"), nil
	}
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	cm := &corev1.ConfigMap{}
	ref := src.ConfigMap
	if err := reader.Get(ctx, types.NamespacedName{Namespace: x.Namespace, Name: ref.Name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Sprintf("ConfigMap %s/%s not found", x.Namespace, ref.Name), nil, nil
		}
		return "", nil, fmt.Errorf("read ConfigMap %s: %w", ref.Name, err)
	}
	data := func(key string) ([]byte, bool) {
		if v, ok := cm.Data[key]; ok {
			return []byte(v), true
		}
		v, ok := cm.BinaryData[key]
		return v, ok
	}
	schema, ok := data(ref.SchemaKey)
	if !ok {
		return fmt.Sprintf("ConfigMap %s has no key %q (payload.source.configMap.schemaKey)", ref.Name, ref.SchemaKey), nil, nil
	}
	samples, ok := data(ref.SamplesKey)
	if !ok {
		return fmt.Sprintf("ConfigMap %s has no key %q (payload.source.configMap.samplesKey)", ref.Name, ref.SamplesKey), nil, nil
	}
	// The worker's own check, linked here until it runs in the worker image.
	if _, err := codec.CheckSamples(trial.Source{Format: src.Format, Message: src.Message}, x.Spec.Codecs, schema, samples); err != nil {
		return "", fmt.Errorf("ConfigMap %s key %s: %w", ref.Name, ref.SamplesKey, err), nil
	}
	return "", nil, nil
}

// recheckSource checks the payload source again before a trial's Jobs exist. stop
// says the caller returns res and err: a read error is retried; a ConfigMap gone or
// no longer valid fails the experiment at this trial.
func (r *ExperimentReconciler) recheckSource(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (res ctrl.Result, stop bool, err error) {
	missing, invalid, err := r.checkSource(ctx, x)
	switch {
	case err != nil:
		return ctrl.Result{}, true, err
	case missing != "":
		res, err = r.fail(ctx, x, t.Index, ReasonInvalidPayloadSource, missing+" (it was there when the experiment was accepted)")
		return res, true, err
	case invalid != nil:
		res, err = r.fail(ctx, x, t.Index, ReasonInvalidPayloadSource, invalid.Error())
		return res, true, err
	}
	return ctrl.Result{}, false, nil
}
