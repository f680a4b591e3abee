package controllers_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/serdebench/serdebench/controllers/build"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestPodMonitorSelectsWorkers: the shipped PodMonitor decodes into
// prometheus-operator's typed API, is accepted by its CRD, and selects the worker
// pods the operator creates, keeping every container's metrics port — in a
// colocated pod each container has its own.
func TestPodMonitorSelectsWorkers(t *testing.T) {
	raw, err := os.ReadFile("../config/prometheus/podmonitor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pm monitoringv1.PodMonitor
	if err := yaml.UnmarshalStrict(raw, &pm); err != nil {
		t.Fatal(err)
	}
	if !pm.Spec.NamespaceSelector.Any || len(pm.Spec.PodMetricsEndpoints) != 1 {
		t.Fatalf("podmonitor %+v", pm.Spec)
	}
	ep := pm.Spec.PodMetricsEndpoints[0]
	if ep.Port != nil || ep.Interval != "1s" || len(ep.RelabelConfigs) != 1 || ep.RelabelConfigs[0].Action != "keep" {
		t.Fatalf("endpoint %+v", ep)
	}
	keep := regexp.MustCompile("^(?:" + ep.RelabelConfigs[0].Regex + ")$")
	sel, err := metav1.LabelSelectorAsSelector(&pm.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	// The pods of a real trial's Jobs.
	x := experiment("ns", "x", nil)
	x.UID = "0123456789abcdef"
	for _, role := range []string{"producers", "consumers"} {
		podLabels := labels.Set{build.LabelExperiment: x.Name, build.LabelTrial: "t000-json-256b",
			build.LabelManagedBy: "serdebench", build.LabelRole: role}
		if !sel.Matches(podLabels) {
			t.Errorf("PodMonitor does not select %s pods %v", role, podLabels)
		}
	}
	if sel.Matches(labels.Set{build.LabelManagedBy: "serdebench"}) {
		t.Error("PodMonitor selects non-worker serdebench pods")
	}
	// The real CRD accepts it.
	ns := newNamespace(t)
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		t.Fatal(err)
	}
	obj.SetNamespace(ns)
	if err := k8s.Create(context.Background(), obj); err != nil {
		t.Fatalf("create PodMonitor: %v", err)
	}
	// The ports of the Jobs the operator really creates, colocated and not: every
	// declared port is kept, and in a pod no two containers share a port or a name.
	brokers := kafkatest.Brokers(t)
	k := newKubelet(t, ns, brokers)
	k.set(func(k *kubelet) { k.hold = true })
	startManager(t, nil, k)
	for _, colocate := range []bool{false, true} {
		name := fmt.Sprintf("ports-%v", colocate)
		create(t, experiment(ns, name, func(x *serdebenchv1.SerializationExperiment) {
			x.Spec.Kafka = serdebenchv1.KafkaSpec{BootstrapServers: brokers[0]}
			x.Spec.Workers.Colocate = colocate
			x.Spec.Producers = 2
		}))
		want := 2
		if colocate {
			want = 1
		}
		var js []batchv1.Job
		waitFor(t, 30*time.Second, name+" jobs", func() (bool, error) {
			js = nil
			for _, j := range jobs(t, ns) {
				if j.Labels[build.LabelExperiment] == name {
					js = append(js, j)
				}
			}
			return len(js) == want, nil
		})
		for _, j := range js {
			ports, names := map[int32]bool{}, map[string]bool{}
			for _, c := range j.Spec.Template.Spec.Containers {
				if len(c.Ports) != 1 || !keep.MatchString(c.Ports[0].Name) || len(c.Ports[0].Name) > 15 {
					t.Fatalf("job %s container %s ports %+v: want one metrics port the PodMonitor keeps", j.Name, c.Name, c.Ports)
				}
				p := c.Ports[0]
				if ports[p.ContainerPort] || names[p.Name] {
					t.Fatalf("job %s: port %d (%s) used twice in one pod", j.Name, p.ContainerPort, p.Name)
				}
				ports[p.ContainerPort], names[p.Name] = true, true
				if !slices.Contains(c.Args, fmt.Sprintf("--metrics-addr=:%d", p.ContainerPort)) {
					t.Fatalf("job %s container %s listens elsewhere than its declared port %d: %v", j.Name, c.Name, p.ContainerPort, c.Args)
				}
			}
		}
	}
}
