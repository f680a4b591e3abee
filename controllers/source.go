package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	// ReasonInvalidPayloadSource (Failed, or Accepted=False): the user's schema or
	// samples do not fit the spec or do not round-trip through a codec; the
	// message names the line.
	ReasonInvalidPayloadSource = "InvalidPayloadSource"
	// ReasonWaitingForSource (Accepted=False): the payload source's ConfigMap does
	// not exist yet, or lacks a key; the experiment waits.
	ReasonWaitingForSource = "WaitingForPayloadSource"
	// ReasonSourceUnreadable (Accepted=False): the payload source's ConfigMap could
	// not be read (the message says why).
	ReasonSourceUnreadable = "PayloadSourceUnreadable"
	// ReasonCheckingSource (Accepted=False): a Job in the worker image checks
	// every sample through every codec.
	ReasonCheckingSource = "CheckingPayloadSource"
	// ReasonSourceCheckFailed: the check itself did not run to a verdict (an image
	// that cannot be pulled, the deadline, a crash): nothing is known of the source.
	ReasonSourceCheckFailed = "PayloadSourceCheckFailed"
)

// sourceFailure is why a payload source cannot be used: a reason for the Failed
// condition and its message.
type sourceFailure struct{ reason, message string }

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get

// checkSource reads the payload source's ConfigMap and has its content checked in
// the worker image (build.SourceCheckJob: every sample against the schema and
// through every codec). missing reports a ConfigMap or key that does not exist
// (worth waiting for before the first trial); pending, a check still running;
// failed, a source that cannot work (naming the samples line) or a check that
// could not run; err, a failure to read or create (worth a retry).
func (r *ExperimentReconciler) checkSource(ctx context.Context, x *serdebenchv1.SerializationExperiment) (missing string, pending bool, failed *sourceFailure, err error) {
	src := x.Spec.Payload.Source
	if src.ConfigMap == nil {
		return "", false, &sourceFailure{ReasonInvalidPayloadSource, "payload.source.schemaPath and samplesPath are for serdebench run: in a cluster, put the schema and samples in a ConfigMap and set payload.source.configMap"}, nil
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
	// The hash covers everything the check reads: the files, how to read them and
	// the codecs they must pass.
	h := sha256.New()
	parts := [][]byte{schema, samples, []byte(src.Format), []byte(src.Message)}
	for _, c := range x.Spec.Codecs {
		parts = append(parts, []byte(c))
	}
	for _, part := range parts {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	passed, failed, err := r.sourceChecked(ctx, x, hex.EncodeToString(h.Sum(nil)))
	switch {
	case err != nil:
		return "", false, nil, err
	case failed != nil && failed.reason == ReasonInvalidPayloadSource:
		failed.message = fmt.Sprintf("ConfigMap %s key %s: %s", ref.Name, ref.SamplesKey, failed.message)
		return "", false, failed, nil
	case failed != nil:
		return "", false, failed, nil
	}
	return "", !passed, nil, nil
}

// sourceChecked creates the source check Job for content hash unless it exists, and
// reads its outcome: passed, or failed (InvalidPayloadSource with what the worker
// found, or PayloadSourceCheckFailed with why the check did not finish), or neither
// while it runs.
func (r *ExperimentReconciler) sourceChecked(ctx context.Context, x *serdebenchv1.SerializationExperiment, hash string) (passed bool, failed *sourceFailure, err error) {
	want := build.SourceCheckJob(r.buildConfig(), x, hash)
	got := &batchv1.Job{}
	err = r.Get(ctx, client.ObjectKeyFromObject(want), got)
	if apierrors.IsNotFound(err) {
		if err := controllerutil.SetControllerReference(x, want, r.Scheme); err != nil {
			return false, nil, err
		}
		if err := r.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, nil, fmt.Errorf("create job %s: %w", want.Name, err)
		}
		r.event(x, corev1.EventTypeNormal, "JobCreated", "created job %s to check the payload source", want.Name)
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("get job %s: %w", want.Name, err)
	}
	switch {
	case jobCondition(got, batchv1.JobComplete) != nil:
		return true, nil, nil
	case jobCondition(got, batchv1.JobFailed) == nil:
		return false, nil, nil
	}
	// The worker's own words when it ran (exit 4: the samples do not pass), else
	// why the Job failed (an image that cannot be pulled, the deadline, a crash):
	// that says nothing of the source, so it has a reason of its own.
	pods, err := r.podsOf(ctx, x, build.SourceCheckTrial, *got)
	if err != nil {
		return false, nil, err
	}
	broken := func(format string, a ...any) *sourceFailure {
		return &sourceFailure{ReasonSourceCheckFailed, fmt.Sprintf("the payload source check (job %s) did not finish: ", got.Name) + fmt.Sprintf(format, a...)}
	}
	for _, p := range pods {
		for _, cs := range p.Status.ContainerStatuses {
			t := cs.State.Terminated
			switch {
			case t == nil:
			case t.ExitCode == protocol.ExitInvalidSource && strings.TrimSpace(t.Message) != "":
				return false, &sourceFailure{ReasonInvalidPayloadSource, strings.TrimSpace(t.Message)}, nil
			case t.ExitCode == protocol.ExitInvalidSource:
				// The worker writes the samples line to its termination log; without it
				// the verdict cannot be explained, and an unexplained one is not given.
				return false, broken("the worker found the source invalid (exit %d) but its termination message is empty", t.ExitCode), nil
			default:
				why := strings.TrimSpace(t.Message)
				if t.Reason != "" && t.Reason != "Error" {
					why = t.Reason + ": " + why // OOMKilled, ContainerCannotRun
				}
				return false, broken("the worker exited with %d: %s", t.ExitCode, why), nil
			}
		}
	}
	c := jobCondition(got, batchv1.JobFailed)
	return false, broken("%s: %s", c.Reason, c.Message), nil
}

// recheckSource checks the payload source again before a trial's Jobs exist. stop
// says the caller returns res and err: a read error is retried; a ConfigMap gone or
// no longer valid fails the experiment at this trial.
func (r *ExperimentReconciler) recheckSource(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (res ctrl.Result, stop bool, err error) {
	missing, pending, failed, err := r.checkSource(ctx, x)
	switch {
	case err != nil:
		return ctrl.Result{}, true, err
	case pending:
		// Changed content is checked before any worker mounts it.
		return ctrl.Result{RequeueAfter: r.poll()}, true, nil
	case missing != "":
		res, err = r.fail(ctx, x, t.Index, ReasonInvalidPayloadSource, missing+" (it was there when the experiment was accepted)")
		return res, true, err
	case failed != nil:
		res, err = r.fail(ctx, x, t.Index, failed.reason, failed.message)
		return res, true, err
	}
	return ctrl.Result{}, false, nil
}
