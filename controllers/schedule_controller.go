package controllers

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/schedule"
	"github.com/serdebench/serdebench/internal/names"
)

// Labels and annotations on a schedule's runs.
const (
	// LabelSchedule names the schedule that created an experiment.
	LabelSchedule = serdebenchv1.LabelSchedule
	// AnnotationScheduledAt is the due time a run was started for (RFC 3339).
	AnnotationScheduledAt = "serdebench.io/scheduled-at"
)

// Reasons for schedule conditions.
const (
	// ReasonScheduled (schedule Ready=True): the next run is due at the time the
	// status says.
	ReasonScheduled = "Scheduled"
	// ReasonInvalidSchedule (schedule Ready=False): the cron expression or time
	// zone does not parse; the message says why.
	ReasonInvalidSchedule = "InvalidSchedule"
	// ReasonSuspended (schedule Ready=True): spec.suspend holds new runs back.
	ReasonSuspended = "Suspended"
)

// ScheduleReconciler starts a SerializationSchedule's runs on time, applies its
// concurrency policy and starting deadline, and prunes its history.
type ScheduleReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
	// Clock is the time the schedule is read against (default the real clock; tests
	// pass a fake one).
	Clock clock.PassiveClock
	// MaxWait bounds how long a reconcile waits for the next due time (default one
	// hour; tests with a fake clock set it short, as real time does not pass).
	MaxWait time.Duration
	// Metrics are the per-schedule and per-trial gauges (nil: none).
	Metrics *ScheduleMetrics
	// APIReader reads results past the cache (the manager's GetAPIReader): a result
	// written moments ago, or its last trial, may not be in the cache yet, and a
	// missing one must really be missing before a run goes uncompared. Nil: the
	// client.
	APIReader client.Reader
}

// +kubebuilder:rbac:groups=serdebench.io,resources=serializationschedules,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=serdebench.io,resources=serializationschedules/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=serdebench.io,resources=serializationschedules/finalizers,verbs=update
// +kubebuilder:rbac:groups=serdebench.io,resources=serializationexperiments,verbs=get;list;watch;create;delete

// Reconcile starts what is due and prunes what is finished.
func (r *ScheduleReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := &serdebenchv1.SerializationSchedule{}
	if err := r.Get(ctx, req.NamespacedName, s); err != nil {
		if apierrors.IsNotFound(err) {
			r.Metrics.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !s.DeletionTimestamp.IsZero() {
		r.Metrics.forget(req.NamespacedName)
		return ctrl.Result{}, nil // runs are owned: garbage collection removes them
	}
	now := r.now()
	s.Status.ObservedGeneration = s.Generation
	cron, err := schedule.Parse(s.Spec.Schedule, s.Spec.TimeZone)
	if err != nil {
		for _, typ := range []string{serdebenchv1.ConditionReady, serdebenchv1.ConditionStalled} {
			st := metav1.ConditionTrue
			if typ == serdebenchv1.ConditionReady {
				st = metav1.ConditionFalse
			}
			meta.SetStatusCondition(&s.Status.Conditions, metav1.Condition{Type: typ, Status: st,
				Reason: ReasonInvalidSchedule, Message: err.Error(), ObservedGeneration: s.Generation})
		}
		return ctrl.Result{}, r.Status().Update(ctx, s)
	}
	runs := &serdebenchv1.SerializationExperimentList{}
	if err := r.List(ctx, runs, client.InNamespace(s.Namespace), client.MatchingLabels{LabelSchedule: s.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("list runs of %s: %w", s.Name, err)
	}
	active, succeeded, failed, terminating := classify(runs.Items)
	// A pinned baseline that is one of this schedule's own results is kept out of
	// the history: never pruned, never compared with itself, never "the latest run".
	if s.Spec.Baseline.Kind == serdebenchv1.BaselinePinned {
		pinned := s.Spec.Baseline.PinnedResults()
		succeeded = slices.DeleteFunc(succeeded, func(x serdebenchv1.SerializationExperiment) bool {
			return x.Status.ResultRef != nil && slices.Contains(pinned, x.Status.ResultRef.Name)
		})
	}
	if len(succeeded) > 0 {
		last := succeeded[len(succeeded)-1]
		if last.Status.ResultRef != nil {
			s.Status.LastSuccessfulResult = last.Status.ResultRef.Name
		}
	}
	// Compared before pruning, so the baseline runs are still there.
	compared := s.Status.LastComparedRun
	patched, err := r.compareLatest(ctx, s, succeeded)
	if err != nil {
		return ctrl.Result{}, err
	}
	if patched != nil && r.Metrics != nil {
		r.Metrics.show(req.NamespacedName, patched)
	}
	if s.Status.LastComparedRun != compared {
		// The outcome is stored before pruning can delete the run: a status write
		// lost to a conflict must not leave a pruned run that is never compared.
		if err := r.Status().Update(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: time.Millisecond}, nil
	}
	if err := r.syncMetrics(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.prune(ctx, succeeded, limit(s.Spec.SuccessfulHistoryLimit, 6)); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.prune(ctx, failed, limit(s.Spec.FailedHistoryLimit, 3)); err != nil {
		return ctrl.Result{}, err
	}

	since := s.CreationTimestamp.Time
	if s.Status.LastScheduleTime != nil {
		since = s.Status.LastScheduleTime.Time
	}
	due, missed, next := schedule.Due(cron, since, now)
	if at, ok := latestStarted(runs.Items, since, due); ok {
		// A run exists that this status does not record: either the cache's schedule
		// is stale (then the write below conflicts and is retried on the current
		// object) or the write after starting it failed. The run is adopted here: the
		// due times before it were missed, it was not, and the status write that ends
		// this reconcile, whatever it decides, records both. A write based on a stale
		// status never lands, so nothing counts twice.
		last, before, _ := schedule.Due(cron, since, at)
		if !last.IsZero() && !last.Equal(at) {
			before++ // the run was due under an earlier schedule: its last due time went without one
		}
		s.Status.MissedRuns += int64(before)
		s.Status.LastScheduleTime = &metav1.Time{Time: at}
		due, missed, next = schedule.Due(cron, at, now)
	}
	d := schedule.Decide(&s.Spec, due, now, len(active))
	requeue := next.Sub(now)
	if terminating > 0 && s.Spec.ConcurrencyPolicy != serdebenchv1.ConcurrencyAllow && (d.Action == schedule.Start || d.Action == schedule.Replace) {
		// A deleted or replaced run's pods may still be measuring: start once they are
		// gone (the due time stays pending; the starting deadline still applies).
		d = schedule.Decision{Action: schedule.Wait, Reason: "waiting for deleted runs to finish terminating"}
		requeue = 2 * time.Second
	}
	switch d.Action {
	case schedule.Skip:
		// Missed times are counted where lastScheduleTime moves past them (Skip,
		// Start), not on every reconcile that waits.
		s.Status.MissedRuns += int64(missed) + 1
		s.Status.LastScheduleTime = &metav1.Time{Time: due}
		r.Recorder.Eventf(s, corev1.EventTypeNormal, "RunSkipped", "%s", d.Reason)
	case schedule.Replace:
		// The new run starts once these are deleted (terminating, above): their
		// cleanup has deleted their Jobs by then.
		for i := range active {
			if err := r.Delete(ctx, &active[i], client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, fmt.Errorf("replace run %s: %w", active[i].Name, err)
			}
			r.Recorder.Eventf(s, corev1.EventTypeNormal, "RunReplaced", "deleted %s for the run due %s", active[i].Name, due.UTC().Format(time.RFC3339))
		}
		active = nil
		requeue = time.Second
	case schedule.Start:
		x, err := r.start(ctx, s, due)
		if err != nil {
			return ctrl.Result{}, err
		}
		active = append(active, *x)
		s.Status.MissedRuns += int64(missed)
		s.Status.LastScheduleTime = &metav1.Time{Time: due}
		r.Recorder.Eventf(s, corev1.EventTypeNormal, "RunStarted", "started %s (%s)", x.Name, d.Reason)
	}
	s.Status.Active = s.Status.Active[:0]
	for _, x := range active {
		s.Status.Active = append(s.Status.Active, x.Name)
	}
	ready := metav1.Condition{Type: serdebenchv1.ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonScheduled,
		Message: "next run due " + next.UTC().Format(time.RFC3339), ObservedGeneration: s.Generation}
	if s.Spec.Suspend {
		ready.Reason, ready.Message = ReasonSuspended, "suspended: no new runs"
	}
	meta.SetStatusCondition(&s.Status.Conditions, ready)
	meta.RemoveStatusCondition(&s.Status.Conditions, serdebenchv1.ConditionStalled)
	if err := r.Status().Update(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	wait := requeue
	if max := r.maxWait(); wait > max {
		wait = max
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// start creates the run due at due. Its name derives from the due time, so a
// restart that repeats the step finds the run it already created.
func (r *ScheduleReconciler) start(ctx context.Context, s *serdebenchv1.SerializationSchedule, due time.Time) (*serdebenchv1.SerializationExperiment, error) {
	x := &serdebenchv1.SerializationExperiment{ObjectMeta: metav1.ObjectMeta{
		Name:        fmt.Sprintf("%s-%d", names.Truncate(s.Name, 52), due.Unix()/60),
		Namespace:   s.Namespace,
		Labels:      map[string]string{LabelSchedule: s.Name},
		Annotations: map[string]string{AnnotationScheduledAt: due.UTC().Format(time.RFC3339)},
	}, Spec: *s.Spec.ExperimentTemplate.Spec.DeepCopy()}
	for k, v := range s.Spec.ExperimentTemplate.Labels {
		x.Labels[k] = v
	}
	x.Labels[LabelSchedule] = s.Name
	if err := controllerutil.SetControllerReference(s, x, r.Scheme); err != nil {
		return nil, err
	}
	if err := r.Create(ctx, x); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("start run %s: %w", x.Name, err)
		}
		if err := r.Get(ctx, client.ObjectKeyFromObject(x), x); err != nil {
			return nil, fmt.Errorf("get run %s: %w", x.Name, err)
		}
	}
	return x, nil
}

// latestStarted is the latest time in (since, due] that a run was started for.
func latestStarted(runs []serdebenchv1.SerializationExperiment, since, due time.Time) (time.Time, bool) {
	var latest time.Time
	for _, x := range runs {
		at, err := time.Parse(time.RFC3339, x.Annotations[AnnotationScheduledAt])
		if err == nil && at.After(since) && !at.After(due) && at.After(latest) {
			latest = at
		}
	}
	return latest, !latest.IsZero()
}

// classify sorts runs into active, succeeded and failed, each oldest first by the
// time it was due, and counts the unfinished ones being deleted.
func classify(runs []serdebenchv1.SerializationExperiment) (active, succeeded, failed []serdebenchv1.SerializationExperiment, terminating int) {
	sort.Slice(runs, func(i, j int) bool {
		return runs[i].Annotations[AnnotationScheduledAt] < runs[j].Annotations[AnnotationScheduledAt]
	})
	for _, x := range runs {
		switch {
		case !x.DeletionTimestamp.IsZero():
			// Only a deleted run that had not finished may still have workers measuring.
			if x.Status.Stage != serdebenchv1.StageSucceeded && x.Status.Stage != serdebenchv1.StageFailed {
				terminating++
			}
		case x.Status.Stage == serdebenchv1.StageSucceeded:
			succeeded = append(succeeded, x)
		case x.Status.Stage == serdebenchv1.StageFailed:
			failed = append(failed, x)
		default:
			active = append(active, x)
		}
	}
	return active, succeeded, failed, terminating
}

// prune deletes the oldest finished runs beyond keep; each run's result goes with
// it (the result is owned by its experiment).
func (r *ScheduleReconciler) prune(ctx context.Context, finished []serdebenchv1.SerializationExperiment, keep int) error {
	for i := 0; i < len(finished)-keep; i++ {
		if err := r.Delete(ctx, &finished[i], client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("prune run %s: %w", finished[i].Name, err)
		}
	}
	return nil
}

func limit(p *int32, def int) int {
	if p == nil {
		return def
	}
	return int(*p)
}

func (r *ScheduleReconciler) now() time.Time {
	if r.Clock == nil {
		return time.Now()
	}
	return r.Clock.Now()
}

func (r *ScheduleReconciler) maxWait() time.Duration {
	if r.MaxWait <= 0 {
		return time.Hour
	}
	return r.MaxWait
}

// SetupWithManager watches schedules and the experiments they own.
func (r *ScheduleReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&serdebenchv1.SerializationSchedule{}).
		Owns(&serdebenchv1.SerializationExperiment{}).
		Named("serializationschedule").
		Complete(r)
}
