package controllers_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/serdebench/serdebench/controllers/chaos"
)

// chaosMesh stands in for chaos-controller-manager, which envtest does not run, as
// strictly as this machine lets it: it selects the Running pods an object's
// selector names (none: no records, and the warning event Chaos Mesh writes),
// applies a StressChaos for real (busy goroutines in the process the kubelet
// stand-in runs the workers in) and records it as Chaos Mesh does, then recovers it
// when its duration ends, and on deletion (its finalizer) only after a tick. A NetworkChaos fails to apply with the error the real
// chaos-daemon gets on this kernel (no netem), and a PodChaos finds no pods (the
// brokers here are not pods).
type chaosMesh struct {
	t  *testing.T
	ns string

	mu sync.Mutex
	// applied counts applies per object UID; stop ends an object's stressors.
	applied map[types.UID]int
	stop    map[types.UID]context.CancelFunc
}

func newChaosMesh(t *testing.T, ns string) *chaosMesh {
	c := &chaosMesh{t: t, ns: ns, applied: map[types.UID]int{}, stop: map[types.UID]context.CancelFunc{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for _, kind := range []string{"StressChaos", "NetworkChaos", "PodChaos"} {
				c.reconcile(ctx, kind)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		c.mu.Lock()
		for _, stop := range c.stop {
			stop()
		}
		c.mu.Unlock()
	})
	return c
}

// chaosFinalizer is the finalizer Chaos Mesh puts on its objects.
const chaosFinalizer = chaos.RecordsFinalizer

// applies is how often each object was applied, by UID.
func (c *chaosMesh) applies() map[types.UID]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[types.UID]int{}
	for k, v := range c.applied {
		out[k] = v
	}
	return out
}

func (c *chaosMesh) reconcile(ctx context.Context, kind string) {
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("chaos-mesh.org/v1alpha1")
	list.SetKind(kind + "List")
	if err := k8s.List(ctx, list, client.InNamespace(c.ns)); err != nil {
		return
	}
	present := map[types.UID]bool{}
	for i := range list.Items {
		o := &list.Items[i]
		present[o.GetUID()] = true
		// Chaos Mesh's finalizer: a deleted object is undone first, then released. One
		// it could never apply (a NetworkChaos with no chaos-daemon: records waiting)
		// it keeps retrying, and never releases (its finalizer step comes after).
		if o.GetDeletionTimestamp() != nil {
			if waiting(o) {
				// Its desired-phase step notes the deletion; its records step then
				// retries the wait forever.
				if ph, _, _ := unstructured.NestedString(o.Object, "status", "experiment", "desiredPhase"); ph != "Stop" {
					_ = unstructured.SetNestedField(o.Object, "Stop", "status", "experiment", "desiredPhase")
					if err := k8s.Update(ctx, o); err != nil && ctx.Err() == nil {
						c.t.Logf("chaos mesh stand-in: stop %s: %v", o.GetName(), err)
					}
				}
				continue
			}
			c.recover(o.GetUID())
			o.SetFinalizers(slices.DeleteFunc(o.GetFinalizers(), func(f string) bool { return f == chaosFinalizer }))
			if err := k8s.Update(ctx, o); err != nil && ctx.Err() == nil {
				c.t.Logf("chaos mesh stand-in: release %s: %v", o.GetName(), err)
			}
			continue
		}
		if !slices.Contains(o.GetFinalizers(), chaosFinalizer) {
			o.SetFinalizers(append(o.GetFinalizers(), chaosFinalizer))
			if err := k8s.Update(ctx, o); err != nil && ctx.Err() == nil {
				c.t.Logf("chaos mesh stand-in: %v", err)
			}
			continue
		}
		records, _, _ := unstructured.NestedSlice(o.Object, "status", "experiment", "containerRecords")
		if len(records) == 0 {
			pods := c.selected(ctx, o)
			if len(pods) == 0 {
				c.event(ctx, o, "select", "Failed to select targets: no target has been selected")
				continue
			}
			for _, p := range pods {
				records = append(records, map[string]any{"id": p, "selectorKey": ".", "phase": "Not Injected", "injectedCount": int64(0), "recoveredCount": int64(0)})
			}
		}
		now := time.Now().UTC().Format(time.RFC3339)
		duration, _ := time.ParseDuration(fmt.Sprint(o.Object["spec"].(map[string]any)["duration"]))
		over := duration > 0 && time.Since(o.GetCreationTimestamp().Time) > duration
		changed := false
		for _, r := range records {
			rec := r.(map[string]any)
			events, _ := rec["events"].([]any)
			switch {
			case rec["phase"] == "Not Injected" && !over && len(events) == 0: // never applied
				if kind == "NetworkChaos" {
					// Its rules go into the pod's PodNetworkChaos first (Chaos Mesh's
					// commit), then it waits for chaos-daemon, which fails here.
					id, _ := rec["id"].(string)
					c.commit(ctx, id, o.GetNamespace()+"/"+o.GetName())
					rec["phase"] = "Not Injected/Wait"
					const failure = "rpc error: code = Unknown desc = error code: Error: Specified qdisc kind is unknown."
					rec["events"] = append(events, map[string]any{"type": "Failed", "operation": "Apply", "timestamp": now, "message": failure})
					// Chaos Mesh retries the apply and writes an event each time.
					for i := range 3 {
						c.event(ctx, o, fmt.Sprintf("apply-%d", i), "Failed to apply chaos: "+failure)
					}
					changed = true
					continue
				}
				c.apply(o)
				rec["phase"], rec["injectedCount"] = "Injected", int64(1)
				rec["events"] = append(events, map[string]any{"type": "Succeeded", "operation": "Apply", "timestamp": now})
				changed = true
			case rec["phase"] == "Injected" && over:
				c.recover(o.GetUID())
				rec["phase"], rec["recoveredCount"] = "Not Injected", int64(1)
				rec["events"] = append(events, map[string]any{"type": "Succeeded", "operation": "Recover", "timestamp": now})
				changed = true
			}
		}
		if !changed && len(records) > 0 && o.Object["status"] != nil {
			continue
		}
		_ = unstructured.SetNestedSlice(o.Object, records, "status", "experiment", "containerRecords")
		_ = unstructured.SetNestedField(o.Object, "Run", "status", "experiment", "desiredPhase")
		// Chaos Mesh's CRDs have no status subresource: status is written with the object.
		if err := k8s.Update(ctx, o); err != nil && ctx.Err() == nil {
			c.t.Logf("chaos mesh stand-in: %v", err)
		}
	}
	// A deleted object is recovered (Chaos Mesh's finalizer).
	c.mu.Lock()
	for uid, stop := range c.stop {
		if !present[uid] && kind == "StressChaos" {
			stop()
			delete(c.stop, uid)
		}
	}
	c.mu.Unlock()
}

// commit writes source's traffic control into pod id's PodNetworkChaos, as Chaos
// Mesh's NetworkChaos apply does before it waits for chaos-daemon.
func (c *chaosMesh) commit(ctx context.Context, id, source string) {
	ns, name, _ := strings.Cut(id, "/")
	pnc := &unstructured.Unstructured{}
	pnc.SetGroupVersionKind(chaos.PodNetworkChaosKind)
	tc := map[string]any{"type": "netem", "source": source}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pnc); err != nil {
		pnc.SetNamespace(ns)
		pnc.SetName(name)
		pnc.Object["spec"] = map[string]any{"tcs": []any{tc}}
		if err := k8s.Create(ctx, pnc); err != nil && ctx.Err() == nil {
			c.t.Logf("chaos mesh stand-in: create PodNetworkChaos %s: %v", id, err)
		}
		return
	}
	tcs, _, _ := unstructured.NestedSlice(pnc.Object, "spec", "tcs")
	_ = unstructured.SetNestedSlice(pnc.Object, append(tcs, tc), "spec", "tcs")
	if err := k8s.Update(ctx, pnc); err != nil && ctx.Err() == nil {
		c.t.Logf("chaos mesh stand-in: update PodNetworkChaos %s: %v", id, err)
	}
}

// waiting says some record of o is between phases (as a failed apply leaves it).
func waiting(o *unstructured.Unstructured) bool {
	records, _, _ := unstructured.NestedSlice(o.Object, "status", "experiment", "containerRecords")
	for _, r := range records {
		if ph, _ := r.(map[string]any)["phase"].(string); strings.Contains(ph, "/") {
			return true
		}
	}
	return false
}

// selected are the pods (namespace/name, with the container for a StressChaos) the
// object's selector names.
func (c *chaosMesh) selected(ctx context.Context, o *unstructured.Unstructured) []string {
	namespaces, _, _ := unstructured.NestedStringSlice(o.Object, "spec", "selector", "namespaces")
	labels, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector", "labelSelectors")
	var out []string
	for _, ns := range namespaces {
		pods := &corev1.PodList{}
		if err := k8s.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels(labels)); err != nil {
			continue
		}
		for _, p := range pods.Items {
			// Chaos Mesh's selector filters by phase only with podPhaseSelectors; a
			// StressChaos acts on containers and names them.
			id := p.Namespace + "/" + p.Name
			if o.GetKind() == "StressChaos" && len(p.Spec.Containers) > 0 {
				id += "/" + p.Spec.Containers[0].Name
			}
			out = append(out, id)
		}
	}
	return out
}

// apply starts the object's CPU stressors: busy goroutines until recovered.
func (c *chaosMesh) apply(o *unstructured.Unstructured) {
	workers, _, _ := unstructured.NestedInt64(o.Object, "spec", "stressors", "cpu", "workers")
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.applied[o.GetUID()]++
	if old := c.stop[o.GetUID()]; old != nil {
		old()
	}
	c.stop[o.GetUID()] = cancel
	c.mu.Unlock()
	for range workers {
		go func() {
			for ctx.Err() == nil {
				for i := 0; i < 1e5; i++ {
					runtime.KeepAlive(i)
				}
			}
		}()
	}
}

func (c *chaosMesh) recover(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if stop := c.stop[uid]; stop != nil {
		stop()
		delete(c.stop, uid)
	}
}

// event writes Chaos Mesh's warning event on o, once per key.
func (c *chaosMesh) event(ctx context.Context, o *unstructured.Unstructured, key, msg string) {
	name := o.GetName() + "." + key
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: o.GetNamespace(), Name: strings.ToLower(name)},
		InvolvedObject: corev1.ObjectReference{Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID(), APIVersion: o.GetAPIVersion()},
		Reason:         "Failed", Message: msg, Type: corev1.EventTypeWarning, Source: corev1.EventSource{Component: "chaos-controller-manager"},
		FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Count: 1}
	_ = k8s.Create(ctx, ev) // once: AlreadyExists afterwards
}
