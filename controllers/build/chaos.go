package build

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/names"
)

// ChaosGroupVersion is Chaos Mesh's API. Faults are built as unstructured objects so
// the operator links no Chaos Mesh module; envtest checks them against its real CRDs.
var ChaosGroupVersion = schema.GroupVersion{Group: "chaos-mesh.org", Version: "v1alpha1"}

// ChaosKind is the Chaos Mesh kind a kind of fault becomes (trial.FaultKinds).
func ChaosKind(k trial.FaultKind) schema.GroupVersionKind {
	return ChaosGroupVersion.WithKind(trial.FaultKinds[k].Chaos)
}

// ChaosKinds are the Chaos Mesh kinds the Chaos Mesh kinds of fault become, in
// the table's order.
func ChaosKinds() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, k := range trial.ChaosKindNames() {
		out = append(out, ChaosKind(k))
	}
	return out
}

// chaosBuilder adds the Chaos Mesh objects of one kind of fault (of its row's Chaos
// kind) through add: a part of the object's name and its spec; peers selects the
// pods of a role of the trial (a partition cuts the target off from them).
type chaosBuilder func(f *trial.Fault, add func(part string, spec map[string]any), peers func(role trial.FaultRole) (map[string]any, error)) error

// chaosBuilders build each kind of fault in the fault-kind table (a test holds
// them to it).
var chaosBuilders = map[trial.FaultKind]chaosBuilder{
	trial.FaultNetwork: networkChaos,
	trial.FaultPod:     podChaos,
	trial.FaultStress:  stressChaos,
}

// RoleFault labels a trial's fault objects.
const RoleFault = "fault"

// Chaos is the Chaos Mesh objects that apply trial t's fault in its attempt: a
// NetworkChaos per network action (netem for delay and loss, bandwidth, partition),
// a PodChaos or a StressChaos. Each lasts the fault's duration from its creation,
// so the operator creates them when the fault is due. An error says why the fault
// cannot be expressed for this experiment (nothing would be injected).
func Chaos(x *serdebenchv1.SerializationExperiment, t trial.Trial, attempt int) ([]*unstructured.Unstructured, error) {
	f := t.Fault
	if f == nil {
		return nil, nil
	}
	kind, err := f.Kind()
	if err != nil {
		return nil, err
	}
	if !trial.FaultKinds[kind].ChaosMesh() {
		// The operator acts itself: a consumers fault goes to a consumer's
		// control endpoint (controllers' groupEvent).
		return nil, nil
	}
	target, err := faultSelector(x, t, attempt, f.Target.Role, f.Target)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	add := func(part string, spec map[string]any) {
		spec["mode"] = string(f.Target.Pods)
		spec["selector"] = target
		if f.DurationSeconds > 0 {
			spec["duration"] = fmt.Sprintf("%ds", f.DurationSeconds)
		}
		o := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		o.SetGroupVersionKind(ChaosKind(kind))
		o.SetNamespace(x.Namespace)
		o.SetName(names.Fault(x.Name, string(x.UID), t.Index, part, attempt))
		labels := TrialLabels(x, t)
		labels[LabelRole] = RoleFault
		labels[LabelAttempt] = fmt.Sprint(attempt)
		o.SetLabels(labels)
		objs = append(objs, o)
	}
	build, ok := chaosBuilders[kind]
	if !ok {
		return nil, fmt.Errorf("fault %s: the operator has no builder for a %s fault", f.Name, kind)
	}
	peers := func(role trial.FaultRole) (map[string]any, error) {
		return faultSelector(x, t, attempt, role, f.Target)
	}
	if err := build(f, add, peers); err != nil {
		return nil, err
	}
	return objs, nil
}

// networkChaos is a NetworkChaos per network action: netem for delay and loss,
// bandwidth, partition.
func networkChaos(f *trial.Fault, add func(string, map[string]any), peers func(trial.FaultRole) (map[string]any, error)) error {
	n := f.Network
	if n.Delay != nil || n.LossPercent != "" {
		spec := map[string]any{"action": "netem", "direction": "to"}
		if d := n.Delay; d != nil {
			// chaos-daemon runs `tc ... netem delay <latency> <jitter>` without a
			// distribution, and netem without a table draws uniformly.
			if d.JitterMicroseconds > 0 && d.Distribution != trial.DistributionUniform {
				return fmt.Errorf("fault %s: Chaos Mesh cannot give a delay's jitter a %s distribution (netem draws it uniformly without a table): set distribution: uniform, or run it with serdebench run", f.Name, d.Distribution)
			}
			spec["delay"] = map[string]any{"latency": fmt.Sprintf("%dus", d.LatencyMicroseconds),
				"jitter": fmt.Sprintf("%dus", d.JitterMicroseconds), "correlation": fmt.Sprint(d.CorrelationPercent)}
		}
		if n.LossPercent != "" {
			spec["loss"] = map[string]any{"loss": n.LossPercent, "correlation": fmt.Sprint(n.LossCorrelationPercent)}
		}
		add("netem", spec)
	}
	if b := n.Bandwidth; b != nil {
		// Chaos Mesh's "bps" is bytes per second (tc's unit).
		add("bandwidth", map[string]any{"action": "bandwidth", "direction": "to", "bandwidth": map[string]any{
			"rate": fmt.Sprintf("%dbps", int64(b.RateKilobitsPerSecond)*1000/8), "buffer": int64(b.BufferBytes), "limit": int64(b.LimitBytes)}})
	}
	if n.Partition {
		// Cut off from the peers it talks to in this trial: the brokers from the
		// trial's workers, the workers from the brokers.
		peer := trial.RoleBrokers
		if f.Target.Role == trial.RoleBrokers {
			peer = ""
		}
		sel, err := peers(peer)
		if err != nil {
			return err
		}
		add("partition", map[string]any{"action": "partition", "direction": "both",
			"target": map[string]any{"mode": string(trial.PodsAll), "selector": sel}})
	}
	return nil
}

// podChaos is a PodChaos: a kill, a failure or a container kill.
func podChaos(f *trial.Fault, add func(string, map[string]any), _ func(trial.FaultRole) (map[string]any, error)) error {
	spec := map[string]any{"action": map[trial.PodAction]string{trial.PodKill: "pod-kill", trial.PodFailure: "pod-failure",
		trial.ContainerKill: "container-kill"}[f.Pod.Action]}
	if len(f.Pod.ContainerNames) > 0 {
		spec["containerNames"] = stringsAny(f.Pod.ContainerNames)
	}
	add("pod", spec)
	return nil
}

// stressChaos is a StressChaos with CPU and memory stressors.
func stressChaos(f *trial.Fault, add func(string, map[string]any), _ func(trial.FaultRole) (map[string]any, error)) error {
	stressors := map[string]any{}
	if c := f.Stress.CPU; c != nil {
		stressors["cpu"] = map[string]any{"workers": int64(c.Workers), "load": int64(c.LoadPercent)}
	}
	if m := f.Stress.Memory; m != nil {
		stressors["memory"] = map[string]any{"workers": int64(m.Workers), "size": fmt.Sprintf("%dMB", m.SizeMegabytes)}
	}
	add("stress", map[string]any{"stressors": stressors})
	return nil
}

// faultSelector is Chaos Mesh's pod selector for role: the brokers (Strimzi's
// broker pods, else target.matchLabels), the trial attempt's producers or
// consumers, or, with role "", all of the attempt's worker pods.
func faultSelector(x *serdebenchv1.SerializationExperiment, t trial.Trial, attempt int, role trial.FaultRole, target trial.FaultTarget) (map[string]any, error) {
	selector := func(namespace string, labels map[string]string) map[string]any {
		ls := map[string]any{}
		for k, v := range labels {
			ls[k] = v
		}
		return map[string]any{"namespaces": []any{namespace}, "labelSelectors": ls}
	}
	if role == trial.RoleBrokers {
		if len(target.MatchLabels) > 0 {
			return selector(defaultNamespace(target.Namespace, x), target.MatchLabels), nil
		}
		ns, labels, ok := BrokerPods(x)
		switch {
		case !ok && target.Role == trial.RoleBrokers:
			return nil, fmt.Errorf("a fault on the brokers of kafka.bootstrapServers needs their pods: kafka.brokerPods (or target.matchLabels)")
		case !ok:
			return nil, fmt.Errorf("a partition of the %s from the brokers needs the brokers' pods: a Strimzi cluster (kafka.strimzi) or kafka.brokerPods", target.Role)
		}
		return selector(ns, labels), nil
	}
	labels := TrialLabels(x, t)
	labels[LabelAttempt] = fmt.Sprint(attempt)
	if role != "" {
		if x.Spec.Workers.Colocate {
			return nil, fmt.Errorf("a fault on the %s needs them in pods of their own: workers.colocate runs producers and consumers in one pod", role)
		}
		labels[LabelRole] = map[trial.FaultRole]string{trial.RoleProducers: RoleProducer, trial.RoleConsumers: RoleConsumer}[role]
	}
	return selector(x.Namespace, labels), nil
}

func stringsAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
