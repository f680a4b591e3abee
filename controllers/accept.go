package controllers

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/plan"
)

// acceptor accepts experiments: it plans their trials and checks what they need
// before any trial may start (the payload source, Chaos Mesh). It runs as a
// controller of its own, on its own work queue, so that a new experiment is not
// accepted behind every running experiment's steps (at 1,000 created at once, the
// experiments' steps kept each item about 10 s in the queue). The experiment
// controller leaves an experiment alone until it is accepted.
type acceptor struct{ r *ExperimentReconciler }

// needsAcceptance is whether an experiment waits for the acceptor: never
// accepted, or its spec changed before any trial started.
func needsAcceptance(x *serdebenchv1.SerializationExperiment) bool {
	return !meta.IsStatusConditionTrue(x.Status.Conditions, serdebenchv1.ConditionAccepted) ||
		(x.Status.StartTime == nil && x.Status.ObservedGeneration != x.Generation)
}

// finished is whether an experiment has ended.
func finished(x *serdebenchv1.SerializationExperiment) bool {
	return x.Status.Stage == serdebenchv1.StageSucceeded || x.Status.Stage == serdebenchv1.StageFailed
}

// Reconcile accepts the experiment, or says in its Accepted condition what it
// waits for.
func (a acceptor) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	r := a.r
	ctx, cancel := context.WithTimeout(ctx, reconcileTimeout)
	defer cancel()
	x := &serdebenchv1.SerializationExperiment{}
	if err := r.read(ctx, req.NamespacedName, x); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !x.DeletionTimestamp.IsZero() || finished(x) || !needsAcceptance(x) {
		return ctrl.Result{}, nil
	}
	trials, err := plan.Expand(x.Spec.ExperimentSpec)
	if err != nil {
		return r.fail(ctx, x, -1, ReasonInvalidSpec, err.Error())
	}
	for _, t := range trials {
		for _, side := range []trial.Side{trial.SideProducers, trial.SideConsumers} {
			if _, err := build.RuntimeImage(r.buildConfig(), x, t.Settings.ClientOf(side)); err != nil {
				return r.fail(ctx, x, -1, ReasonInvalidSpec, fmt.Sprintf("trial %s: %v", t.Name, err))
			}
		}
	}
	if x.Spec.Payload.Source != nil {
		missing, pending, failed, err := r.checkSource(ctx, x)
		switch {
		case err != nil:
			// The API server's trouble (or missing RBAC): said in the status, and
			// retried with backoff.
			if _, werr := r.notAccepted(ctx, x, ReasonSourceUnreadable, err.Error()); werr != nil {
				return ctrl.Result{}, werr
			}
			return ctrl.Result{}, err
		case failed != nil:
			return r.fail(ctx, x, -1, failed.reason, failed.message)
		case missing != "":
			// The ConfigMap may be applied after the experiment (GitOps): wait.
			return r.notAccepted(ctx, x, ReasonWaitingForSource, missing)
		case pending:
			// The check Job's completion triggers the next reconcile; the poll is a
			// backstop.
			return r.notAccepted(ctx, x, ReasonCheckingSource, "checking every sample through every codec in the worker image")
		}
	}
	if x.Spec.Faults != nil {
		// Every scenario must be expressible for this experiment's pods (Chaos
		// Mesh objects, or a consumer group event the operator applies itself),
		// and Chaos Mesh installed where one is needed, before any topic exists.
		missing, err := r.chaosMeshMissing(x, trials)
		if err != nil {
			return r.fail(ctx, x, -1, ReasonInvalidSpec, "spec.faults: "+err.Error())
		}
		if missing != "" {
			return r.notAccepted(ctx, x, ReasonChaosMeshNotInstalled, missing)
		}
	}
	return r.accept(ctx, x, trials)
}

// notAccepted records why the experiment waits (Accepted=False with reason and
// message) and checks again after the poll interval.
func (r *ExperimentReconciler) notAccepted(ctx context.Context, x *serdebenchv1.SerializationExperiment, reason, msg string) (ctrl.Result, error) {
	x.Status.ObservedGeneration = x.Generation
	r.setCondition(x, serdebenchv1.ConditionAccepted, metav1.ConditionFalse, reason, msg)
	if res, err := r.updateStatus(ctx, x); err != nil || !res.IsZero() {
		return res, err // a conflict is retried at once
	}
	return ctrl.Result{RequeueAfter: r.poll()}, nil
}

// accept plans the trials and records them as Pending.
func (r *ExperimentReconciler) accept(ctx context.Context, x *serdebenchv1.SerializationExperiment, trials []trial.Trial) (ctrl.Result, error) {
	x.Status.ObservedGeneration = x.Generation
	x.Status.TrialCount = int32(len(trials))
	x.Status.Trials = make([]serdebenchv1.TrialStatus, len(trials))
	for i, t := range trials {
		x.Status.Trials[i] = serdebenchv1.TrialStatus{Name: t.Name, Phase: serdebenchv1.TrialPending, Attempt: 1, Topic: build.TopicName(x, t, 1)}
	}
	r.setCondition(x, serdebenchv1.ConditionAccepted, metav1.ConditionTrue, ReasonPlanned, fmt.Sprintf("%d trials planned", len(trials)))
	r.setStage(x, serdebenchv1.StageAccepted)
	return r.updateStatus(ctx, x)
}
