package chaos

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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Objects reads and removes Chaos Mesh objects of the given kinds through the
// API server. Kinds the API server does not serve are skipped: nothing of theirs
// can exist.
type Objects struct {
	// Client reads, patches and deletes the objects (and pods' PodNetworkChaos).
	Client client.Client
	// Events reads events; uncached, so that no informer on every event of the
	// cluster is started for a read made only when a fault failed.
	Events client.Reader
	// Kinds are the Chaos Mesh kinds looked at: every kind a fault may become.
	Kinds []schema.GroupVersionKind
	// Released, if set, hears of each deleted object whose finalizer was removed
	// because it was in effect on no pod, with how many of its pending rules were
	// withdrawn.
	Released func(kind, name string, rules int)
}

// State is a trial's fault across its objects: selected and injected when every
// object is, at the latest of their times.
type State struct {
	Selected, Injected, Recovered bool
	InjectedAt, RecoveredAt       time.Time
	Targets                       []string
	// ApplyFailure and RecoverFailure name the object and Chaos Mesh's message.
	ApplyFailure, RecoverFailure string
	// Gone are objects deleted by someone else (Kind/name).
	Gone []string
}

// State reads the objects want names (as built) and combines their progress.
func (o Objects) State(ctx context.Context, want []*unstructured.Unstructured) (State, error) {
	st := State{Selected: true, Injected: true, Recovered: true}
	for _, w := range want {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(w.GroupVersionKind())
		if err := o.Client.Get(ctx, client.ObjectKeyFromObject(w), got); apierrors.IsNotFound(err) {
			// Deleted by someone else: Chaos Mesh's finalizer undid whatever it applied.
			st.Gone = append(st.Gone, w.GetKind()+"/"+w.GetName())
			continue
		} else if err != nil {
			return State{}, fmt.Errorf("get %s %s: %w", w.GetKind(), w.GetName(), err)
		}
		p := Read(got)
		st.Selected = st.Selected && p.Selected
		st.Injected = st.Injected && p.Injected
		st.Recovered = st.Recovered && p.Recovered
		if p.InjectedAt.After(st.InjectedAt) {
			st.InjectedAt = p.InjectedAt
		}
		if p.RecoveredAt.After(st.RecoveredAt) {
			st.RecoveredAt = p.RecoveredAt
		}
		st.Targets = append(st.Targets, p.Targets...)
		if p.ApplyFailure != "" {
			st.ApplyFailure = fmt.Sprintf("%s %s: %s", w.GetKind(), w.GetName(), p.ApplyFailure)
		}
		if p.RecoverFailure != "" {
			st.RecoverFailure = fmt.Sprintf("%s %s: %s", w.GetKind(), w.GetName(), p.RecoverFailure)
		}
	}
	return st, nil
}

// Says is Chaos Mesh's own account of why it did not act: the warning events on
// the objects (Kind/name, in namespace), each message once with how often ("" if
// its status said what it could).
func (o Objects) Says(ctx context.Context, namespace string, objects []string, st State) string {
	list := &corev1.EventList{}
	if err := o.Events.List(ctx, list, client.InNamespace(namespace)); err != nil {
		return fmt.Sprintf(" (Chaos Mesh's events could not be read: %v)", err)
	}
	// Chaos Mesh retries a failed apply and says so each time: each message once,
	// with how often (an event's own count, when aggregated, included).
	var msgs []string
	seen := map[string]int32{}
	for _, e := range list.Items {
		for _, obj := range objects {
			kind, name, _ := strings.Cut(obj, "/")
			if e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name && e.Type == corev1.EventTypeWarning {
				m := fmt.Sprintf("%s: %s", obj, e.Message)
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
	case len(msgs) == 0 && (st.Selected || st.ApplyFailure != "" || st.RecoverFailure != ""):
		return "" // its status said what it could
	case len(msgs) == 0:
		return " (no status and no events from Chaos Mesh: is chaos-controller-manager running, and may it select pods in that namespace?)"
	}
	return "; Chaos Mesh says: " + strings.Join(msgs, "; ")
}

// Count counts the objects sel matches in namespace that still exist (deleted
// ones wait for Chaos Mesh's finalizer to undo them).
func (o Objects) Count(ctx context.Context, namespace string, sel labels.Set) (int, error) {
	n := 0
	for _, gvk := range o.Kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := o.Client.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels(sel))
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

// Delete deletes the objects sel matches in namespace, of every kind the API
// server serves, and releases those in effect on no pod (release).
func (o Objects) Delete(ctx context.Context, namespace string, sel labels.Set) error {
	var errs []error
	for _, gvk := range o.Kinds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		err := o.Client.DeleteAllOf(ctx, u, client.InNamespace(namespace), client.MatchingLabels(sel))
		if err != nil && !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", gvk.Kind, err))
			continue
		}
		if err := o.release(ctx, namespace, gvk, sel); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// release removes Chaos Mesh's finalizer from the deleted objects in effect on no
// pod (never applied, or undone), once it has seen their deletion (so no apply of
// theirs is in flight): a NetworkChaos whose chaos-daemon cannot be reached
// retries on every pass and never gets to its finalizer step (nor to the
// cleanFinalizer annotation's), so it would stay forever. Its rules are already
// in the pods' PodNetworkChaos, Chaos Mesh's desired state for the daemon: they
// are taken out first, as Chaos Mesh's own recovery would, so that no daemon
// applies them later.
func (o Objects) release(ctx context.Context, namespace string, gvk schema.GroupVersionKind, sel labels.Set) error {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := o.Client.List(ctx, list, client.InNamespace(namespace), client.MatchingLabels(sel)); err != nil {
		if meta.IsNoMatchError(err) {
			return nil
		}
		return fmt.Errorf("list %s: %w", gvk.Kind, err)
	}
	var errs []error
	for i := range list.Items {
		obj := &list.Items[i]
		p := Read(obj)
		if obj.GetDeletionTimestamp() == nil || !p.Stopping || !p.Untouched || !slices.Contains(obj.GetFinalizers(), RecordsFinalizer) {
			continue
		}
		source := obj.GetNamespace() + "/" + obj.GetName()
		clean := true
		for _, id := range p.Pending {
			done, err := o.withdrawRules(ctx, obj, id, source)
			if err != nil {
				errs = append(errs, err)
			}
			clean = clean && done
		}
		if !clean {
			continue // the next pass
		}
		patch := client.MergeFromWithOptions(obj.DeepCopy(), client.MergeFromWithOptimisticLock{})
		obj.SetFinalizers(slices.DeleteFunc(obj.GetFinalizers(), func(f string) bool { return f == RecordsFinalizer }))
		switch err := o.Client.Patch(ctx, obj, patch); {
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			// Gone, or changed since it was read: the next pass looks again.
		case err != nil:
			errs = append(errs, fmt.Errorf("release %s %s (in effect on no pod): %w", gvk.Kind, obj.GetName(), err))
		case o.Released != nil:
			o.Released(gvk.Kind, obj.GetName(), len(p.Pending))
		}
	}
	return errors.Join(errs...)
}

// withdrawRules takes source's rules out of the PodNetworkChaos of pod id
// (namespace/name); done once none is left. Rules chaos-daemon has already
// applied (the PodNetworkChaos synced at or past the generation obj committed,
// with no failure) are left to Chaos Mesh, which now sees them applied and undoes
// them: never done.
func (o Objects) withdrawRules(ctx context.Context, obj *unstructured.Unstructured, id, source string) (bool, error) {
	ns, name, _ := strings.Cut(id, "/")
	pnc := &unstructured.Unstructured{}
	pnc.SetGroupVersionKind(PodNetworkChaosKind)
	if err := o.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pnc); apierrors.IsNotFound(err) {
		return true, nil // the pod is gone, and its PodNetworkChaos with it
	} else if err != nil {
		return false, fmt.Errorf("get PodNetworkChaos %s: %w", id, err)
	}
	if Synced(obj, pnc, id) {
		return false, nil
	}
	if !WithdrawRules(pnc, source) {
		return true, nil
	}
	if err := o.Client.Update(ctx, pnc); apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		return false, nil // Chaos Mesh changed it meanwhile: the next pass
	} else if err != nil {
		return false, fmt.Errorf("withdraw %s's rules from PodNetworkChaos %s: %w", source, id, err)
	}
	return true, nil
}
