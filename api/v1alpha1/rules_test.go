package v1alpha1_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/serdebench/serdebench/internal/testing/crdtest"
	"github.com/serdebench/serdebench/internal/testing/golden"
)

// TestAdmissionRulesDoc: docs/api.md lists every rule the API server checks across
// fields of a SerializationExperiment (the CRD's CEL rules, with where each sits),
// generated from the CRD; a stale list fails (go test ./api/v1alpha1 -update
// rewrites it).
func TestAdmissionRulesDoc(t *testing.T) {
	var lines []string
	var walk func(path string, s apiextensionsv1.JSONSchemaProps)
	walk = func(path string, s apiextensionsv1.JSONSchemaProps) {
		for _, r := range s.XValidations {
			lines = append(lines, fmt.Sprintf("- `%s`: %s", path, r.Message))
		}
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			walk(path+"."+k, s.Properties[k])
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(path+"[]", *s.Items.Schema)
		}
	}
	walk("spec", crdtest.Spec(t))
	if len(lines) < 20 {
		t.Fatalf("%d rules in the CRD: the walk missed them", len(lines))
	}
	golden.Section(t, filepath.Join("..", "..", "docs", "api.md"), "admission rules", strings.Join(lines, "\n"))
}
