package controllers_test

import (
	"context"
	"os"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/controllers"
)

// TestPodMonitorSelectsWorkers: the shipped PodMonitor decodes into
// prometheus-operator's typed API, is accepted by its CRD, and selects the worker
// pods the operator creates, on their metrics port.
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
	if ep.Port == nil || *ep.Port != "metrics" || ep.Interval != "1s" {
		t.Fatalf("endpoint %+v", ep)
	}
	sel, err := metav1.LabelSelectorAsSelector(&pm.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	// The pods of a real trial's Jobs.
	x := experiment("ns", "x", nil)
	x.UID = "0123456789abcdef"
	for _, role := range []string{"producers", "consumers"} {
		podLabels := labels.Set{controllers.LabelExperiment: x.Name, controllers.LabelTrial: "t000-json-256b",
			controllers.LabelManagedBy: "serdebench", controllers.LabelRole: role}
		if !sel.Matches(podLabels) {
			t.Errorf("PodMonitor does not select %s pods %v", role, podLabels)
		}
	}
	if sel.Matches(labels.Set{controllers.LabelManagedBy: "serdebench"}) {
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
	_ = serdebenchv1.GroupVersion
}
