// Package controllers holds the SerializationExperiment reconciler: it runs an
// experiment's trials one at a time on the cluster (topic, consumer and producer
// Jobs, summaries, Prometheus cross-check, result) and keeps all progress in the
// experiment's status, so a restarted operator resumes without repeating or losing a
// trial.
package controllers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/controllers/promquery"
	"github.com/serdebench/serdebench/internal/topics"
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
	// WorkerImage is the default worker image (the Go clients'); ImagePullPolicy
	// applies to it and to JVMWorkerImage.
	WorkerImage     string
	ImagePullPolicy corev1.PullPolicy
	// JVMWorkerImage runs the Java client's workers (empty: those trials are refused).
	JVMWorkerImage string
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
	return build.Config{WorkerImage: r.WorkerImage, JVMWorkerImage: r.JVMWorkerImage, PullPolicy: r.ImagePullPolicy, MetricsGrace: r.WorkerMetricsGrace,
		TerminationMax: r.TerminationMessageBytes}
}
