// Package chaos holds what the operator knows of Chaos Mesh's internals: how far
// Chaos Mesh has come with a chaos object (which pods it selected, whether it
// applied and recovered the fault on each, and why not), read from the object's
// status as Chaos Mesh's records and condition controllers write it
// (status.experiment.containerRecords, status.conditions); and how its objects are
// read, deleted and, when in effect on no pod, released (objects.go).
package chaos

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RecordsFinalizer is the finalizer Chaos Mesh puts on its objects: it removes it
// once it has undone the fault on every target.
const RecordsFinalizer = "chaos-mesh/records"

// Progress is a chaos object's state.
type Progress struct {
	// Selected says Chaos Mesh chose its target pods (it has a record for each).
	Selected bool
	// Injected says the fault was applied to every target (it may be recovered
	// since: a short fault can come and go between two reads); InjectedAt is when
	// the last one was (its latest successful apply).
	Injected   bool
	InjectedAt time.Time
	// Recovered says every target is back to normal after being injected;
	// RecoveredAt is when the last one was at the latest. Chaos Mesh records whole
	// seconds: InjectedAt is the second an apply happened in (its start), and
	// RecoveredAt the end of the second a recovery happened in, so the window they
	// span contains the fault's.
	Recovered   bool
	RecoveredAt time.Time
	// Targets are the records' ids (namespace/pod, or namespace/pod/container).
	Targets []string
	// ApplyFailure and RecoverFailure are Chaos Mesh's messages for a target it
	// failed to inject or to recover (the latest such event, if it is the
	// target's latest event of that operation). Chaos Mesh retries: a failure
	// is final only when the caller stops waiting.
	ApplyFailure, RecoverFailure string
	// Applied says Chaos Mesh applied the fault to some target at some time.
	Applied bool
	// Stopping says Chaos Mesh has seen the object's deletion (its desired phase
	// is Stop): no apply of its is in flight, and it starts none.
	Stopping bool
	// Untouched says every record is "Not Injected" (never applied, or undone:
	// what Chaos Mesh's own finalizer step waits for) or, for a NetworkChaos,
	// "Not Injected/Wait". Pending are the waiting ones: Chaos Mesh wrote their
	// rules into the pod's PodNetworkChaos (its desired state for chaos-daemon)
	// and waits for the daemon to apply them.
	Untouched bool
	Pending   []string
}

// PendingPhase is a NetworkChaos record's phase once its rules are in the pod's
// PodNetworkChaos and before chaos-daemon has applied them.
const PendingPhase = "Not Injected/Wait"

// Read reads obj's status. Events are matched case-insensitively: the API module
// spells the operations Apply and Recover, its controllers log apply and recover.
func Read(obj *unstructured.Unstructured) Progress {
	var p Progress
	records, _, _ := unstructured.NestedSlice(obj.Object, "status", "experiment", "containerRecords")
	desired, _, _ := unstructured.NestedString(obj.Object, "status", "experiment", "desiredPhase")
	p.Stopping = desired == "Stop"
	p.Selected = len(records) > 0
	p.Injected, p.Recovered = p.Selected, p.Selected
	p.Untouched = true
	for _, r := range records {
		rec, ok := r.(map[string]any)
		if !ok {
			continue
		}
		id, _, _ := unstructured.NestedString(rec, "id")
		p.Targets = append(p.Targets, id)
		phase, _, _ := unstructured.NestedString(rec, "phase")
		injected, recovered := count(rec["injectedCount"]), count(rec["recoveredCount"])
		// "Injected", or "Not Injected" (also before the first apply); an
		// intermediate phase has a "/<step>" suffix.
		if phase != "Not Injected" || injected == 0 || recovered == 0 {
			p.Recovered = false
		}
		events, _, _ := unstructured.NestedSlice(rec, "events")
		var lastApply, lastRecover map[string]any
		for _, e := range events {
			ev, ok := e.(map[string]any)
			if !ok {
				continue
			}
			op, _, _ := unstructured.NestedString(ev, "operation")
			switch strings.ToLower(op) {
			case "apply":
				lastApply = ev
			case "recover":
				lastRecover = ev
			}
		}
		at, applied := succeeded(lastApply)
		p.Applied = p.Applied || applied || injected > 0 || strings.HasPrefix(phase, "Injected")
		switch {
		case phase == PendingPhase && obj.GetKind() == "NetworkChaos":
			p.Pending = append(p.Pending, id)
		case phase != "Not Injected":
			p.Untouched = false
		}
		if phase != "Injected" && injected == 0 && !applied {
			p.Injected = false
		}
		if applied && at.After(p.InjectedAt) {
			p.InjectedAt = at
		}
		if at, ok := succeeded(lastRecover); ok {
			if at.Equal(at.Truncate(time.Second)) {
				// Chaos Mesh records whole seconds: the fault may have lasted to the
				// end of the one it names.
				at = at.Add(time.Second)
			}
			if at.After(p.RecoveredAt) {
				p.RecoveredAt = at
			}
		}
		if msg, ok := failed(lastApply); ok {
			p.ApplyFailure = fmt.Sprintf("%s: %s", id, msg)
		}
		if msg, ok := failed(lastRecover); ok {
			p.RecoverFailure = fmt.Sprintf("%s: %s", id, msg)
		}
	}
	if !p.Injected {
		p.InjectedAt = time.Time{}
	}
	if !p.Recovered {
		p.RecoveredAt = time.Time{}
	}
	return p
}

// count reads a counter as the API server's JSON decoding gives it (int64) or a
// generic JSON decoder does (float64).
func count(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

func succeeded(ev map[string]any) (time.Time, bool) {
	if ev == nil {
		return time.Time{}, false
	}
	typ, _, _ := unstructured.NestedString(ev, "type")
	ts, _, _ := unstructured.NestedString(ev, "timestamp")
	at, err := time.Parse(time.RFC3339, ts)
	return at, strings.EqualFold(typ, "Succeeded") && err == nil
}

func failed(ev map[string]any) (string, bool) {
	if ev == nil {
		return "", false
	}
	typ, _, _ := unstructured.NestedString(ev, "type")
	msg, _, _ := unstructured.NestedString(ev, "message")
	return msg, strings.EqualFold(typ, "Failed")
}

// PodNetworkChaosKind is Chaos Mesh's per-pod desired network state: the rules of
// every NetworkChaos on the pod, each naming its source (namespace/name), which
// chaos-daemon applies.
var PodNetworkChaosKind = schema.GroupVersionKind{Group: "chaos-mesh.org", Version: "v1alpha1", Kind: "PodNetworkChaos"}

// WithdrawRules takes source's ipsets, iptables rules and traffic controls out of
// a PodNetworkChaos (as Chaos Mesh's own recovery does before it commits); false
// if it had none.
func WithdrawRules(pnc *unstructured.Unstructured, source string) bool {
	changed := false
	for _, field := range []string{"ipsets", "iptables", "tcs"} {
		items, found, _ := unstructured.NestedSlice(pnc.Object, "spec", field)
		if !found {
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(items), func(it any) bool {
			m, _ := it.(map[string]any)
			src, _, _ := unstructured.NestedString(m, "source")
			return src == source
		})
		if len(kept) != len(items) {
			changed = true
			_ = unstructured.SetNestedSlice(pnc.Object, kept, "spec", field)
		}
	}
	return changed
}

// Synced says chaos-daemon has applied what o (a NetworkChaos) committed to pod
// id's PodNetworkChaos: the PodNetworkChaos's observed generation has reached the
// one o recorded for the pod (status.instances), with no failure: the test
// Chaos Mesh's own wait makes before it calls a record injected.
func Synced(o, pnc *unstructured.Unstructured, id string) bool {
	want, found, _ := unstructured.NestedFieldNoCopy(o.Object, "status", "instances", id)
	if !found {
		return false
	}
	observed, _, _ := unstructured.NestedFieldNoCopy(pnc.Object, "status", "observedGeneration")
	failed, _, _ := unstructured.NestedString(pnc.Object, "status", "failedMessage")
	return failed == "" && count(observed) >= count(want) && count(want) > 0
}
