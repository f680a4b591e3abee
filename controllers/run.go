package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
)

// run creates the trial's Jobs (consumers first) and waits for them.
func (r *ExperimentReconciler) run(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (ctrl.Result, error) {
	ts := &x.Status.Trials[t.Index]
	jobs, err := build.TrialJobs(r.buildConfig(), x, t, ts.Topic, build.Bootstrap(x), int(ts.Attempt))
	if err != nil {
		return r.fail(ctx, x, t.Index, ReasonInvalidSpec, err.Error())
	}
	done, checked := 0, false
	for _, want := range jobs {
		got := &batchv1.Job{}
		err := r.Get(ctx, client.ObjectKeyFromObject(want), got)
		if apierrors.IsNotFound(err) {
			if x.Spec.Payload.Source != nil && !checked {
				// The workers will mount the ConfigMap as it is now: it must still be
				// there and still pass, or the pods would wait for a mount until the
				// trial timeout, or send samples nobody checked.
				if res, stop, err := r.recheckSource(ctx, x, t); stop {
					return res, err
				}
				checked = true
			}
			if err := controllerutil.SetControllerReference(x, want, r.Scheme); err != nil {
				return ctrl.Result{}, err
			}
			if err := r.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
				return ctrl.Result{}, fmt.Errorf("create job %s: %w", want.Name, err)
			}
			r.event(x, corev1.EventTypeNormal, "JobCreated", "created job %s", want.Name)
			r.sideEffect(x, "job created")
			continue
		}
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("get job %s: %w", want.Name, err)
		}
		if c := jobCondition(got, batchv1.JobFailed); c != nil {
			return r.jobFailed(ctx, x, t, got, c)
		}
		if jobCondition(got, batchv1.JobComplete) != nil {
			done++
		}
	}
	if done < len(jobs) {
		switch {
		case ts.Start == nil:
			planned, err := r.planStart(ctx, x, t)
			if errors.Is(err, errWorkersNotUp) {
				// Pod changes wake this; the poll is only a safety net, kept rare so
				// that many experiments waiting for pods leave the workers free, but
				// never later than the trial's timeout.
				wait := max(r.poll(), watchedPoll)
				if deadline, ok := trialDeadline(x, ts); ok {
					// A second past the deadline: stageOf then sees it passed.
					wait = max(min(wait, time.Until(deadline)+time.Second), r.poll())
				}
				return ctrl.Result{RequeueAfter: wait}, nil
			}
			if err != nil {
				log.FromContext(ctx).V(1).Info("producers not ready to start", "trial", t.Name, "err", err)
			}
			if !planned {
				return ctrl.Result{RequeueAfter: startPoll}, nil
			}
			return r.updateStatus(ctx, x) // the instant is kept before anyone hears it
		case !ts.Start.Released:
			if err := r.releaseProducers(ctx, x, t); err != nil {
				log.FromContext(ctx).Info("producers not started yet", "trial", t.Name, "err", err)
				return ctrl.Result{RequeueAfter: startPoll}, nil
			}
			ts.Start.Released = true
			r.event(x, corev1.EventTypeNormal, ReasonProducersStarted, "trial %s: producers start at %s", t.Name, ts.Start.At.UTC().Format(time.RFC3339Nano))
			return r.updateStatus(ctx, x)
		}
		r.readClocks(ctx, x, t)
	}
	if t.Fault != nil {
		if res, stop, err := r.fault(ctx, x, t, done == len(jobs)); stop {
			return res, err
		}
	}
	if done < len(jobs) {
		// Job status changes are watched; the poll is a safety net.
		return ctrl.Result{RequeueAfter: r.poll()}, nil
	}
	r.endClocks(x, t)
	ts.Phase = serdebenchv1.TrialCollecting
	return r.updateStatus(ctx, x)
}

// jobFailed retries a trial whose pod the cluster disrupted (the Job's pod failure
// policy failed it on the DisruptionTarget condition) while retries are left, and
// fails the experiment otherwise: WorkerInterrupted when a worker reported it was
// stopped early, WorkerFailed for the worker's own errors.
func (r *ExperimentReconciler) jobFailed(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, job *batchv1.Job, c *batchv1.JobCondition) (ctrl.Result, error) {
	ts := &x.Status.Trials[t.Index]
	msg := fmt.Sprintf("job %s failed: %s: %s%s", job.Name, c.Reason, c.Message, r.failedPodMessages(ctx, x, job))
	if c.Reason == batchv1.JobReasonPodFailurePolicy && ts.Attempt <= retries(x) {
		r.event(x, corev1.EventTypeWarning, ReasonTrialDisrupted, "trial %s attempt %d disrupted, retrying as attempt %d: %s", t.Name, ts.Attempt, ts.Attempt+1, msg)
		now := metav1.Now()
		ts.Attempt++
		ts.Topic = build.TopicName(x, t, int(ts.Attempt))
		ts.Phase = serdebenchv1.TrialCreatingTopic
		ts.TopicRequested = ptr.To(false)
		ts.Fault = nil      // the next attempt's fault is planned and applied anew
		ts.Start = nil      // and its producers started anew
		ts.StartTime = &now // timeoutSeconds bounds each attempt
		ts.Message = fmt.Sprintf("attempt %d disrupted: %s", ts.Attempt-1, msg)
		return r.updateStatus(ctx, x)
	}
	reason := ReasonWorkerFailed
	if c.Reason == batchv1.JobReasonPodFailurePolicy {
		reason = ReasonTrialDisrupted
		msg = fmt.Sprintf("disrupted %d times (spec.retries %d): %s", ts.Attempt, retries(x), msg)
	} else if r.workersInterrupted(ctx, x, job) {
		reason = ReasonWorkerInterrupted
	}
	return r.fail(ctx, x, t.Index, reason, msg)
}

func retries(x *serdebenchv1.SerializationExperiment) int32 {
	if x.Spec.Retries == nil {
		return serdebenchv1.DefaultRetries
	}
	return *x.Spec.Retries
}

func jobCondition(j *batchv1.Job, typ batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if c := &j.Status.Conditions[i]; c.Type == typ && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}
