package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
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

// chaosKinds are the kinds a fault may become.
var chaosKinds = []schema.GroupVersionKind{build.NetworkChaos, build.PodChaos, build.StressChaos}

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

// fault advances the running trial's fault: plans its time once the producers
// run, records and then creates its Chaos Mesh objects when due, waits for Chaos
// Mesh to apply it (failing the trial with FaultNotInjected if it does not), then
// to recover it, and deletes the objects. stop says the caller returns res, err.
func (r *ExperimentReconciler) fault(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, jobsDone bool) (res ctrl.Result, stop bool, err error) {
	ts := &x.Status.Trials[t.Index]
	if ts.Fault == nil {
		ts.Fault = &serdebenchv1.FaultStatus{Name: t.Fault.Name}
	}
	fs := ts.Fault
	now := time.Now()
	switch {
	case fs.Removed:
		return ctrl.Result{}, false, nil

	case fs.DueTime == nil:
		started, err := r.producersWindowStart(ctx, x, t)
		switch {
		case errors.Is(err, errNoWindow):
			return r.stopFault(ctx, x, t, ReasonFaultNotInjected, err.Error())
		case err != nil || started.IsZero():
			if jobsDone {
				return r.stopFault(ctx, x, t, ReasonFaultNotInjected, "the trial ended before its producers began their measured windows")
			}
			return ctrl.Result{RequeueAfter: r.poll()}, true, err
		}
		due := metav1.NewTime(started.Add(time.Duration(t.Fault.StartSeconds) * time.Second))
		fs.DueTime = &due
		res, err := r.updateStatus(ctx, x)
		return res, true, err

	case len(fs.Objects) == 0:
		if jobsDone {
			return r.stopFault(ctx, x, t, ReasonFaultNotInjected, "the trial ended before the fault was due")
		}
		if wait := fs.DueTime.Sub(now); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, true, nil
		}
		if late := now.Sub(fs.DueTime.Time); late > r.faultInjectTimeout() {
			return r.faultTooLate(ctx, x, t, late)
		}
		objs, err := build.Chaos(x, t, int(ts.Attempt))
		if err != nil {
			return r.stopFault(ctx, x, t, ReasonInvalidSpec, err.Error())
		}
		// Recorded before any is created: a restart creates the same names, once.
		for _, o := range objs {
			fs.Objects = append(fs.Objects, o.GetKind()+"/"+o.GetName())
		}
		res, err := r.updateStatus(ctx, x)
		return res, true, err

	case fs.CreateTime == nil:
		if late := now.Sub(fs.DueTime.Time); jobsDone || late > r.faultInjectTimeout() {
			return r.faultTooLate(ctx, x, t, late)
		}
		objs, err := build.Chaos(x, t, int(ts.Attempt))
		if err != nil {
			return r.stopFault(ctx, x, t, ReasonInvalidSpec, err.Error())
		}
		for _, o := range objs {
			if err := controllerutil.SetControllerReference(x, o, r.Scheme); err != nil {
				return ctrl.Result{}, true, err
			}
			if err := r.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
				return ctrl.Result{}, true, fmt.Errorf("create %s %s: %w", o.GetKind(), o.GetName(), err)
			}
			r.event(x, corev1.EventTypeNormal, "FaultCreated", "trial %s: created %s %s (fault %s)", t.Name, o.GetKind(), o.GetName(), t.Fault.Name)
		}
		r.sideEffect(x, "fault created")
		created := metav1.NewTime(now)
		fs.CreateTime = &created
		res, err := r.updateStatus(ctx, x)
		return res, true, err
	}

	progress, err := r.faultProgress(ctx, x, t)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	if fs.InjectedTime == nil {
		switch {
		case len(progress.gone) > 0:
			return r.stopFault(ctx, x, t, ReasonFaultNotInjected, fmt.Sprintf("%s deleted before Chaos Mesh applied the fault", strings.Join(progress.gone, ", ")))
		case progress.injected:
			at := metav1.NewTime(progress.injectedAt)
			fs.InjectedTime, fs.TargetCount = &at, int32(len(progress.targets))
			fs.Targets = progress.targets[:min(len(progress.targets), maxFaultTargets)]
			res, err := r.updateStatus(ctx, x)
			return res, true, err
		case now.Sub(fs.CreateTime.Time) > r.faultInjectTimeout() || jobsDone:
			// Chaos Mesh retries a failed apply: its failure is final only now.
			why := "it has not selected the target pods"
			switch {
			case progress.failure != "":
				why = "it failed to apply it: " + progress.failure
			case progress.selected:
				why = "it has selected the target pods but not applied the fault to all of them"
			}
			return r.stopFault(ctx, x, t, ReasonFaultNotInjected, fmt.Sprintf("Chaos Mesh did not apply the fault within %s: %s%s", r.faultInjectTimeout(), why, r.chaosEvents(ctx, x, fs, progress)))
		}
		return ctrl.Result{RequeueAfter: r.poll()}, true, nil
	}
	// When the fault should have been undone by, with the same grace as applying it.
	undoneBy := fs.CreateTime.Add(time.Duration(t.Fault.DurationSeconds)*time.Second + r.faultInjectTimeout())
	if !t.Fault.OneShot() && fs.RecoveredTime == nil {
		switch {
		case len(progress.gone) > 0:
			// Removed early by someone else, and undone then: the recovery time is
			// when the operator saw it gone.
			at := metav1.NewTime(now)
			fs.RecoveredTime = &at
			res, err := r.updateStatus(ctx, x)
			return res, true, err
		case progress.recoverFailure != "" && now.After(undoneBy):
			return r.stopFault(ctx, x, t, ReasonFaultNotRecovered, "Chaos Mesh could not undo the fault: "+progress.recoverFailure)
		case progress.recovered:
			at := metav1.NewTime(progress.recoveredAt)
			fs.RecoveredTime = &at
			res, err := r.updateStatus(ctx, x)
			return res, true, err
		case jobsDone:
			// Still in force when the window closed: removed now; the result says the
			// fault had no after-phase.
		default:
			return ctrl.Result{RequeueAfter: r.poll()}, false, nil
		}
	}
	if err := r.deleteFaults(ctx, x, labels.Set{build.LabelTrial: t.Name}); err != nil {
		return ctrl.Result{}, true, err
	}
	r.sideEffect(x, "fault deleted")
	// Gone only once Chaos Mesh's finalizer has undone it on every pod: the next
	// trial must not start under it.
	left, err := r.faultsLeft(ctx, x, t.Name)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	if left > 0 {
		if now.After(undoneBy.Add(r.faultInjectTimeout())) {
			return r.stopFault(ctx, x, t, ReasonFaultNotRecovered, fmt.Sprintf("Chaos Mesh has not finished removing %d fault object(s)%s", left, r.chaosEvents(ctx, x, fs, progress)))
		}
		return ctrl.Result{RequeueAfter: r.poll()}, true, nil
	}
	fs.Removed = true
	res, err = r.updateStatus(ctx, x)
	return res, true, err
}

// faultsLeft counts the trial's fault objects that still exist (deleted ones wait
// for Chaos Mesh's finalizer to undo them).
func (r *ExperimentReconciler) faultsLeft(ctx context.Context, x *serdebenchv1.SerializationExperiment, trialName string) (int, error) {
	sel := faultLabels(x)
	if trialName != "" {
		sel[build.LabelTrial] = trialName
	}
	n := 0
	for _, gvk := range chaosKinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := r.List(ctx, list, client.InNamespace(x.Namespace), client.MatchingLabels(sel))
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		n += len(list.Items)
	}
	return n, nil
}

// faultTooLate fails a trial whose fault could not be created on time. A kill
// cannot be taken back: it is never applied late (after a restart or a long
// queue), where it would hit another part of the window, or none.
func (r *ExperimentReconciler) faultTooLate(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, late time.Duration) (ctrl.Result, bool, error) {
	return r.stopFault(ctx, x, t, ReasonFaultNotInjected, fmt.Sprintf("the fault was due %s ago and was not created in time", late.Round(time.Second)))
}

// stopFault removes the trial's fault objects and fails the trial.
func (r *ExperimentReconciler) stopFault(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial, reason, msg string) (ctrl.Result, bool, error) {
	if err := r.deleteFaults(ctx, x, labels.Set{build.LabelTrial: t.Name}); err != nil {
		return ctrl.Result{}, true, err
	}
	res, err := r.fail(ctx, x, t.Index, reason, fmt.Sprintf("trial %s, fault %s: %s", t.Name, t.Fault.Name, msg))
	return res, true, err
}

// faultState is the trial's fault across its objects: selected and injected when
// every object is, at the latest of their times.
type faultState struct {
	selected, injected, recovered bool
	injectedAt, recoveredAt       time.Time
	targets                       []string
	failure, recoverFailure       string
	// gone are objects deleted by someone else.
	gone []string
}

func (r *ExperimentReconciler) faultProgress(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (faultState, error) {
	objs, err := build.Chaos(x, t, int(x.Status.Trials[t.Index].Attempt))
	if err != nil {
		return faultState{}, err
	}
	st := faultState{selected: true, injected: true, recovered: true}
	for _, want := range objs {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(want.GroupVersionKind())
		if err := r.Get(ctx, client.ObjectKeyFromObject(want), got); apierrors.IsNotFound(err) {
			// Deleted by someone else: Chaos Mesh's finalizer undid whatever it applied.
			st.gone = append(st.gone, want.GetKind()+"/"+want.GetName())
			continue
		} else if err != nil {
			return faultState{}, fmt.Errorf("get %s %s: %w", want.GetKind(), want.GetName(), err)
		}
		p := chaos.Read(got)
		st.selected = st.selected && p.Selected
		st.injected = st.injected && p.Injected
		st.recovered = st.recovered && p.Recovered
		if p.InjectedAt.After(st.injectedAt) {
			st.injectedAt = p.InjectedAt
		}
		if p.RecoveredAt.After(st.recoveredAt) {
			st.recoveredAt = p.RecoveredAt
		}
		st.targets = append(st.targets, p.Targets...)
		if p.ApplyFailure != "" {
			st.failure = fmt.Sprintf("%s %s: %s", want.GetKind(), want.GetName(), p.ApplyFailure)
		}
		if p.RecoverFailure != "" {
			st.recoverFailure = fmt.Sprintf("%s %s: %s", want.GetKind(), want.GetName(), p.RecoverFailure)
		}
	}
	return st, nil
}

// chaosEvents is Chaos Mesh's own account of why it did not act: the warning
// events on the trial's fault objects ("Failed to select targets: ...").
func (r *ExperimentReconciler) chaosEvents(ctx context.Context, x *serdebenchv1.SerializationExperiment, fs *serdebenchv1.FaultStatus, st faultState) string {
	list := &corev1.EventList{}
	if err := r.reader().List(ctx, list, client.InNamespace(x.Namespace)); err != nil {
		return fmt.Sprintf(" (Chaos Mesh's events could not be read: %v)", err)
	}
	// Chaos Mesh retries a failed apply and says so each time: each message once,
	// with how often (an event's own count, when aggregated, included).
	var msgs []string
	seen := map[string]int32{}
	for _, e := range list.Items {
		for _, o := range fs.Objects {
			kind, name, _ := strings.Cut(o, "/")
			if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name && e.Type == corev1.EventTypeWarning {
				m := fmt.Sprintf("%s: %s", o, e.Message)
				if _, ok := seen[m]; !ok {
					msgs = append(msgs, m)
				}
				seen[m] += max(e.Count, 1)
			}
		}
	}
	for i, m := range msgs {
		if n := seen[m]; n > 1 {
			msgs[i] = fmt.Sprintf("%s (%d times)", m, n)
		}
	}
	switch {
	case len(msgs) == 0 && (st.selected || st.failure != "" || st.recoverFailure != ""):
		return "" // its status said what it could
	case len(msgs) == 0:
		return " (no status and no events from Chaos Mesh: is chaos-controller-manager running, and may it select pods in that namespace?)"
	}
	return "; Chaos Mesh says: " + strings.Join(msgs, "; ")
}

// producersWindowStart is when the last of the trial attempt's producers began
// its measured window, as each logged it (zero while any has not). A producer
// that ended without one is an error: its trial cannot time a fault.
func (r *ExperimentReconciler) producersWindowStart(ctx context.Context, x *serdebenchv1.SerializationExperiment, t trial.Trial) (time.Time, error) {
	role := build.RoleProducer
	if x.Spec.Workers.Colocate {
		role = build.RoleWorkers
	}
	pods := &corev1.PodList{}
	sel := labels.Set{build.LabelTrial: t.Name, build.LabelRole: role, build.LabelAttempt: fmt.Sprint(x.Status.Trials[t.Index].Attempt)}
	if err := r.List(ctx, pods, client.InNamespace(x.Namespace), client.MatchingLabels(sel)); err != nil {
		return time.Time{}, fmt.Errorf("list producer pods: %w", err)
	}
	var last time.Time
	n := 0
	for i := range pods.Items {
		p := &pods.Items[i]
		for _, cs := range p.Status.ContainerStatuses {
			if !strings.HasPrefix(cs.Name, protocol.RoleProducer) {
				continue
			}
			if cs.State.Running == nil && cs.State.Terminated == nil {
				return time.Time{}, nil
			}
			log, err := r.podLog(ctx, p, cs.Name, &corev1.PodLogOptions{LimitBytes: ptr.To(int64(windowLogBytes))})
			if err != nil {
				return time.Time{}, err
			}
			at, ok := protocol.WindowStart(log)
			switch {
			case !ok && cs.State.Terminated != nil:
				return time.Time{}, fmt.Errorf("%w: pod %s container %s ended without logging %q", errNoWindow, p.Name, cs.Name, protocol.WindowStarted)
			case !ok:
				return time.Time{}, nil
			}
			if at.After(last) {
				last = at
			}
			n++
		}
	}
	if n < int(t.Producers) {
		return time.Time{}, nil
	}
	return last, nil
}

// windowLogBytes bounds the head of a producer's log read for its window start
// (the line comes after the client's setup, long before the summary).
const windowLogBytes = 256 << 10

// errNoWindow: a producer ended without a measured window.
var errNoWindow = errors.New("no measured window")

// releaseUnapplied removes Chaos Mesh's finalizer from the deleted fault objects
// in effect on no pod (never applied, or undone), once it has seen their deletion
// (so no apply of theirs is in flight): a NetworkChaos whose chaos-daemon cannot be reached retries
// on every pass and never gets to its finalizer step (nor to the cleanFinalizer
// annotation's), so it would stay forever. Its rules are already in the pods'
// PodNetworkChaos, Chaos Mesh's desired state for the daemon: they are taken out
// first, as Chaos Mesh's own recovery would, so that no daemon applies them later.
func (r *ExperimentReconciler) releaseUnapplied(ctx context.Context, x *serdebenchv1.SerializationExperiment, gvk schema.GroupVersionKind, sel labels.Set) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := r.List(ctx, list, client.InNamespace(x.Namespace), client.MatchingLabels(sel)); err != nil {
		if meta.IsNoMatchError(err) {
			return nil
		}
		return fmt.Errorf("list %s: %w", gvk.Kind, err)
	}
	var errs []error
	for i := range list.Items {
		o := &list.Items[i]
		p := chaos.Read(o)
		if o.GetDeletionTimestamp() == nil || !p.Stopping || !p.Untouched || !slices.Contains(o.GetFinalizers(), chaos.RecordsFinalizer) {
			continue
		}
		source := o.GetNamespace() + "/" + o.GetName()
		clean := true
		for _, id := range p.Pending {
			done, err := r.withdrawRules(ctx, o, id, source)
			if err != nil {
				errs = append(errs, err)
			}
			clean = clean && done
		}
		if !clean {
			continue // the next pass
		}
		patch := client.MergeFromWithOptions(o.DeepCopy(), client.MergeFromWithOptimisticLock{})
		o.SetFinalizers(slices.DeleteFunc(o.GetFinalizers(), func(f string) bool { return f == chaos.RecordsFinalizer }))
		switch err := r.Patch(ctx, o, patch); {
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			// Gone, or changed since it was read: the next pass looks again.
		case err != nil:
			errs = append(errs, fmt.Errorf("release %s %s (in effect on no pod): %w", gvk.Kind, o.GetName(), err))
		default:
			r.event(x, corev1.EventTypeNormal, "FaultReleased", "%s %s: in effect on no pod (%d pending rules withdrawn); its finalizer removed so that it goes",
				gvk.Kind, o.GetName(), len(p.Pending))
		}
	}
	return errors.Join(errs...)
}

// withdrawRules takes source's rules out of the PodNetworkChaos of pod id
// (namespace/name); done once none is left. Rules chaos-daemon has already
// applied (the PodNetworkChaos synced at or past the generation o committed, with
// no failure) are left to Chaos Mesh, which now sees them applied and undoes them:
// never done.
func (r *ExperimentReconciler) withdrawRules(ctx context.Context, o *unstructured.Unstructured, id, source string) (bool, error) {
	ns, name, _ := strings.Cut(id, "/")
	pnc := &unstructured.Unstructured{}
	pnc.SetGroupVersionKind(chaos.PodNetworkChaosKind)
	if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pnc); apierrors.IsNotFound(err) {
		return true, nil // the pod is gone, and its PodNetworkChaos with it
	} else if err != nil {
		return false, fmt.Errorf("get PodNetworkChaos %s: %w", id, err)
	}
	if chaos.Synced(o, pnc, id) {
		return false, nil
	}
	if !chaos.WithdrawRules(pnc, source) {
		return true, nil
	}
	if err := r.Update(ctx, pnc); apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return false, nil // Chaos Mesh changed it meanwhile: the next pass
	} else if err != nil {
		return false, fmt.Errorf("withdraw %s's rules from PodNetworkChaos %s: %w", source, id, err)
	}
	return true, nil
}

// faultLabels select every fault object of the experiment.
func faultLabels(x *serdebenchv1.SerializationExperiment) labels.Set {
	return labels.Set{build.LabelExperiment: build.TrialLabels(x, trial.Trial{})[build.LabelExperiment], build.LabelRole: build.RoleFault}
}

// deleteFaults deletes the experiment's fault objects with the given labels, of
// every Chaos Mesh kind the API server serves.
func (r *ExperimentReconciler) deleteFaults(ctx context.Context, x *serdebenchv1.SerializationExperiment, set labels.Set) error {
	sel := faultLabels(x)
	for k, v := range set {
		sel[k] = v
	}
	var errs []error
	for _, gvk := range chaosKinds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		err := r.DeleteAllOf(ctx, u, client.InNamespace(x.Namespace), client.MatchingLabels(sel))
		if err != nil && !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", gvk.Kind, err))
			continue
		}
		if err := r.releaseUnapplied(ctx, x, gvk, sel); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (r *ExperimentReconciler) faultInjectTimeout() time.Duration {
	if r.FaultInjectTimeout > 0 {
		return r.FaultInjectTimeout
	}
	return defaultFaultInjectTimeout
}
