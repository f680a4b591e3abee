package controllers

import (
	"context"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/internal/plan"
)

// stage is the one thing a reconcile does for an experiment, decided from the
// object alone by stageOf; Reconcile's switch runs it. A trial's phase is part of
// it: a stage names the trial phase it advances. Each stage lives in its file.
type stage string

// The stages, in the order stageOf looks for them.
const (
	// stageDeleting: the experiment is deleted; its topics, Jobs and faults go,
	// then its finalizer (finalize.go).
	stageDeleting stage = "Deleting"
	// stageCleaningUp: a finished trial's Jobs (and, per cleanupPolicy, topic) go
	// before anything else, so no two trials' workers overlap (cleanup.go).
	stageCleaningUp stage = "CleaningUp"
	// stageFinished: the experiment ended; at most the kstatus conditions of an
	// older operator's status are added (finish.go).
	stageFinished stage = "Finished"
	// stageAccepting: not accepted yet, or its spec changed before any trial
	// started; the acceptor's, on a queue of its own (accept.go).
	stageAccepting stage = "Accepting"
	// stageStopping: a trial is recorded as failed; the experiment fails with its
	// message (finish.go).
	stageStopping stage = "Stopping"
	// stageTimedOut: the current trial ran past spec.timeoutSeconds (finish.go).
	stageTimedOut stage = "TimedOut"
	// stageBeginning: the next trial is Pending (begin.go).
	stageBeginning stage = "Beginning"
	// stageCreatingTopic: the current trial's topic is made or checked (topic.go).
	stageCreatingTopic stage = "CreatingTopic"
	// stageRunning: the current trial's Jobs run, its producers start together and
	// its fault is applied (run.go, start.go, fault.go).
	stageRunning stage = "Running"
	// stageCollecting: the current trial's summaries go into the result
	// (collect.go).
	stageCollecting stage = "Collecting"
	// stageSucceeding: every trial is measured or skipped (finish.go).
	stageSucceeding stage = "Succeeding"
)

// planned is whether the stage acts on the planned trials (and so needs them, and
// the finalizer).
func (s stage) planned() bool {
	switch s {
	case stageDeleting, stageCleaningUp, stageFinished, stageAccepting:
		return false
	}
	return true
}

// stageOf is what to do next for x at now, and the index of the trial it
// concerns (-1 for none). It reads nothing but x.
func stageOf(x *serdebenchv1.SerializationExperiment, now time.Time) (stage, int, error) {
	if !x.DeletionTimestamp.IsZero() {
		return stageDeleting, -1, nil
	}
	for i, ts := range x.Status.Trials {
		if (ts.Phase == serdebenchv1.TrialSucceeded || ts.Phase == serdebenchv1.TrialFailed) && !ts.CleanedUp {
			return stageCleaningUp, i, nil
		}
	}
	switch {
	case finished(x):
		return stageFinished, -1, nil
	case needsAcceptance(x):
		return stageAccepting, -1, nil
	}
	for i := range x.Status.Trials {
		ts := &x.Status.Trials[i]
		switch ts.Phase {
		case serdebenchv1.TrialSucceeded, serdebenchv1.TrialSkipped:
			continue
		case serdebenchv1.TrialFailed:
			return stageStopping, i, nil
		case serdebenchv1.TrialPending:
			return stageBeginning, i, nil
		}
		if deadline, ok := trialDeadline(x, ts); ok && now.After(deadline) {
			return stageTimedOut, i, nil
		}
		switch ts.Phase {
		case serdebenchv1.TrialCreatingTopic:
			return stageCreatingTopic, i, nil
		case serdebenchv1.TrialRunning:
			return stageRunning, i, nil
		case serdebenchv1.TrialCollecting:
			return stageCollecting, i, nil
		}
		return "", i, fmt.Errorf("trial %s in unknown phase %q", ts.Name, ts.Phase)
	}
	return stageSucceeding, -1, nil
}

// Reconcile moves an experiment one step forward: it runs the stage stageOf
// names. Every step that has a side effect either records its intent in the
// status first (and repeats idempotently after a restart) or detects its own
// earlier completion.
func (r *ExperimentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// Bound the step: Kafka calls and API calls alike.
	ctx, cancel := context.WithTimeout(ctx, reconcileTimeout)
	defer cancel()
	x := &serdebenchv1.SerializationExperiment{}
	if err := r.read(ctx, req.NamespacedName, x); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s, i, err := stageOf(x, time.Now())
	if err != nil {
		return ctrl.Result{}, err
	}
	log.FromContext(ctx).V(1).Info("step", "stage", s, "trial", i)
	var trials []trial.Trial
	if s.planned() {
		if trials, err = plan.Expand(x.Spec.ExperimentSpec); err != nil {
			return r.fail(ctx, x, -1, ReasonInvalidSpec, err.Error())
		}
		if len(trials) != len(x.Status.Trials) {
			return r.fail(ctx, x, -1, ReasonInvalidSpec, fmt.Sprintf("the spec plans %d trials, the status holds %d", len(trials), len(x.Status.Trials)))
		}
		if err := r.addFinalizer(ctx, x); err != nil {
			return ctrl.Result{}, err
		}
	}
	switch s {
	case stageDeleting:
		return r.finalize(ctx, x)
	case stageCleaningUp:
		return r.cleanup(ctx, x, &x.Status.Trials[i])
	case stageFinished:
		return r.backfillKstatus(ctx, x)
	case stageAccepting:
		return ctrl.Result{}, nil
	case stageStopping:
		return r.fail(ctx, x, i, ReasonStopped, x.Status.Trials[i].Message)
	case stageTimedOut:
		ts := x.Status.Trials[i]
		return r.fail(ctx, x, i, ReasonTrialTimeout, fmt.Sprintf("trial %s did not finish within %ds (phase %s)", ts.Name, x.Spec.TimeoutSeconds, ts.Phase))
	case stageBeginning:
		return r.begin(ctx, x, trials, i)
	case stageCreatingTopic:
		return r.ensureTopic(ctx, x, trials[i])
	case stageRunning:
		return r.run(ctx, x, trials[i])
	case stageCollecting:
		return r.collect(ctx, x, trials[i])
	case stageSucceeding:
		return r.succeed(ctx, x)
	}
	return ctrl.Result{}, fmt.Errorf("no step for stage %q", s)
}

// reconcileTimeout bounds one reconcile step; a step that waits for Kafka longer
// than this is retried, and the trial timeout decides when to give up.
const reconcileTimeout = time.Minute

// trialDeadline is when the trial times out (spec.timeoutSeconds after it started);
// false before it started.
func trialDeadline(x *serdebenchv1.SerializationExperiment, ts *serdebenchv1.TrialStatus) (time.Time, bool) {
	if ts.StartTime == nil {
		return time.Time{}, false
	}
	return ts.StartTime.Add(time.Duration(x.Spec.TimeoutSeconds) * time.Second), true
}

// addFinalizer adds the experiment's finalizer, once: before the first trial
// makes anything outside the cluster (its topic), not at acceptance. An accepted
// experiment owns nothing a finalizer must remove (its source check's Jobs go
// with it), and acceptance is then one write, which at 1,000 experiments at once
// is what each waits for. x gets the new resourceVersion, so the step goes on.
//
// A patch of the finalizers alone: an Update would write back the spec as the Go
// types encode it, which the API server can count as a spec change (generation 2
// after acceptance saw 1, and `serdebench wait` and kstatus, which read a status
// only at its observedGeneration, never saw the end).
func (r *ExperimentReconciler) addFinalizer(ctx context.Context, x *serdebenchv1.SerializationExperiment) error {
	if controllerutil.ContainsFinalizer(x, build.Finalizer) {
		return nil
	}
	orig := x.DeepCopy()
	controllerutil.AddFinalizer(x, build.Finalizer)
	if err := r.Patch(ctx, x, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		r.fresh.forget(client.ObjectKeyFromObject(x))
		return fmt.Errorf("add finalizer: %w", err)
	}
	r.fresh.remember(x)
	return nil
}
