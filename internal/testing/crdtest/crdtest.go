// Package crdtest reads the SerializationExperiment CRD that `make manifests`
// generates, for tests that hold lists and rules in the code to what admission
// checks (enum values, CEL rules), by the spec's field paths.
package crdtest

import (
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/config/crd"
)

// Spec is the schema of the experiment's spec (the CRD's one version).
func Spec(t testing.TB) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(crd.SerializationExperiments, &def); err != nil {
		t.Fatalf("decode the SerializationExperiment CRD: %v", err)
	}
	if len(def.Spec.Versions) != 1 || def.Spec.Versions[0].Schema == nil {
		t.Fatalf("the SerializationExperiment CRD has %d versions, want one with a schema", len(def.Spec.Versions))
	}
	spec, ok := def.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if !ok {
		t.Fatal("the SerializationExperiment CRD has no spec")
	}
	return spec
}

// At is the schema at path below the spec: property names separated by dots, "[]"
// after a list's name for its items ("faults.scenarios[]").
func At(t testing.TB, path string) apiextensionsv1.JSONSchemaProps {
	t.Helper()
	s := Spec(t)
	for _, p := range strings.Split(path, ".") {
		name, items := strings.CutSuffix(p, "[]")
		next, ok := s.Properties[name]
		if !ok {
			t.Fatalf("the CRD has no spec.%s (at %s)", path, name)
		}
		s = next
		if items {
			if s.Items == nil || s.Items.Schema == nil {
				t.Fatalf("spec.%s: %s is not a list", path, name)
			}
			s = *s.Items.Schema
		}
	}
	return s
}

// Enum is the schema's enum values, as strings.
func Enum(t testing.TB, s apiextensionsv1.JSONSchemaProps) []string {
	t.Helper()
	out := make([]string, len(s.Enum))
	for i, v := range s.Enum {
		if err := json.Unmarshal(v.Raw, &out[i]); err != nil {
			t.Fatalf("enum value %s: %v", v.Raw, err)
		}
	}
	return out
}
