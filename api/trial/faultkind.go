package trial

import (
	"fmt"
	"slices"
	"strings"
)

// FaultKind is a kind of fault: the Fault field that sets it.
type FaultKind string

// The fault kinds; FaultKinds holds what serdebench knows of each.
const (
	FaultNetwork FaultKind = "network"
	FaultPod     FaultKind = "pod"
	FaultStress  FaultKind = "stress"
	// FaultConsumers is applied by serdebench's own workers, not Chaos Mesh.
	FaultConsumers FaultKind = "consumers"
)

// FaultKindInfo is one row of the fault-kind table: everything serdebench knows of a
// kind of fault, in one place. The operator's builders are a map keyed by the same
// kinds (controllers/build.chaosBuilders); tests hold that map, the operator's RBAC
// and envtest's CRDs to this table.
// +kubebuilder:object:generate=false
type FaultKindInfo struct {
	// Chaos is the Chaos Mesh kind (chaos-mesh.org/v1alpha1) the operator makes of
	// the fault, and Resource that kind's resource (its RBAC rule, its CRD); both
	// empty for a fault the trial's own workers apply (ChaosMesh false).
	Chaos, Resource string
	// Set reports whether f is of this kind.
	Set func(f *Fault) bool
	// Local says how `serdebench run` applies the fault without Kubernetes; ""
	// when it cannot, and then it refuses the experiment before any trial runs.
	Local string
	// Needs is what the fault needs in a cluster beyond Chaos Mesh's controller
	// (for a kind without Chaos, all it needs).
	Needs string
}

// FaultKinds is the fault-kind table.
var FaultKinds = map[FaultKind]FaultKindInfo{
	FaultNetwork: {Chaos: "NetworkChaos", Resource: "networkchaos",
		Set:   func(f *Fault) bool { return f.Network != nil },
		Local: "the local rig's delay engine on the packets the broker sends (root, behind hack/calibrate/netns.sh, --fault-interface)",
		Needs: "Chaos Mesh's chaos-daemon on the target's nodes, and a kernel with netem (tc) and ipset"},
	FaultPod: {Chaos: "PodChaos", Resource: "podchaos",
		Set:   func(f *Fault) bool { return f.Pod != nil },
		Local: "the broker's script: a kill and restart, or a failure for durationSeconds (--fault-broker-script)",
		Needs: "the brokers in pods (a Strimzi cluster, or kafka.brokerPods); container-kill needs chaos-daemon"},
	FaultStress: {Chaos: "StressChaos", Resource: "stresschaos",
		Set:   func(f *Fault) bool { return f.Stress != nil },
		Needs: "Chaos Mesh's chaos-daemon on the target's nodes"},
	FaultConsumers: {
		Set:   func(f *Fault) bool { return f.Consumers != nil },
		Local: "the runner itself: it starts one more consumer, stops one cleanly, or pauses one",
		Needs: "the consumers' metrics port reachable from the operator, which tells a consumer to leave, pause or join there (workers/control), as it starts a trial's producers"},
}

// ChaosMesh is whether the operator applies the kind through Chaos Mesh.
func (k FaultKindInfo) ChaosMesh() bool { return k.Chaos != "" }

// ChaosKindNames are the kinds the operator applies through Chaos Mesh, sorted.
func ChaosKindNames() []FaultKind {
	var out []FaultKind
	for _, k := range FaultKindNames() {
		if FaultKinds[k].ChaosMesh() {
			out = append(out, k)
		}
	}
	return out
}

// FaultKindNames are the table's kinds, sorted.
func FaultKindNames() []FaultKind {
	ks := make([]FaultKind, 0, len(FaultKinds))
	for k := range FaultKinds {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Kind is the fault's kind; an error when it sets none or several (admission
// refuses both; a spec read without admission can have either).
func (f *Fault) Kind() (FaultKind, error) {
	var set []FaultKind
	var names []string
	for _, k := range FaultKindNames() {
		if FaultKinds[k].Set(f) {
			set = append(set, k)
		}
		names = append(names, string(k))
	}
	if len(set) != 1 {
		return "", fmt.Errorf("fault %s sets %d of %s: set exactly one", f.Name, len(set), strings.Join(names, ", "))
	}
	return set[0], nil
}
