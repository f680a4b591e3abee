// Package controllers holds the SerializationExperiment reconciler: it runs an
// experiment's trials one at a time on the cluster (topic, consumer and producer
// Jobs, summaries, Prometheus cross-check, result) and keeps all progress in the
// experiment's status, so a restarted operator resumes without repeating or losing a
// trial.
package controllers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/serdebench/serdebench/controllers/build"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/names"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/topics"
	"github.com/serdebench/serdebench/workers/protocol"
)

// ExperimentReconciler runs SerializationExperiments.
type ExperimentReconciler struct {
	client.Client
	// APIReader reads experiments uncached when the cache may lag one of the
	// reconciler's own writes (fresh): acting on a cached copy that lags a status
	// write could recreate Jobs the last step just deleted.
	APIReader client.Reader
	// fresh is the version of each experiment the reconciler last wrote or read.
	fresh  freshness
	Scheme *runtime.Scheme
	// Clientset reads pod logs (summaries too large for a termination message).
	Clientset kubernetes.Interface
	// PodLogs, if set, reads a container's log instead of Clientset (tests: envtest
	// has no kubelet to serve logs).
	PodLogs  func(ctx context.Context, namespace, pod, container string) ([]byte, error)
	Recorder record.EventRecorder
	// WorkerImage is the default worker image; ImagePullPolicy applies to it.
	WorkerImage     string
	ImagePullPolicy corev1.PullPolicy
	// Prometheus, if set, is queried to cross-check each trial's totals.
	Prometheus *promquery.Client
	// OperatorVersion is recorded in results.
	OperatorVersion string
	// Poll is how often waiting phases re-check (default 2 s).
	Poll time.Duration
	// Topics returns the provisioner for an experiment (default: Strimzi or Admin
	// API per spec.kafka).
	Topics func(ctx context.Context, x *serdebenchv1.SerializationExperiment) (topics.Provisioner, error)
	// WorkerMetricsGrace is the longest workers keep serving /metrics after their
	// trial, for every scraper's last scrape (default 20 s).
	WorkerMetricsGrace time.Duration
	// TerminationMessageBytes is the budget for a worker's summary in its
	// termination message; larger summaries go through the log (default 4096).
	TerminationMessageBytes int
	// ControlHTTP, if set, talks to the workers' control endpoints (default: a
	// client with a 2 s timeout).
	ControlHTTP *http.Client
	// clocks are the workers' clock readings of running trials.
	clocks clockBook
	// admins shares Kafka admin clients between reconciles (closed with the manager).
	admins topics.Pool
	// MaxConcurrentReconciles is how many experiments advance at once in each of
	// its controllers, acceptance and the experiments (default 1;
	// the manager's --max-concurrent-reconciles defaults to 4).
	MaxConcurrentReconciles int
	// AfterStatusWrite and AfterSideEffect, if set, are called after every status
	// write and every external side effect (tests inject crashes there).
	// FaultInjectTimeout bounds the wait for Chaos Mesh to apply a trial's fault
	// once its objects exist (default 30 s).
	FaultInjectTimeout time.Duration
	// CleanupGiveUp bounds how long a trial's cleanup and a deleted experiment wait
	// for Kafka or Strimzi's Topic Operator to delete topics (default 2 min).
	CleanupGiveUp    time.Duration
	AfterStatusWrite func(x *serdebenchv1.SerializationExperiment)
	AfterSideEffect  func(x *serdebenchv1.SerializationExperiment, what string)
}

// Reasons for conditions and events. Each one's comment is its entry in
// docs/api.md's reason table, which TestReasonsDoc generates from them.
const (
	// ReasonPlanned (Accepted=True): the spec is valid and expands into the trials
	// the message counts.
	ReasonPlanned = "Planned"
	// ReasonInvalidSpec (Accepted=False, Failed): the spec cannot run; the message
	// names the field.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonWaitingForTopic (TopicsReady=False): the trial's topic is not ready
	// yet (Strimzi's Topic Operator has not reconciled it, or Kafka is slow).
	ReasonWaitingForTopic = "WaitingForTopic"
	// ReasonWaitingForKafka (Ready=False): a trial's topic cannot be made yet
	// (Kafka unreachable, Strimzi absent, a TLS or SASL Secret missing; the
	// TopicsReady message says why); the experiment waits.
	ReasonWaitingForKafka = "WaitingForKafka"
	// ReasonTopicReady (TopicsReady=True): the current trial's topic exists.
	ReasonTopicReady = "TopicReady"
	// ReasonDeletingTopics (TopicsReady=False): a trial's cleanup or a deleted
	// experiment has waited more than 10 s for its topics to go (the message says
	// what holds them); it waits up to 2 minutes.
	ReasonDeletingTopics = "DeletingTopics"
	// ReasonTopicDeleted (TopicsReady): a DeletingTopics wait ended with the topics
	// gone.
	ReasonTopicDeleted = "TopicDeleted"
	// ReasonTopicCleanupIncomplete (TopicsReady, and a CleanupIncomplete warning
	// event): a DeletingTopics wait gave up after 2 minutes; a KafkaTopic left
	// keeps the Topic Operator's finalizer, so its topic goes once that is back.
	ReasonTopicCleanupIncomplete = "TopicCleanupIncomplete"
	// ReasonProducersStarted (event): a trial's producers were given their start
	// together.
	ReasonProducersStarted = "ProducersStarted"
	// ReasonTopicFailed (Failed): see protocol.ReasonTopicFailed.
	ReasonTopicFailed = protocol.ReasonTopicFailed
	// ReasonTrialRunning (Running=True): a trial's workers run.
	ReasonTrialRunning = "TrialRunning"
	// ReasonTrialMeasured (event): a trial's numbers are in the result.
	ReasonTrialMeasured = "TrialMeasured"
	// ReasonAllTrialsMeasured (Succeeded=True, Ready=True, Running=False): every
	// trial is in the SerializationResult.
	ReasonAllTrialsMeasured = "AllTrialsMeasured"
	// ReasonTrialTimeout (Failed): a trial did not finish within
	// spec.timeoutSeconds.
	ReasonTrialTimeout = "TrialTimeout"
	// ReasonWorkerFailed (Failed): see protocol.ReasonWorkerFailed; never retried.
	ReasonWorkerFailed = protocol.ReasonWorkerFailed
	// ReasonWorkerInterrupted (Failed): see protocol.ReasonWorkerInterrupted.
	ReasonWorkerInterrupted = protocol.ReasonWorkerInterrupted
	// ReasonTrialDisrupted (Failed, and a warning event per retry): the cluster
	// disrupted a trial's pod (eviction, preemption, node loss) more often than
	// spec.retries allows; each disruption before that reruns the trial as a new
	// attempt.
	ReasonTrialDisrupted = "TrialDisrupted"
	// ReasonSummariesMissing (Failed): the trial ended but not every worker's
	// summary could be read (termination message or log).
	ReasonSummariesMissing = "SummariesMissing"
	// ReasonPrometheus (warning event): the Prometheus cross-check of a trial
	// could not run; the trial is measured without it and says so.
	ReasonPrometheus = "PrometheusUnavailable"
	// ReasonStopped (Failed): a trial was already recorded as failed (by an
	// earlier pass); the experiment stops with that trial's message.
	ReasonStopped = "Stopped"
)

// +kubebuilder:rbac:groups=serdebench.io,resources=serializationexperiments,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=serdebench.io,resources=serializationexperiments/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=serdebench.io,resources=serializationexperiments/finalizers,verbs=update
// +kubebuilder:rbac:groups=serdebench.io,resources=serializationresults,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=kafka.strimzi.io,resources=kafkatopics,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups=kafka.strimzi.io,resources=kafkas,verbs=get
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete

// Reconcile moves an experiment one step forward. Every step that has a side
// effect either records its intent in the status first (and repeats idempotently
// after a restart) or detects its own earlier completion.
func (r *ExperimentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// Bound the step: Kafka calls and API calls alike.
	ctx, cancel := context.WithTimeout(ctx, reconcileTimeout)
	defer cancel()
	x := &serdebenchv1.SerializationExperiment{}
	if err := r.read(ctx, req.NamespacedName, x); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !x.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, x)
	}
	// Finished trials are cleaned up before anything else happens: no two trials'
	// workers ever overlap, and a restart after recording an outcome repeats only
	// the cleanup.
	for i := range x.Status.Trials {
		ts := &x.Status.Trials[i]
		if (ts.Phase == serdebenchv1.TrialSucceeded || ts.Phase == serdebenchv1.TrialFailed) && !ts.CleanedUp {
			return r.cleanup(ctx, x, ts)
		}
	}
	if finished(x) {
		// Finished under an operator without the kstatus conditions: add them once.
		if meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionReady) == nil {
			return r.updateStatus(ctx, x)
		}
		return ctrl.Result{}, nil
	}
	if needsAcceptance(x) {
		// The acceptance controller's (accept.go), on a queue of its own.
		return ctrl.Result{}, nil
	}
	trials, err := plan.Expand(x.Spec.ExperimentSpec)
	if err != nil {
		return r.fail(ctx, x, -1, ReasonInvalidSpec, err.Error())
	}
	if !controllerutil.ContainsFinalizer(x, build.Finalizer) {
		// Before the first trial makes anything outside the cluster (its topic),
		// not at acceptance: an accepted experiment owns nothing a finalizer must
		// remove (its source check's Jobs go with it), and acceptance is then one
		// write, which at 1,000 experiments at once is what each waits for. Then on
		// in the same pass: x has the new resourceVersion.
		// A patch of the finalizers alone: an Update would write back the spec as
		// the Go types encode it, which the API server can count as a spec change
		// (generation 2 after acceptance saw 1, and `serdebench wait` and kstatus,
		// which read a status only at its observedGeneration, never saw the end).
		orig := x.DeepCopy()
		controllerutil.AddFinalizer(x, build.Finalizer)
		if err := r.Patch(ctx, x, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
			r.fresh.forget(client.ObjectKeyFromObject(x))
			return ctrl.Result{}, fmt.Errorf("add finalizer: %w", err)
		}
		r.fresh.remember(x)
	}
	for i := range trials {
		switch x.Status.Trials[i].Phase {
		case serdebenchv1.TrialSucceeded, serdebenchv1.TrialSkipped:
			continue
		case serdebenchv1.TrialFailed:
			return r.fail(ctx, x, i, ReasonStopped, x.Status.Trials[i].Message)
		case serdebenchv1.TrialPending:
			stopped, err := r.stopEarly(ctx, x, trials, i)
			if err != nil {
				return ctrl.Result{}, err
			}
			if stopped {
				return r.succeed(ctx, x)
			}
		}
		return r.step(ctx, x, trials[i])
	}
	return r.succeed(ctx, x)
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

// step advances the trial that is in progress.
func (r *ExperimentReconciler) step(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (ctrl.Result, error) {
	ts := &x.Status.Trials[t.Index]
	now := metav1.Now()
	if deadline, ok := trialDeadline(x, ts); ts.Phase != serdebenchv1.TrialPending && ok && now.After(deadline) {
		return r.fail(ctx, x, t.Index, ReasonTrialTimeout, fmt.Sprintf("trial %s did not finish within %ds (phase %s)", t.Name, x.Spec.TimeoutSeconds, ts.Phase))
	}
	switch ts.Phase {
	case serdebenchv1.TrialPending:
		ts.Phase = serdebenchv1.TrialCreatingTopic
		ts.TopicRequested = ptr.To(false)
		ts.StartTime = &now
		if ts.Attempt == 0 {
			ts.Attempt, ts.Topic = 1, build.TopicName(x, t, 1)
		}
		if x.Status.StartTime == nil {
			x.Status.StartTime = &now
		}
		r.setStage(x, serdebenchv1.StageRunning)
		r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, "creating topic "+ts.Topic)
		r.event(x, corev1.EventTypeNormal, "TrialStarted", "trial %s (%d/%d) started", t.Name, t.Index+1, len(x.Status.Trials))
		return r.updateStatus(ctx, x)

	case serdebenchv1.TrialCreatingTopic:
		// An earlier, disrupted attempt leaves its Jobs and topic: remove them first.
		if ts.Attempt > 1 {
			if err := r.cleanupAttempts(ctx, x, t, int(ts.Attempt)); err != nil {
				// Said where the user looks, and retried like any wait for Kafka.
				return r.waitForTopic(ctx, x, ts, fmt.Errorf("remove attempt %d's topic and Jobs: %w", ts.Attempt-1, err))
			}
		}
		if t.ExistingTopic != "" {
			// Used as it is: checked through the Admin API, never created.
			admin, err := r.admin(ctx, x)
			if err == nil {
				err = admin.Check(ctx, ts.Topic, t.Partitions)
			}
			if errors.Is(err, topics.ErrUnusableTopic) {
				return r.fail(ctx, x, t.Index, ReasonTopicFailed, err.Error())
			}
			if err != nil {
				return r.waitForTopic(ctx, x, ts, err)
			}
		} else {
			prov, err := r.provisioner(ctx, x)
			if err != nil {
				return r.waitForTopic(ctx, x, ts, err)
			}
			if ts.TopicRequested != nil && !*ts.TopicRequested {
				// Recorded before any create can be sent: until then the topic provably
				// does not exist, and deleting the experiment need not wait for Kafka.
				if err := prov.Reachable(ctx); err != nil {
					return r.waitForTopic(ctx, x, ts, err)
				}
				ts.TopicRequested = ptr.To(true)
				// Kafka answers: whatever kept the topic from being made is past.
				if waitingForKafka(x, *ts) {
					ts.Message = ""
				}
				r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, "creating topic "+ts.Topic)
				return r.updateStatus(ctx, x)
			}
			ready, err := prov.Ensure(ctx, r.topicSpec(x, t, ts.Topic))
			if errors.Is(err, topics.ErrRefused) {
				// Strimzi's Topic Operator will not make it as specified: its reason, quoted.
				return r.fail(ctx, x, t.Index, ReasonTopicFailed, err.Error())
			}
			if err != nil {
				// Kafka or the Topic Operator may recover; the trial timeout bounds this.
				return r.waitForTopic(ctx, x, ts, err)
			}
			r.sideEffect(x, "topic ensured")
			if !ready {
				return ctrl.Result{RequeueAfter: r.poll()}, nil
			}
		}
		ts.Phase = serdebenchv1.TrialRunning
		ts.Message = ""
		r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionTrue, ReasonTopicReady, "topic "+ts.Topic+" is ready")
		r.setCondition(x, serdebenchv1.ConditionRunning, metav1.ConditionTrue, ReasonTrialRunning, fmt.Sprintf("trial %s (%d/%d)", t.Name, t.Index+1, len(x.Status.Trials)))
		r.event(x, corev1.EventTypeNormal, ReasonTopicReady, "topic %s ready", ts.Topic)
		return r.updateStatus(ctx, x)

	case serdebenchv1.TrialRunning:
		return r.run(ctx, x, t)

	case serdebenchv1.TrialCollecting:
		return r.collect(ctx, x, t)
	}
	return ctrl.Result{}, fmt.Errorf("trial %s in unknown phase %q", t.Name, ts.Phase)
}

// waitForTopic records why the topic is not there yet and waits.
func (r *ExperimentReconciler) waitForTopic(ctx context.Context, x *serdebenchv1.SerializationExperiment, ts *serdebenchv1.TrialStatus, err error) (ctrl.Result, error) {
	r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, err.Error())
	ts.Message = err.Error()
	if _, uerr := r.updateStatus(ctx, x); uerr != nil {
		return ctrl.Result{}, uerr
	}
	return ctrl.Result{RequeueAfter: r.poll()}, nil
}

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
					// A second past the deadline: step's check then sees it passed.
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

// succeed marks the experiment done once every trial is measured.
func (r *ExperimentReconciler) succeed(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	now := metav1.Now()
	x.Status.CompletionTime = &now
	r.setCondition(x, serdebenchv1.ConditionRunning, metav1.ConditionFalse, ReasonAllTrialsMeasured, "no trial running")
	measured, skipped := 0, 0
	for _, ts := range x.Status.Trials {
		if ts.Phase == serdebenchv1.TrialSkipped {
			skipped++
		} else {
			measured++
		}
	}
	reason, msg := ReasonAllTrialsMeasured, fmt.Sprintf("%d trials measured; see SerializationResult %s", measured, build.ResultName(x))
	if skipped > 0 {
		// The skipped trials all carry the rule's message.
		reason = ReasonTargetMet
		msg = fmt.Sprintf("%d trials measured, %d not needed (%s); see SerializationResult %s", measured, skipped, x.Status.Trials[len(x.Status.Trials)-1].Message, build.ResultName(x))
	}
	r.setCondition(x, serdebenchv1.ConditionSucceeded, metav1.ConditionTrue, reason, msg)
	r.setStage(x, serdebenchv1.StageSucceeded)
	r.event(x, corev1.EventTypeNormal, "Succeeded", "%d trials measured", measured)
	return r.updateStatus(ctx, x)
}

// fail records that the experiment stopped, with a reason. The failed trial's
// workers and topic are removed by the next reconcile (cleanup), after the outcome
// is recorded, so a restart in between can never start them again. trial is -1
// when no trial is involved.
func (r *ExperimentReconciler) fail(ctx context.Context, x *serdebenchv1.SerializationExperiment, trial int, reason, msg string) (ctrl.Result, error) {
	log.FromContext(ctx).Info("experiment failed", "experiment", x.Name, "reason", reason, "message", msg)
	now := metav1.Now()
	if trial >= 0 && trial < len(x.Status.Trials) {
		ts := &x.Status.Trials[trial]
		ts.Phase = serdebenchv1.TrialFailed
		ts.CompletionTime = &now
		ts.Message = msg
		// A trial that never created anything has nothing to clean up.
		ts.CleanedUp = ts.StartTime == nil
	}
	x.Status.CompletionTime = &now
	x.Status.ObservedGeneration = x.Generation
	if reason == ReasonInvalidSpec || (reason == ReasonInvalidPayloadSource && trial < 0) {
		r.setCondition(x, serdebenchv1.ConditionAccepted, metav1.ConditionFalse, reason, msg)
	}
	r.setCondition(x, serdebenchv1.ConditionRunning, metav1.ConditionFalse, reason, "stopped")
	r.setCondition(x, serdebenchv1.ConditionFailed, metav1.ConditionTrue, reason, msg)
	r.setStage(x, serdebenchv1.StageFailed)
	r.event(x, corev1.EventTypeWarning, reason, "%s", msg)
	return r.updateStatus(ctx, x)
}

// updateStatus writes the status. The write is watched, so the next step follows
// from the watch event; a conflict (someone else wrote first) re-reads shortly.
func (r *ExperimentReconciler) updateStatus(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	r.setKstatus(x)
	if err := r.Status().Update(ctx, x); err != nil {
		// Whether it was written is unknown (a timeout), or the experiment
		// changed: read it uncached next time.
		r.fresh.forget(client.ObjectKeyFromObject(x))
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: conflictBackoff}, nil
		}
		return ctrl.Result{}, fmt.Errorf("update status: %w", err)
	}
	r.fresh.remember(x)
	if r.AfterStatusWrite != nil {
		r.AfterStatusWrite(x)
	}
	return ctrl.Result{}, nil
}

// conflictBackoff is how soon a step that lost a write race is retried.
const conflictBackoff = 100 * time.Millisecond

var stageOrder = map[serdebenchv1.Stage]int{"": 0, serdebenchv1.StageAccepted: 2,
	serdebenchv1.StageRunning: 3, serdebenchv1.StageSucceeded: 4, serdebenchv1.StageFailed: 4}

// setStage moves the stage forward only. Acceptance gets an event of its own;
// the later stages come with theirs (TrialStarted, Succeeded, the failure's
// reason), which a second event would only repeat: events were two fifths of
// the apiserver requests at 1,000 experiments.
func (r *ExperimentReconciler) setStage(x *serdebenchv1.SerializationExperiment, s serdebenchv1.Stage) {
	if stageOrder[s] <= stageOrder[x.Status.Stage] {
		return
	}
	if s == serdebenchv1.StageAccepted {
		r.event(x, corev1.EventTypeNormal, "Stage", "stage %s → %s", x.Status.Stage, s)
	}
	x.Status.Stage = s
}

// setKstatus derives the standard conditions kstatus reads from the stage: InProgress
// (Reconciling) until the experiment ends, Current (Ready) once it succeeded, Failed
// (Stalled) once it failed. GitOps tools then wait for an experiment to finish.
func (r *ExperimentReconciler) setKstatus(x *serdebenchv1.SerializationExperiment) {
	switch x.Status.Stage {
	case serdebenchv1.StageSucceeded:
		r.setCondition(x, serdebenchv1.ConditionReady, metav1.ConditionTrue, ReasonAllTrialsMeasured, "result "+build.ResultName(x))
		r.setCondition(x, serdebenchv1.ConditionReconciling, metav1.ConditionFalse, ReasonAllTrialsMeasured, "finished")
		meta.RemoveStatusCondition(&x.Status.Conditions, serdebenchv1.ConditionStalled)
	case serdebenchv1.StageFailed:
		reason, msg := "Failed", "failed"
		if f := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed); f != nil {
			reason, msg = f.Reason, f.Message
		}
		r.setCondition(x, serdebenchv1.ConditionReady, metav1.ConditionFalse, reason, msg)
		r.setCondition(x, serdebenchv1.ConditionReconciling, metav1.ConditionFalse, reason, "finished")
		r.setCondition(x, serdebenchv1.ConditionStalled, metav1.ConditionTrue, reason, msg)
	default:
		stage := string(x.Status.Stage)
		if stage == "" {
			stage = "Pending"
		}
		msg := fmt.Sprintf("%d of %d trials measured", x.Status.CompletedTrials, x.Status.TrialCount)
		// A trial whose topic cannot be made yet is waiting for Kafka (unreachable,
		// Strimzi absent, credentials missing): said where `kubectl get sx` shows it.
		for _, ts := range x.Status.Trials {
			if waitingForKafka(x, ts) {
				stage, msg = ReasonWaitingForKafka, fmt.Sprintf("trial %s: %s", ts.Name, ts.Message)
			}
		}
		r.setCondition(x, serdebenchv1.ConditionReady, metav1.ConditionFalse, stage, msg)
		r.setCondition(x, serdebenchv1.ConditionReconciling, metav1.ConditionTrue, stage, msg)
		meta.RemoveStatusCondition(&x.Status.Conditions, serdebenchv1.ConditionStalled)
	}
}

// waitingForKafka says whether the trial's topic cannot be made yet: it is being
// created and its message is the TopicsReady condition's error (waitForTopic).
func waitingForKafka(x *serdebenchv1.SerializationExperiment, ts serdebenchv1.TrialStatus) bool {
	topics := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionTopicsReady)
	return ts.Phase == serdebenchv1.TrialCreatingTopic && ts.Message != "" && topics != nil &&
		topics.Status == metav1.ConditionFalse && topics.Reason == ReasonWaitingForTopic &&
		topics.Message == names.Truncate(ts.Message, conditionMessageMax)
}

// conditionMessageMax bounds condition messages below metav1.Condition's 32768
// (Truncate cuts bytes, which may leave a split rune for JSON to replace).
const conditionMessageMax = 32000

func (r *ExperimentReconciler) setCondition(x *serdebenchv1.SerializationExperiment, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&x.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: names.Truncate(msg, conditionMessageMax), ObservedGeneration: x.Generation})
}

func (r *ExperimentReconciler) event(x *serdebenchv1.SerializationExperiment, typ, reason, format string, args ...any) {
	if r.Recorder != nil {
		r.Recorder.Eventf(x, typ, reason, format, args...)
	}
}

func (r *ExperimentReconciler) poll() time.Duration {
	if r.Poll > 0 {
		return r.Poll
	}
	return 2 * time.Second
}

func (r *ExperimentReconciler) topicSpec(x *serdebenchv1.SerializationExperiment, t trial.Trial, name string) topics.Spec {
	return topics.Spec{Name: name, Partitions: t.Partitions, Replicas: t.Replicas, Config: t.TopicConfig, Labels: build.TrialLabels(x, t)}
}

// SetupWithManager registers the acceptance controller and the experiment
// controller; Job, pod and result changes re-trigger them.
func (r *ExperimentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &batchv1.Job{}, jobOwnerKey, jobOwner); err != nil {
		return fmt.Errorf("index jobs by experiment: %w", err)
	}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		r.admins.Close()
		return nil
	})); err != nil {
		return fmt.Errorf("close Kafka admin clients on stop: %w", err)
	}
	// The acceptor: new and edited experiments (and their source checks' Jobs) only.
	waiting := predicate.NewPredicateFuncs(func(o client.Object) bool {
		x, ok := o.(*serdebenchv1.SerializationExperiment)
		return ok && x.DeletionTimestamp.IsZero() && !finished(x) && needsAcceptance(x)
	})
	checks := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[build.LabelRole] == build.RoleCheck })
	if err := ctrl.NewControllerManagedBy(mgr).
		For(&serdebenchv1.SerializationExperiment{}, builder.WithPredicates(waiting)).
		Owns(&batchv1.Job{}, builder.WithPredicates(checks)).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("serializationexperiment-acceptance").
		Complete(acceptor{r}); err != nil {
		return fmt.Errorf("set up the acceptance controller: %w", err)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&serdebenchv1.SerializationExperiment{}).
		Owns(&batchv1.Job{}).
		// A worker pod running or ready lets its trial's producers start.
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.podExperiment)).
		Owns(&serdebenchv1.SerializationResult{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("serializationexperiment").
		Complete(r)
}

// jobOwnerKey indexes cached Jobs by the experiment that controls them, so an
// experiment lists its own Jobs without scanning every other experiment's.
const jobOwnerKey = ".metadata.controller.experiment"

func jobOwner(o client.Object) []string {
	owner := metav1.GetControllerOf(o)
	if owner == nil || owner.Kind != "SerializationExperiment" || owner.APIVersion != serdebenchv1.GroupVersion.String() {
		return nil
	}
	return []string{owner.Name}
}

// podExperiment maps a worker pod to its experiment: the controller of the Job
// that controls it (from the cache, which holds only the operator's own pods and
// Jobs). Labels would not do: they hold names truncated to 63 characters.
func (r *ExperimentReconciler) podExperiment(ctx context.Context, o client.Object) []reconcile.Request {
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != "Job" {
		return nil
	}
	job := &batchv1.Job{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: o.GetNamespace(), Name: ref.Name}, job); err != nil {
		return nil
	}
	owner := metav1.GetControllerOf(job)
	if owner == nil || owner.Kind != "SerializationExperiment" || owner.APIVersion != serdebenchv1.GroupVersion.String() {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: owner.Name}}}
}

// buildConfig is what the reconciler's settings add to the Jobs it builds.
func (r *ExperimentReconciler) buildConfig() build.Config {
	return build.Config{WorkerImage: r.WorkerImage, PullPolicy: r.ImagePullPolicy, MetricsGrace: r.WorkerMetricsGrace,
		TerminationMax: r.TerminationMessageBytes}
}
