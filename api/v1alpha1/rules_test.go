package v1alpha1_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/config/crd"
	"github.com/serdebench/serdebench/internal/testing/golden"
)

// schema is the part of an OpenAPI schema the rules live in.
type schema struct {
	Properties map[string]schema `json:"properties"`
	Items      *schema           `json:"items"`
	Rules      []struct {
		Rule, Message string
	} `json:"x-kubernetes-validations"`
}

// TestAdmissionRulesDoc: docs/api.md lists every rule the API server checks across
// fields of a SerializationExperiment (the CRD's CEL rules, with where each sits),
// generated from the CRD; a stale list fails (go test ./api/v1alpha1 -update
// rewrites it).
func TestAdmissionRulesDoc(t *testing.T) {
	var def struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema schema `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(crd.SerializationExperiments, &def); err != nil || len(def.Spec.Versions) == 0 {
		t.Fatalf("the CRD: %v", err)
	}
	var lines []string
	var walk func(path string, s schema)
	walk = func(path string, s schema) {
		for _, r := range s.Rules {
			lines = append(lines, fmt.Sprintf("- `%s`: %s", path, r.Message))
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range s.Properties {
				if !yield(k) {
					return
				}
			}
		}) {
			walk(path+"."+k, s.Properties[k])
		}
		if s.Items != nil {
			walk(path+"[]", *s.Items)
		}
	}
	walk("spec", def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"])
	if len(lines) < 20 {
		t.Fatalf("%d rules in the CRD: the walk missed them", len(lines))
	}
	golden.Section(t, filepath.Join("..", "..", "docs", "api.md"), "admission rules", strings.Join(lines, "\n"))
}
