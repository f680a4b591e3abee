package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/controllers/chaos"
	"github.com/serdebench/serdebench/workers/protocol"
)

// +kubebuilder:rbac:groups=chaos-mesh.org,resources=networkchaos;podchaos;stresschaos,verbs=get;list;watch;create;patch;update;delete;deletecollection
// +kubebuilder:rbac:groups=chaos-mesh.org,resources=podnetworkchaos,verbs=get;update
// +kubebuilder:rbac:groups="",resources=events,verbs=list

// Reasons for faults.
const (
	// ReasonChaosMeshNotInstalled: the experiment has faults and the API server
	// serves none of Chaos Mesh's kinds it needs; it waits (GitOps may install
	// Chaos Mesh after).
	ReasonChaosMeshNotInstalled = "ChaosMeshNotInstalled"
	// ReasonFaultNotInjected: Chaos Mesh did not apply a trial's fault (no pod
	// selected, an apply that failed, or no answer in time).
	ReasonFaultNotInjected = protocol.ReasonFaultNotInjected
	// ReasonFaultNotRecovered: Chaos Mesh could not undo a fault.
	ReasonFaultNotRecovered = protocol.ReasonFaultNotRecovered
)

// maxFaultTargets bounds the targets a trial's status and result name (a fault
// on 64 producers would otherwise weigh on a result of 256 trials).
const maxFaultTargets = 8

// defaultFaultInjectTimeout bounds the wait for Chaos Mesh to select and apply.
const defaultFaultInjectTimeout = 30 * time.Second

// chaosKinds are the kinds a fault may become (the fault-kind table's).
var chaosKinds = build.ChaosKinds()

// chaosMeshMissing names the Chaos Mesh kinds the experiment's faults need that
// the API server does not serve ("" when all are).
func (r *ExperimentReconciler) chaosMeshMissing(x *serdebenchv1.SerializationExperiment, trials []trial.Trial) (string, error) {
	need := map[schema.GroupVersionKind]bool{}
	for _, t := range trials {
		objs, err := build.Chaos(x, t, 1)
		if err != nil {
			return "", err
		}
		for _, o := range objs {
			need[o.GroupVersionKind()] = true
		}
	}
	var missing []string
	for _, gvk := range chaosKinds {
		if !need[gvk] {
			continue
		}
		if _, err := r.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); meta.IsNoMatchError(err) {
			missing = append(missing, gvk.Kind)
		} else if err != nil {
			return "", fmt.Errorf("look up %s: %w", gvk.Kind, err)
		}
	}
	if len(missing) == 0 {
		return "", nil
	}
	return fmt.Sprintf("the API server does not serve chaos-mesh.org/v1alpha1 %s: install Chaos Mesh (docs/faults.md) to run spec.faults", strings.Join(missing, ", ")), nil
}

// faultRun is one pass over a running trial's fault: its lifecycle is a switch on
// the phase in its status (serdebenchv1.FaultPhase), one method per phase. Each
// method returns stop when the caller returns its result (a status written, a
// wait); false lets the trial's step go on.
type faultRun struct {
	r        *ExperimentReconciler
	x        *serdebenchv1.SerializationExperiment
	t        trial.Trial
	fs       *serdebenchv1.FaultStatus
	jobsDone bool
	now      time.Time
}

// fault advances the running trial's fault: plans its time once the producers
// run, records and then creates its Chaos Mesh objects when due, waits for Chaos
// Mesh to apply it (failing the trial with FaultNotInjected if it does not), then
// to recover it, and deletes the objects. stop says the caller returns res, err.
func (r *ExperimentReconciler) fault(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, jobsDone bool) (res ctrl.Result, stop bool, err error) {
	ts := &x.Status.Trials[t.Index]
	if ts.Fault == nil {
		ts.Fault = &serdebenchv1.FaultStatus{Name: t.Fault.Name, Phase: serdebenchv1.FaultScheduling}
	}
	f := faultRun{r: r, x: x, t: t, fs: ts.Fault, jobsDone: jobsDone, now: time.Now()}
	switch faultPhase(t, f.fs) {
	case serdebenchv1.FaultScheduling:
		return f.schedule(ctx)
	case serdebenchv1.FaultDue:
		if t.Fault.Consumers != nil {
			return f.groupEvent(ctx)
		}
		return f.name(ctx)
	case serdebenchv1.FaultCreating:
		return f.create(ctx)
	case serdebenchv1.FaultInjecting:
		return f.awaitInjection(ctx)
	case serdebenchv1.FaultInjected:
		if t.Fault.Consumers != nil {
			return f.awaitPauseEnd(ctx)
		}
		return f.awaitRecovery(ctx)
	case serdebenchv1.FaultRemoving:
		return f.remove(ctx)
	case serdebenchv1.FaultRemoved:
		return ctrl.Result{}, false, nil
	}
	return ctrl.Result{}, true, fmt.Errorf("trial %s: fault %s in unknown phase %q", t.Name, t.Fault.Name, f.fs.Phase)
}

// faultPhase is the fault's phase; for a status an operator without phases wrote,
// the phase its times imply.
func faultPhase(t trial.Trial, fs *serdebenchv1.FaultStatus) serdebenchv1.FaultPhase {
	switch {
	case fs.Phase != "":
		return fs.Phase
	case fs.DueTime == nil:
		return serdebenchv1.FaultScheduling
	case len(fs.Objects) == 0:
		return serdebenchv1.FaultDue
	case fs.CreateTime == nil:
		return serdebenchv1.FaultCreating
	case fs.InjectedTime == nil:
		return serdebenchv1.FaultInjecting
	case fs.RecoveredTime == nil && !t.Fault.OneShot():
		return serdebenchv1.FaultInjected
	}
	return serdebenchv1.FaultRemoving // or removed: removing again finds nothing
}

// to moves the fault to phase p and writes the status.
func (f *faultRun) to(ctx context.Context, p serdebenchv1.FaultPhase) (ctrl.Result, bool, error) {
	f.fs.Phase = p
	res, err := f.r.updateStatus(ctx, f.x)
	return res, true, err
}

// schedule sets the fault's time: startSeconds after the last of the trial's
// producers began its measured window.
func (f *faultRun) schedule(ctx context.Context) (ctrl.Result, bool, error) {
	started, err := f.r.producersWindowStart(ctx, f.x, f.t)
	switch {
	case errors.Is(err, errNoWindow):
		return f.stop(ctx, ReasonFaultNotInjected, err.Error())
	case err != nil || started.IsZero():
		if f.jobsDone {
			return f.stop(ctx, ReasonFaultNotInjected, "the trial ended before its producers began their measured windows")
		}
		return ctrl.Result{RequeueAfter: f.r.poll()}, true, err
	}
	due := metav1.NewTime(started.Add(time.Duration(f.t.Fault.StartSeconds) * time.Second))
	if msg := loggedLate(started, f.now, f.t.Fault.StartSeconds, f.r.faultInjectTimeout()); msg != "" {
		return f.stop(ctx, ReasonFaultNotInjected, msg)
	}
	f.fs.DueTime = &due
	return f.to(ctx, serdebenchv1.FaultDue)
}

// loggedLate says why a fault due startSeconds into a measured window that began
// at started cannot be applied when the operator learns of the start at now
// ("" if it can). An open loop's producer logs its window's start when its
// schedule begins; a closed loop's only with its first measured send, which a
// send that waited across the warmup's end (a broker or transaction coordinator
// not available) holds back, maybe past the fault's time.
func loggedLate(started, now time.Time, startSeconds int32, grace time.Duration) string {
	due := started.Add(time.Duration(startSeconds) * time.Second)
	late := now.Sub(due)
	if late <= grace {
		return ""
	}
	return fmt.Sprintf("the producers' measured window began at %s, but the operator read that from their logs only %s later, the fault (due %ds into the window) %s overdue: "+
		"in a closed loop (no spec.rate) a first measured send that waited (a broker or transaction coordinator not available) delays that line, as does an operator that was not running",
		started.UTC().Format(time.RFC3339), now.Sub(started).Round(time.Second), startSeconds, late.Round(time.Second))
}

// name waits until the fault is due, then records its objects' names before any
// is created: a restart creates the same names, once.
func (f *faultRun) name(ctx context.Context) (ctrl.Result, bool, error) {
	if f.jobsDone {
		return f.stop(ctx, ReasonFaultNotInjected, "the trial ended before the fault was due")
	}
	if wait := f.fs.DueTime.Sub(f.now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, true, nil
	}
	if late := f.now.Sub(f.fs.DueTime.Time); late > f.r.faultInjectTimeout() {
		return f.tooLate(ctx, late)
	}
	objs, err := f.objects()
	if err != nil {
		return f.stop(ctx, ReasonInvalidSpec, err.Error())
	}
	for _, o := range objs {
		f.fs.Objects = append(f.fs.Objects, o.GetKind()+"/"+o.GetName())
	}
	return f.to(ctx, serdebenchv1.FaultCreating)
}

// create creates the recorded objects, unless it is too late for them.
func (f *faultRun) create(ctx context.Context) (ctrl.Result, bool, error) {
	if late := f.now.Sub(f.fs.DueTime.Time); f.jobsDone || late > f.r.faultInjectTimeout() {
		return f.tooLate(ctx, late)
	}
	objs, err := f.objects()
	if err != nil {
		return f.stop(ctx, ReasonInvalidSpec, err.Error())
	}
	for _, o := range objs {
		if err := controllerutil.SetControllerReference(f.x, o, f.r.Scheme); err != nil {
			return ctrl.Result{}, true, err
		}
		if err := f.r.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, true, fmt.Errorf("create %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		f.r.event(f.x, corev1.EventTypeNormal, "FaultCreated", "trial %s: created %s %s (fault %s)", f.t.Name, o.GetKind(), o.GetName(), f.t.Fault.Name)
	}
	f.r.sideEffect(f.x, "fault created")
	created := metav1.NewTime(f.now)
	f.fs.CreateTime = &created
	return f.to(ctx, serdebenchv1.FaultInjecting)
}

// awaitInjection waits for Chaos Mesh to apply the fault to every pod it selects,
// for at most the inject timeout (Chaos Mesh retries a failed apply: its failure
// is final only then).
func (f *faultRun) awaitInjection(ctx context.Context) (ctrl.Result, bool, error) {
	st, err := f.state(ctx)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	switch {
	case len(st.Gone) > 0:
		return f.stop(ctx, ReasonFaultNotInjected, fmt.Sprintf("%s deleted before Chaos Mesh applied the fault", strings.Join(st.Gone, ", ")))
	case st.Injected:
		at := metav1.NewTime(st.InjectedAt)
		f.fs.InjectedTime, f.fs.TargetCount = &at, int32(len(st.Targets))
		f.fs.Targets = st.Targets[:min(len(st.Targets), maxFaultTargets)]
		if f.t.Fault.OneShot() {
			return f.to(ctx, serdebenchv1.FaultRemoving) // a kill acts once: nothing to recover
		}
		return f.to(ctx, serdebenchv1.FaultInjected)
	case f.now.Sub(f.fs.CreateTime.Time) > f.r.faultInjectTimeout() || f.jobsDone:
		why := "it has not selected the target pods"
		switch {
		case st.ApplyFailure != "":
			why = "it failed to apply it: " + st.ApplyFailure
		case st.Selected:
			why = "it has selected the target pods but not applied the fault to all of them"
		}
		return f.stop(ctx, ReasonFaultNotInjected, fmt.Sprintf("Chaos Mesh did not apply the fault within %s: %s%s", f.r.faultInjectTimeout(), why, f.says(ctx, st)))
	}
	return ctrl.Result{RequeueAfter: f.r.poll()}, true, nil
}

// awaitRecovery waits for Chaos Mesh to undo the fault at its duration's end; the
// trial's Jobs run on meanwhile (stop is false while it waits). A fault still in
// force when the window closed is removed now: the result says it had no
// after-phase.
func (f *faultRun) awaitRecovery(ctx context.Context) (ctrl.Result, bool, error) {
	st, err := f.state(ctx)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	switch {
	case len(st.Gone) > 0:
		// Removed early by someone else, and undone then: the recovery time is
		// when the operator saw it gone.
		at := metav1.NewTime(f.now)
		f.fs.RecoveredTime = &at
		return f.to(ctx, serdebenchv1.FaultRemoving)
	case st.RecoverFailure != "" && f.now.After(f.undoneBy()):
		return f.stop(ctx, ReasonFaultNotRecovered, "Chaos Mesh could not undo the fault: "+st.RecoverFailure)
	case st.Recovered:
		at := metav1.NewTime(st.RecoveredAt)
		f.fs.RecoveredTime = &at
		return f.to(ctx, serdebenchv1.FaultRemoving)
	case f.jobsDone:
		f.fs.Phase = serdebenchv1.FaultRemoving
		return f.remove(ctx)
	}
	return ctrl.Result{RequeueAfter: f.r.poll()}, false, nil
}

// remove deletes the fault's objects; they are gone only once Chaos Mesh's
// finalizer has undone them on every pod: the next trial must not start under it.
func (f *faultRun) remove(ctx context.Context) (ctrl.Result, bool, error) {
	if err := f.r.deleteFaults(ctx, f.x, labels.Set{build.LabelTrial: f.t.Name}); err != nil {
		return ctrl.Result{}, true, err
	}
	f.r.sideEffect(f.x, "fault deleted")
	left, err := f.r.faultsLeft(ctx, f.x, f.t.Name)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	if left > 0 {
		if f.now.After(f.undoneBy().Add(f.r.faultInjectTimeout())) {
			why := ""
			if st, err := f.state(ctx); err != nil {
				why = fmt.Sprintf(" (its objects could not be read: %v)", err)
			} else {
				why = f.says(ctx, st)
			}
			return f.stop(ctx, ReasonFaultNotRecovered, fmt.Sprintf("Chaos Mesh has not finished removing %d fault object(s)%s", left, why))
		}
		return ctrl.Result{RequeueAfter: f.r.poll()}, true, nil
	}
	return f.to(ctx, serdebenchv1.FaultRemoved)
}

// undoneBy is when the fault should have been undone by, with the same grace as
// applying it.
func (f *faultRun) undoneBy() time.Time {
	return f.fs.CreateTime.Add(time.Duration(f.t.Fault.DurationSeconds)*time.Second + f.r.faultInjectTimeout())
}

// objects are the trial attempt's Chaos Mesh objects, as built.
func (f *faultRun) objects() ([]*unstructured.Unstructured, error) {
	return build.Chaos(f.x, f.t, int(f.x.Status.Trials[f.t.Index].Attempt))
}

// state reads how far Chaos Mesh has come with the fault's objects.
func (f *faultRun) state(ctx context.Context) (chaos.State, error) {
	objs, err := f.objects()
	if err != nil {
		return chaos.State{}, err
	}
	return f.r.chaosObjects(f.x).State(ctx, objs)
}

// says is Chaos Mesh's own account of why it did not act.
func (f *faultRun) says(ctx context.Context, st chaos.State) string {
	return f.r.chaosObjects(f.x).Says(ctx, f.x.Namespace, f.fs.Objects, st)
}

// tooLate fails a trial whose fault could not be created on time. A kill cannot
// be taken back: it is never applied late (after a restart or a long queue),
// where it would hit another part of the window, or none.
func (f *faultRun) tooLate(ctx context.Context, late time.Duration) (ctrl.Result, bool, error) {
	return f.stop(ctx, ReasonFaultNotInjected, fmt.Sprintf("the fault was due %s ago and was not applied in time", late.Round(time.Second)))
}

// stop removes the trial's fault objects and fails the trial.
func (f *faultRun) stop(ctx context.Context, reason, msg string) (ctrl.Result, bool, error) {
	if err := f.r.deleteFaults(ctx, f.x, labels.Set{build.LabelTrial: f.t.Name}); err != nil {
		return ctrl.Result{}, true, err
	}
	res, err := f.r.fail(ctx, f.x, f.t.Index, reason, fmt.Sprintf("trial %s, fault %s: %s", f.t.Name, f.t.Fault.Name, msg))
	return res, true, err
}

// chaosObjects reads and removes the experiment's Chaos Mesh objects.
func (r *ExperimentReconciler) chaosObjects(x *serdebenchv1.SerializationExperiment) chaos.Objects {
	return chaos.Objects{Client: r.Client, Events: r.reader(), Kinds: chaosKinds,
		Released: func(kind, name string, rules int) {
			r.event(x, corev1.EventTypeNormal, "FaultReleased", "%s %s: in effect on no pod (%d pending rules withdrawn); its finalizer removed so that it goes", kind, name, rules)
		}}
}

// faultLabels select every fault object of the experiment.
func faultLabels(x *serdebenchv1.SerializationExperiment) labels.Set {
	return labels.Set{build.LabelExperiment: build.TrialLabels(x, trial.Trial{})[build.LabelExperiment], build.LabelRole: build.RoleFault}
}

// deleteFaults deletes the experiment's fault objects with the given labels.
func (r *ExperimentReconciler) deleteFaults(ctx context.Context, x *serdebenchv1.SerializationExperiment, set labels.Set) error {
	sel := faultLabels(x)
	for k, v := range set {
		sel[k] = v
	}
	return r.chaosObjects(x).Delete(ctx, x.Namespace, sel)
}

// faultsLeft counts the trial's fault objects that still exist (all the
// experiment's for trialName ""); deleted ones wait for Chaos Mesh's finalizer to
// undo them.
func (r *ExperimentReconciler) faultsLeft(ctx context.Context, x *serdebenchv1.SerializationExperiment, trialName string) (int, error) {
	sel := faultLabels(x)
	if trialName != "" {
		sel[build.LabelTrial] = trialName
	}
	return r.chaosObjects(x).Count(ctx, x.Namespace, sel)
}

func (r *ExperimentReconciler) faultInjectTimeout() time.Duration {
	if r.FaultInjectTimeout > 0 {
		return r.FaultInjectTimeout
	}
	return defaultFaultInjectTimeout
}
