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
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/promquery"
	"github.com/serdebench/serdebench/internal/topics"
)

// ExperimentReconciler runs SerializationExperiments.
type ExperimentReconciler struct {
	client.Client
	// APIReader reads experiments uncached. Acting on a cached copy that lags a
	// status write could recreate Jobs the last step just deleted.
	APIReader client.Reader
	Scheme    *runtime.Scheme
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
}

// Reasons for conditions and events.
const (
	ReasonPlanned           = "Planned"
	ReasonInvalidSpec       = "InvalidSpec"
	ReasonWaitingForTopic   = "WaitingForTopic"
	ReasonTopicReady        = "TopicReady"
	ReasonTopicFailed       = "TopicFailed"
	ReasonTrialRunning      = "TrialRunning"
	ReasonTrialMeasured     = "TrialMeasured"
	ReasonAllTrialsMeasured = "AllTrialsMeasured"
	ReasonTrialTimeout      = "TrialTimeout"
	ReasonWorkerFailed      = "WorkerFailed"
	ReasonSummariesMissing  = "SummariesMissing"
	ReasonResultFailed      = "ResultFailed"
	ReasonPrometheus        = "PrometheusUnavailable"
	ReasonStopped           = "Stopped"
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

// Reconcile moves an experiment one step forward.
func (r *ExperimentReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	x := &serdebenchv1.SerializationExperiment{}
	reader := r.APIReader
	if reader == nil {
		reader = r.Client
	}
	if err := reader.Get(ctx, req.NamespacedName, x); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !x.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, x)
	}
	if !controllerutil.ContainsFinalizer(x, Finalizer) {
		controllerutil.AddFinalizer(x, Finalizer)
		if err := r.Update(ctx, x); err != nil {
			return ctrl.Result{}, fmt.Errorf("add finalizer: %w", err)
		}
		return ctrl.Result{Requeue: true}, nil
	}
	if x.Status.Stage == serdebenchv1.StageSucceeded || x.Status.Stage == serdebenchv1.StageFailed {
		return ctrl.Result{}, nil
	}
	trials, err := plan.Expand(x.Spec.ExperimentSpec)
	if err != nil {
		return r.fail(ctx, x, -1, ReasonInvalidSpec, err.Error())
	}
	if !meta.IsStatusConditionTrue(x.Status.Conditions, serdebenchv1.ConditionAccepted) || (x.Status.StartTime == nil && x.Status.ObservedGeneration != x.Generation) {
		return r.accept(ctx, x, trials)
	}
	for i := range trials {
		if x.Status.Trials[i].Phase != serdebenchv1.TrialSucceeded {
			return r.step(ctx, x, trials[i])
		}
	}
	return r.succeed(ctx, x)
}

// accept plans the trials and records them as Pending.
func (r *ExperimentReconciler) accept(ctx context.Context, x *serdebenchv1.SerializationExperiment, trials []plan.Trial) (ctrl.Result, error) {
	x.Status.ObservedGeneration = x.Generation
	x.Status.TrialCount = int32(len(trials))
	x.Status.Trials = make([]serdebenchv1.TrialStatus, len(trials))
	for i, t := range trials {
		x.Status.Trials[i] = serdebenchv1.TrialStatus{Name: t.Name, Phase: serdebenchv1.TrialPending, Topic: topicName(x, t)}
	}
	r.setCondition(x, serdebenchv1.ConditionAccepted, metav1.ConditionTrue, ReasonPlanned, fmt.Sprintf("%d trials planned", len(trials)))
	r.setStage(x, serdebenchv1.StageAccepted)
	return r.updateStatus(ctx, x)
}

// step advances the trial that is in progress.
func (r *ExperimentReconciler) step(ctx context.Context, x *serdebenchv1.SerializationExperiment, t plan.Trial) (ctrl.Result, error) {
	ts := &x.Status.Trials[t.Index]
	now := metav1.Now()
	if ts.Phase != serdebenchv1.TrialPending && ts.StartTime != nil &&
		now.Sub(ts.StartTime.Time) > time.Duration(x.Spec.TimeoutSeconds)*time.Second {
		return r.fail(ctx, x, t.Index, ReasonTrialTimeout, fmt.Sprintf("trial %s did not finish within %ds (phase %s)", t.Name, x.Spec.TimeoutSeconds, ts.Phase))
	}
	switch ts.Phase {
	case serdebenchv1.TrialPending:
		ts.Phase = serdebenchv1.TrialCreatingTopic
		ts.StartTime = &now
		if x.Status.StartTime == nil {
			x.Status.StartTime = &now
		}
		r.setStage(x, serdebenchv1.StageRunning)
		r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, "creating topic "+ts.Topic)
		r.event(x, corev1.EventTypeNormal, "TrialStarted", "trial %s (%d/%d) started", t.Name, t.Index+1, len(x.Status.Trials))
		return r.updateStatus(ctx, x)

	case serdebenchv1.TrialCreatingTopic:
		prov, err := r.provisioner(ctx, x)
		if err != nil {
			return r.fail(ctx, x, t.Index, ReasonTopicFailed, err.Error())
		}
		ready, err := prov.Ensure(ctx, r.topicSpec(x, t))
		if err != nil {
			// Kafka or the Topic Operator may recover; the trial timeout bounds this.
			r.setCondition(x, serdebenchv1.ConditionTopicsReady, metav1.ConditionFalse, ReasonWaitingForTopic, err.Error())
			ts.Message = err.Error()
			_, uerr := r.updateStatus(ctx, x)
			return ctrl.Result{RequeueAfter: r.poll()}, uerr
		}
		if !ready {
			return ctrl.Result{RequeueAfter: r.poll()}, nil
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

	case serdebenchv1.TrialFailed:
		return r.fail(ctx, x, t.Index, ReasonStopped, ts.Message)
	}
	return ctrl.Result{}, fmt.Errorf("trial %s in unknown phase %q", t.Name, ts.Phase)
}

// run creates the trial's Jobs (consumers first) and waits for them.
func (r *ExperimentReconciler) run(ctx context.Context, x *serdebenchv1.SerializationExperiment, t plan.Trial) (ctrl.Result, error) {
	jobs, err := r.trialJobs(x, t, x.Status.Trials[t.Index].Topic, bootstrapFor(x))
	if err != nil {
		return r.fail(ctx, x, t.Index, ReasonInvalidSpec, err.Error())
	}
	done := 0
	for _, want := range jobs {
		got := &batchv1.Job{}
		err := r.Get(ctx, client.ObjectKeyFromObject(want), got)
		if apierrors.IsNotFound(err) {
			if err := controllerutil.SetControllerReference(x, want, r.Scheme); err != nil {
				return ctrl.Result{}, err
			}
			if err := r.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
				return ctrl.Result{}, fmt.Errorf("create job %s: %w", want.Name, err)
			}
			r.event(x, corev1.EventTypeNormal, "JobCreated", "created job %s", want.Name)
			continue
		}
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("get job %s: %w", want.Name, err)
		}
		if c := jobCondition(got, batchv1.JobFailed); c != nil {
			msg := fmt.Sprintf("job %s failed: %s: %s%s", got.Name, c.Reason, c.Message, r.failedPodMessages(ctx, x, t))
			return r.fail(ctx, x, t.Index, ReasonWorkerFailed, msg)
		}
		if jobCondition(got, batchv1.JobComplete) != nil {
			done++
		}
	}
	if done < len(jobs) {
		return ctrl.Result{RequeueAfter: r.poll()}, nil
	}
	x.Status.Trials[t.Index].Phase = serdebenchv1.TrialCollecting
	return r.updateStatus(ctx, x)
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
	r.setCondition(x, serdebenchv1.ConditionSucceeded, metav1.ConditionTrue, ReasonAllTrialsMeasured,
		fmt.Sprintf("%d trials measured; see SerializationResult %s", len(x.Status.Trials), resultName(x)))
	r.setStage(x, serdebenchv1.StageSucceeded)
	r.event(x, corev1.EventTypeNormal, "Succeeded", "all %d trials measured", len(x.Status.Trials))
	return r.updateStatus(ctx, x)
}

// fail ends the experiment with a reason; the failed trial's workers are stopped and
// its topic removed per cleanupPolicy. trial is -1 when no trial is involved.
func (r *ExperimentReconciler) fail(ctx context.Context, x *serdebenchv1.SerializationExperiment, trial int, reason, msg string) (ctrl.Result, error) {
	log.FromContext(ctx).Info("experiment failed", "experiment", x.Name, "reason", reason, "message", msg)
	if trial >= 0 && trial < len(x.Status.Trials) {
		ts := &x.Status.Trials[trial]
		// The workers must stop: Job deletion errors are retried. The topic is best
		// effort here (Kafka may be why we fail); deletion retries it.
		if err := r.cleanupTrial(ctx, x, ts, true); err != nil {
			var te topicError
			if !errors.As(err, &te) {
				return ctrl.Result{}, err
			}
			msg += "; " + err.Error()
			r.event(x, corev1.EventTypeWarning, "CleanupIncomplete", "%v", err)
		}
		now := metav1.Now()
		ts.Phase = serdebenchv1.TrialFailed
		ts.CompletionTime = &now
		ts.Message = msg
	}
	now := metav1.Now()
	x.Status.CompletionTime = &now
	x.Status.ObservedGeneration = x.Generation
	if reason == ReasonInvalidSpec {
		r.setCondition(x, serdebenchv1.ConditionAccepted, metav1.ConditionFalse, reason, msg)
	}
	r.setCondition(x, serdebenchv1.ConditionRunning, metav1.ConditionFalse, reason, "stopped")
	r.setCondition(x, serdebenchv1.ConditionFailed, metav1.ConditionTrue, reason, msg)
	r.setStage(x, serdebenchv1.StageFailed)
	r.event(x, corev1.EventTypeWarning, reason, "%s", msg)
	return r.updateStatus(ctx, x)
}

func (r *ExperimentReconciler) updateStatus(ctx context.Context, x *serdebenchv1.SerializationExperiment) (ctrl.Result, error) {
	if err := r.Status().Update(ctx, x); err != nil {
		if apierrors.IsConflict(err) {
			return ctrl.Result{Requeue: true}, nil
		}
		return ctrl.Result{}, fmt.Errorf("update status: %w", err)
	}
	return ctrl.Result{Requeue: true}, nil
}

var stageOrder = map[serdebenchv1.Stage]int{"": 0, serdebenchv1.StagePending: 1, serdebenchv1.StageAccepted: 2,
	serdebenchv1.StageRunning: 3, serdebenchv1.StageSucceeded: 4, serdebenchv1.StageFailed: 4}

// setStage moves the stage forward only, with an event for each change.
func (r *ExperimentReconciler) setStage(x *serdebenchv1.SerializationExperiment, s serdebenchv1.Stage) {
	if stageOrder[s] <= stageOrder[x.Status.Stage] {
		return
	}
	r.event(x, corev1.EventTypeNormal, "Stage", "stage %s → %s", x.Status.Stage, s)
	x.Status.Stage = s
}

func (r *ExperimentReconciler) setCondition(x *serdebenchv1.SerializationExperiment, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&x.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: truncate(msg, 32000), ObservedGeneration: x.Generation})
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

func (r *ExperimentReconciler) topicSpec(x *serdebenchv1.SerializationExperiment, t plan.Trial) topics.Spec {
	return topics.Spec{Name: topicName(x, t), Partitions: t.Partitions, Replicas: t.Replicas, Config: t.TopicConfig, Labels: trialLabels(x, t)}
}

// SetupWithManager registers the reconciler; Job and result changes re-trigger it.
func (r *ExperimentReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&serdebenchv1.SerializationExperiment{}).
		Owns(&batchv1.Job{}).
		Owns(&serdebenchv1.SerializationResult{}).
		Named("serializationexperiment").
		Complete(r)
}
