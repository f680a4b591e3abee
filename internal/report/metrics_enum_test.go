package report

import (
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/config/crd"
)

// TestMetricEnumsMatchTheCRD: admission knows the metric names this package
// computes: spec.objective's (every metric) and spec.repeatUntil.metrics' (those
// with a median), in Metrics' order, so a name no result has is refused with the
// field named instead of at the experiment's start.
func TestMetricEnumsMatchTheCRD(t *testing.T) {
	type s struct {
		Properties map[string]s `json:"properties"`
		Items      *s           `json:"items"`
		Enum       []string     `json:"enum"`
	}
	var def struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema s `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(crd.SerializationExperiments, &def); err != nil || len(def.Spec.Versions) == 0 {
		t.Fatalf("the CRD: %v", err)
	}
	spec := def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	var all, median []string
	for _, m := range Metrics {
		all = append(all, m.Name)
		if !m.Total {
			median = append(median, m.Name)
		}
	}
	obj := spec.Properties["objective"]
	for path, got := range map[string][]string{
		"spec.objective.optimize":             obj.Properties["optimize"].Enum,
		"spec.objective.constraints[].metric": obj.Properties["constraints"].Items.Properties["metric"].Enum,
		"spec.repeatUntil.metrics[]":          spec.Properties["repeatUntil"].Properties["metrics"].Items.Enum,
	} {
		want := all
		if path == "spec.repeatUntil.metrics[]" {
			want = median
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the CRD admits %q, the metrics are %q", path, got, want)
		}
	}
}
