package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/workers/protocol"
)

// Reasons for payload source conditions.
const (
	ReasonInvalidPayloadSource = "InvalidPayloadSource"
	ReasonWaitingForSource     = "WaitingForPayloadSource"
	ReasonSourceUnreadable     = "PayloadSourceUnreadable"
	ReasonCheckingSource       = "CheckingPayloadSource"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get

// checkSource reads the payload source's ConfigMap and has its content checked in
// the worker image (build.SourceCheckJob: every sample against the schema and
// through every codec). missing reports a ConfigMap or key that does not exist
// (worth waiting for before the first trial); pending, a check still running;
// invalid, a source that cannot work, naming the samples line; err, a failure to
// read or create (worth a retry).
func (r *ExperimentReconciler) checkSource(ctx context.Context, x *serdebenchv1.SerializationExperiment) (missing string, pending bool, invalid, err error) {
	src := x.Spec.Payload.Source
	if src.ConfigMap == nil {
		return "", false, errors.New("payload.source.schemaPath and samplesPath are for serdebench run: in a cluster, put the schema and samples in a ConfigMap and set payload.source.configMap"), nil
	}
	cm := &corev1.ConfigMap{}
	ref := src.ConfigMap
	if err := r.reader().Get(ctx, types.NamespacedName{Namespace: x.Namespace, Name: ref.Name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return fmt.Sprintf("ConfigMap %s/%s not found", x.Namespace, ref.Name), false, nil, nil
		}
		return "", false, nil, fmt.Errorf("read ConfigMap %s: %w", ref.Name, err)
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
		return fmt.Sprintf("ConfigMap %s has no key %q (payload.source.configMap.schemaKey)", ref.Name, ref.SchemaKey), false, nil, nil
	}
	samples, ok := data(ref.SamplesKey)
	if !ok {
		return fmt.Sprintf("ConfigMap %s has no key %q (payload.source.configMap.samplesKey)", ref.Name, ref.SamplesKey), false, nil, nil
	}
	// New content gets a new check; content already checked is not checked again.
	h := sha256.New()
	for _, part := range [][]byte{schema, samples} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	passed, failure, err := r.sourceChecked(ctx, x, hex.EncodeToString(h.Sum(nil)))
	switch {
	case err != nil:
		return "", false, nil, err
	case failure != "":
		return "", false, fmt.Errorf("ConfigMap %s key %s: %s", ref.Name, ref.SamplesKey, failure), nil
	}
	return "", !passed, nil, nil
}

// sourceChecked creates the source check Job for content hash unless it exists, and
// reads its outcome: passed, or failure (what the worker found, or why the check
// did not finish), or neither while it runs.
func (r *ExperimentReconciler) sourceChecked(ctx context.Context, x *serdebenchv1.SerializationExperiment, hash string) (passed bool, failure string, err error) {
	want := build.SourceCheckJob(r.buildConfig(), x, hash)
	got := &batchv1.Job{}
	err = r.Get(ctx, client.ObjectKeyFromObject(want), got)
	if apierrors.IsNotFound(err) {
		if err := controllerutil.SetControllerReference(x, want, r.Scheme); err != nil {
			return false, "", err
		}
		if err := r.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, "", fmt.Errorf("create job %s: %w", want.Name, err)
		}
		r.event(x, corev1.EventTypeNormal, "JobCreated", "created job %s to check the payload source", want.Name)
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("get job %s: %w", want.Name, err)
	}
	switch {
	case jobFinished(got, batchv1.JobComplete):
		return true, "", nil
	case !jobFinished(got, batchv1.JobFailed):
		return false, "", nil
	}
	// The worker's own words when it ran (exit 4: the samples do not pass), else
	// why the Job failed (an image that cannot be pulled, the deadline).
	pods, err := r.podsOf(ctx, x, build.SourceCheckTrial, *got)
	if err != nil {
		return false, "", err
	}
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil && t.ExitCode == protocol.ExitInvalidSource {
				return false, strings.TrimSpace(t.Message), nil
			}
			if t := cs.State.Terminated; t != nil {
				return false, fmt.Sprintf("the source check (job %s) exited with %d: %s", got.Name, t.ExitCode, strings.TrimSpace(t.Message)), nil
			}
		}
	}
	for _, c := range got.Status.Conditions {
		if c.Type == batchv1.JobFailed {
			return false, fmt.Sprintf("the source check (job %s) failed: %s: %s", got.Name, c.Reason, c.Message), nil
		}
	}
	return false, "the source check (job " + got.Name + ") failed", nil
}

// jobFinished says whether the Job has condition typ (Complete or Failed) true.
func jobFinished(j *batchv1.Job, typ batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// recheckSource checks the payload source again before a trial's Jobs exist. stop
// says the caller returns res and err: a read error is retried; a ConfigMap gone or
// no longer valid fails the experiment at this trial.
func (r *ExperimentReconciler) recheckSource(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (res ctrl.Result, stop bool, err error) {
	missing, pending, invalid, err := r.checkSource(ctx, x)
	switch {
	case err != nil:
		return ctrl.Result{}, true, err
	case pending:
		// Changed content is checked before any worker mounts it.
		return ctrl.Result{RequeueAfter: r.poll()}, true, nil
	case missing != "":
		res, err = r.fail(ctx, x, t.Index, ReasonInvalidPayloadSource, missing+" (it was there when the experiment was accepted)")
		return res, true, err
	case invalid != nil:
		res, err = r.fail(ctx, x, t.Index, ReasonInvalidPayloadSource, invalid.Error())
		return res, true, err
	}
	return ctrl.Result{}, false, nil
}
