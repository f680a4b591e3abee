package controllers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/trial"
	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
	"github.com/serdebench/serdebench/controllers/build"
	"github.com/serdebench/serdebench/controllers/chaos"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestChaosObjectsMatchChaosMesh: every fault object the builders make (their
// golden files, controllers/build/testdata/chaos-*.golden.yaml) is accepted by the
// real Chaos Mesh CRDs' schemas, and a malformed one is refused, so the check bites.
func TestChaosObjectsMatchChaosMesh(t *testing.T) {
	ns := newNamespace(t)
	ctx := context.Background()
	files, _ := filepath.Glob("build/testdata/chaos-*.golden.yaml")
	if len(files) < 8 {
		t.Fatalf("%d chaos golden files, want one per fault kind (8)", len(files))
	}
	kinds := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var objs []map[string]any
		if err := yaml.Unmarshal(raw, &objs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, o := range objs {
			u := &unstructured.Unstructured{Object: o}
			u.SetNamespace(ns)
			if err := k8s.Create(ctx, u, client.DryRunAll); err != nil {
				t.Errorf("%s: %s %s refused: %v", filepath.Base(f), u.GetKind(), u.GetName(), err)
			}
			kinds[u.GetKind()] = true
		}
	}
	for _, k := range []string{"NetworkChaos", "PodChaos", "StressChaos"} {
		if !kinds[k] {
			t.Errorf("no golden %s", k)
		}
	}

	bad := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "chaos-mesh.org/v1alpha1", "kind": "NetworkChaos",
		"metadata": map[string]any{"name": "bad", "namespace": ns},
		"spec":     map[string]any{"action": "jam", "mode": "all", "selector": map[string]any{"namespaces": []any{ns}}}}}
	if err := k8s.Create(ctx, bad, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "spec.action") {
		t.Errorf("a NetworkChaos with action jam: %v, want the schema to refuse spec.action", err)
	}
}

// TestFaultNotInjected runs a faulted trial where Chaos Mesh's CRDs are served but
// nothing acts on its objects (as when chaos-controller-manager is down, or selects
// no pod): the operator creates the fault's objects when the fault is due — owned
// by the experiment, labelled with the trial and attempt — and, when Chaos Mesh
// does not apply it in time, fails the trial with FaultNotInjected and deletes the
// objects, rather than measure a healthy system under the fault's name. A scenario
// that cannot be expressed for the experiment's pods fails it before any topic.
func TestFaultNotInjected(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	ctx := context.Background()
	var seen atomic.Int32
	startManager(t, func(r *controllers.ExperimentReconciler) {
		r.FaultInjectTimeout = 2 * time.Second
		r.AfterSideEffect = func(x *serdebenchv1.SerializationExperiment, what string) {
			if what != "fault created" {
				return
			}
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(schema.GroupVersionKind{Group: "chaos-mesh.org", Version: "v1alpha1", Kind: "NetworkChaosList"})
			if err := k8s.List(ctx, list, client.InNamespace(ns)); err != nil {
				t.Errorf("list NetworkChaos: %v", err)
				return
			}
			for _, o := range list.Items {
				owners := o.GetOwnerReferences()
				if len(owners) != 1 || owners[0].UID != x.UID || o.GetLabels()[build.LabelTrial] != x.Status.Trials[0].Name || o.GetLabels()[build.LabelAttempt] != "1" {
					t.Errorf("fault object %s: owners %+v labels %v", o.GetName(), owners, o.GetLabels())
				}
				seen.Add(1)
			}
		}
	}, newKubelet(t, ns, brokers))
	withFault := func(name string, kafka serdebenchv1.KafkaSpec) *serdebenchv1.SerializationExperiment {
		return experiment(ns, name, func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Codecs = []trial.Codec{"protobuf"}
			x.Spec.Records, x.Spec.DurationSeconds, x.Spec.IntervalSeconds = nil, ptr(int32(12)), 1
			x.Spec.Warmup = trial.Warmup{DurationSeconds: 1}
			x.Spec.Rate.RecordsPerSecond = 200
			x.Spec.Kafka = kafka
			x.Spec.Faults = &serdebenchv1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{{Name: "loss-5", StartSeconds: 2, DurationSeconds: 5,
				Network: &trial.NetworkFault{LossPercent: "5"}}}}
		})
	}

	create(t, withFault("bootstrap", serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}))
	x := waitStage(t, ns, "bootstrap", serdebenchv1.StageFailed, 20*time.Second)
	if c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed); c == nil || c.Reason != controllers.ReasonInvalidSpec || !strings.Contains(c.Message, "kafka.brokerPods (or target.matchLabels)") {
		t.Errorf("bootstrap: failed condition %+v", c)
	}
	if len(x.Status.Trials) != 0 {
		t.Errorf("bootstrap: %d trials planned", len(x.Status.Trials))
	}

	create(t, withFault("strimzi", serdebenchv1.KafkaSpec{Strimzi: &serdebenchv1.StrimziKafka{ClusterName: standInCluster, BootstrapServers: brokers[0]}}))
	x = waitStage(t, ns, "strimzi", serdebenchv1.StageFailed, 60*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonFaultNotInjected || !strings.Contains(c.Message, "Chaos Mesh did not apply the fault within 2s: it has not selected the target pods") {
		t.Fatalf("strimzi: failed condition %+v", c)
	}
	fs := x.Status.Trials[0].Fault
	if fs == nil || fs.DueTime == nil || fs.CreateTime == nil || fs.InjectedTime != nil || len(fs.Objects) != 1 || !strings.HasPrefix(fs.Objects[0], "NetworkChaos/") {
		t.Fatalf("fault status %+v", fs)
	}
	// Created when due, not before: the producers' start, 1 s of warmup, 2 s in.
	if lead := fs.CreateTime.Sub(fs.DueTime.Time); lead < 0 || lead > 5*time.Second {
		t.Errorf("fault created %s after it was due", lead)
	}
	if seen.Load() != 1 {
		t.Errorf("%d NetworkChaos objects when the fault was created, want 1", seen.Load())
	}
	waitFor(t, 10*time.Second, "the fault's objects deleted", func() (bool, error) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Group: "chaos-mesh.org", Version: "v1alpha1", Kind: "NetworkChaosList"})
		err := k8s.List(ctx, list, client.InNamespace(ns))
		return err == nil && len(list.Items) == 0, err
	})
}

// TestChaosMeshNotInstalled: an experiment whose faults need a Chaos Mesh kind the
// API server does not serve waits, Accepted=False with reason
// ChaosMeshNotInstalled naming the kind, before any topic; once Chaos Mesh's CRD is
// installed (GitOps may apply it later) it is accepted.
func TestChaosMeshNotInstalled(t *testing.T) {
	ns := newNamespace(t)
	ctx := context.Background()
	crdGVK := schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(crdGVK)
	if err := k8s.Get(ctx, client.ObjectKey{Name: "stresschaos.chaos-mesh.org"}, crd); err != nil {
		t.Fatal(err)
	}
	install := func() {
		again := crd.DeepCopy()
		again.SetResourceVersion("")
		again.SetUID("")
		again.SetCreationTimestamp(metav1.Time{})
		again.SetManagedFields(nil)
		delete(again.Object, "status")
		if err := k8s.Create(ctx, again); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("reinstall the StressChaos CRD: %v", err)
		}
		waitFor(t, 30*time.Second, "the StressChaos CRD established", func() (bool, error) {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(crdGVK)
			if err := k8s.Get(ctx, client.ObjectKey{Name: crd.GetName()}, got); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
	}
	if err := k8s.Delete(ctx, crd.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(install) // the other tests' CRD, whatever happens here
	waitFor(t, 30*time.Second, "the StressChaos CRD gone", func() (bool, error) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(crdGVK)
		err := k8s.Get(ctx, client.ObjectKey{Name: crd.GetName()}, got)
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})

	startManager(t, nil) // a fresh RESTMapper, which has never seen StressChaos
	create(t, experiment(ns, "squeeze", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Records, x.Spec.DurationSeconds, x.Spec.IntervalSeconds = nil, ptr(int32(30)), 1
		x.Spec.Warmup = trial.Warmup{DurationSeconds: 1}
		x.Spec.Faults = &serdebenchv1.Faults{Scenarios: []trial.Fault{{Name: "cpu", StartSeconds: 2, DurationSeconds: 5,
			Target: trial.FaultTarget{Role: trial.RoleProducers}, Stress: &trial.StressFault{CPU: &trial.CPUStress{Workers: 1}}}}}
	}))
	waitFor(t, 20*time.Second, "ChaosMeshNotInstalled", func() (bool, error) {
		c := meta.FindStatusCondition(get(t, ns, "squeeze").Status.Conditions, serdebenchv1.ConditionAccepted)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == controllers.ReasonChaosMeshNotInstalled && strings.Contains(c.Message, "StressChaos"), nil
	})
	if x := get(t, ns, "squeeze"); len(x.Status.Trials) != 0 {
		t.Fatalf("%d trials planned without Chaos Mesh", len(x.Status.Trials))
	}
	install()
	waitFor(t, 30*time.Second, "accepted once Chaos Mesh is installed", func() (bool, error) {
		return meta.IsStatusConditionTrue(get(t, ns, "squeeze").Status.Conditions, serdebenchv1.ConditionAccepted), nil
	})
	if err := k8s.Delete(ctx, get(t, ns, "squeeze")); err != nil {
		t.Fatal(err)
	}
}

// TestFaultAppliedOnceAndRemoved runs a faulted trial to its end with the Chaos
// Mesh stand-in: a CPU stress on the producers is created when due, applied to the
// producer pod, recovered after its duration and deleted; the trial and its result
// record when. The operator crashes right after creating the fault and right after
// deleting it (the status write that follows each is lost): the fault is still
// applied once, by one object, and removed.
func TestFaultAppliedOnceAndRemoved(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	ctx := context.Background()
	cm := newChaosMesh(t, ns)
	var mu sync.Mutex
	crashed := map[string]bool{}
	startManager(t, func(r *controllers.ExperimentReconciler) {
		r.AfterSideEffect = func(_ *serdebenchv1.SerializationExperiment, what string) {
			if what != "fault created" && what != "fault deleted" {
				return
			}
			mu.Lock()
			first := !crashed[what]
			crashed[what] = true
			mu.Unlock()
			if first {
				panic("injected crash after " + what)
			}
		}
	}, newKubelet(t, ns, brokers))
	create(t, experiment(ns, "squeeze", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Codecs = []trial.Codec{"protobuf"}
		x.Spec.Records, x.Spec.DurationSeconds, x.Spec.IntervalSeconds = nil, ptr(int32(10)), 1
		x.Spec.Warmup = trial.Warmup{DurationSeconds: 1}
		x.Spec.Rate.RecordsPerSecond = 200
		x.Spec.Faults = &serdebenchv1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{{Name: "cpu", StartSeconds: 2, DurationSeconds: 3,
			Target: trial.FaultTarget{Role: trial.RoleProducers}, Stress: &trial.StressFault{CPU: &trial.CPUStress{Workers: 1}}}}}
	}))
	x := waitStage(t, ns, "squeeze", serdebenchv1.StageSucceeded, 90*time.Second)
	mu.Lock()
	if !crashed["fault created"] || !crashed["fault deleted"] {
		t.Errorf("crashes injected: %v", crashed)
	}
	mu.Unlock()
	fs := x.Status.Trials[0].Fault
	if fs == nil || fs.InjectedTime == nil || fs.RecoveredTime == nil || fs.Phase != serdebenchv1.FaultRemoved || len(fs.Objects) != 1 || !strings.HasPrefix(fs.Objects[0], "StressChaos/") {
		t.Fatalf("fault status %+v", fs)
	}
	if d := fs.RecoveredTime.Sub(fs.InjectedTime.Time); d < 2*time.Second || d > 6*time.Second {
		t.Errorf("fault in force %s, want its 3 s (timestamps to the second)", d)
	}
	if len(fs.Targets) != 1 || !strings.HasPrefix(fs.Targets[0], ns+"/squeeze-") || !strings.Contains(fs.Targets[0], "-producers-") {
		t.Errorf("fault targets %v, want the trial's producer pod", fs.Targets)
	}
	// A second creation would be a second object (another UID) applied again.
	if applies := cm.applies(); len(applies) != 1 {
		t.Errorf("applied by %d objects, want 1: %v", len(applies), applies)
	}
	res := &serdebenchv1.SerializationResult{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "squeeze"}, res); err != nil {
		t.Fatal(err)
	}
	if f := res.Trials[0].Fault; f == nil || f.Name != "cpu" || f.InjectedTime == nil || !strings.HasSuffix(res.Trials[0].Name, "-cpu") {
		t.Errorf("result trial %s fault %+v", res.Trials[0].Name, f)
	}
	// The result is split at the fault's recorded window, and the phases hold every
	// measured record.
	if ph := res.Trials[0].Phases; ph == nil || ph.Before == nil || ph.During == nil || ph.During.Records == 0 || ph.ResolutionSeconds != 1 || ph.RecoveryFrom != "FaultEnd" {
		t.Errorf("result phases %+v", ph)
	} else {
		n := ph.Before.Records + ph.During.Records
		if ph.After != nil {
			n += ph.After.Records
		}
		if n != res.Trials[0].Records || ph.During.StartMillis > ph.FaultStartMillis || ph.FaultEndMillis == nil || *ph.FaultEndMillis <= ph.FaultStartMillis {
			t.Errorf("phases hold %d of %d records; during starts at %d ms, the fault from %d ms to %v", n, res.Trials[0].Records, ph.During.StartMillis, ph.FaultStartMillis, ph.FaultEndMillis)
		}
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "chaos-mesh.org", Version: "v1alpha1", Kind: "StressChaosList"})
	if err := k8s.List(ctx, list, client.InNamespace(ns)); err != nil || len(list.Items) != 0 {
		t.Errorf("StressChaos left: %d (%v)", len(list.Items), err)
	}
}

// TestUnappliedFaultReleased: a NetworkChaos on the producers, which Chaos Mesh
// selects but cannot apply on this kernel (its records wait, and its finalizer
// stays), fails the trial with FaultNotInjected and Chaos Mesh's message; once
// Chaos Mesh has seen the deletion, the operator withdraws the rules Chaos Mesh
// wrote into the pod's PodNetworkChaos and removes the object's finalizer, so
// nothing is left.
func TestUnappliedFaultReleased(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	ns := newNamespace(t)
	ctx := context.Background()
	newChaosMesh(t, ns)
	startManager(t, func(r *controllers.ExperimentReconciler) { r.FaultInjectTimeout = 2 * time.Second }, newKubelet(t, ns, brokers))
	create(t, experiment(ns, "jam", func(x *serdebenchv1.SerializationExperiment) {
		x.Spec.Codecs = []trial.Codec{"protobuf"}
		x.Spec.Records, x.Spec.DurationSeconds, x.Spec.IntervalSeconds = nil, ptr(int32(10)), 1
		x.Spec.Warmup = trial.Warmup{DurationSeconds: 1}
		x.Spec.Rate.RecordsPerSecond = 200
		x.Spec.Faults = &serdebenchv1.Faults{Baseline: ptr(false), Scenarios: []trial.Fault{{Name: "loss", StartSeconds: 2, DurationSeconds: 3,
			Target: trial.FaultTarget{Role: trial.RoleProducers}, Network: &trial.NetworkFault{LossPercent: "5"}}}}
	}))
	x := waitStage(t, ns, "jam", serdebenchv1.StageFailed, 60*time.Second)
	c := meta.FindStatusCondition(x.Status.Conditions, serdebenchv1.ConditionFailed)
	if c == nil || c.Reason != controllers.ReasonFaultNotInjected || !strings.Contains(c.Message, "Specified qdisc kind is unknown") {
		t.Fatalf("failed condition %+v, want FaultNotInjected with Chaos Mesh's message", c)
	}
	// Its retries' events are one message with a count.
	if n := strings.Count(c.Message, "Failed to apply chaos"); n != 1 || !strings.Contains(c.Message, "is unknown. (3 times)") {
		t.Errorf("Chaos Mesh's repeated event said %d times, want once with its count: %s", n, c.Message)
	}
	waitFor(t, 20*time.Second, "the never-applied NetworkChaos released and gone", func() (bool, error) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(schema.GroupVersionKind{Group: "chaos-mesh.org", Version: "v1alpha1", Kind: "NetworkChaosList"})
		err := k8s.List(ctx, list, client.InNamespace(ns))
		return err == nil && len(list.Items) == 0, err
	})
	// Its rules, which waited in the producer pod's PodNetworkChaos for a daemon,
	// were withdrawn first: no daemon can apply them later.
	pncs := &unstructured.UnstructuredList{}
	pncs.SetGroupVersionKind(chaos.PodNetworkChaosKind.GroupVersion().WithKind("PodNetworkChaosList"))
	if err := k8s.List(ctx, pncs, client.InNamespace(ns)); err != nil || len(pncs.Items) == 0 {
		t.Fatalf("PodNetworkChaos: %d (%v), want the producer's", len(pncs.Items), err)
	}
	for _, p := range pncs.Items {
		if tcs, _, _ := unstructured.NestedSlice(p.Object, "spec", "tcs"); len(tcs) != 0 {
			t.Errorf("PodNetworkChaos %s still holds %v", p.GetName(), tcs)
		}
	}
}
