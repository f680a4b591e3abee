package trial

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/config/crd"
)

// TestEnumListsMatchTheCRD: each list of enum values holds exactly what the CRD
// admits where the spec sets it (from the type's Enum marker), in its order.
func TestEnumListsMatchTheCRD(t *testing.T) {
	var def struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema schema `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(crd.SerializationExperiments, &def); err != nil {
		t.Fatal(err)
	}
	if len(def.Spec.Versions) == 0 {
		t.Fatal("the CRD has no version")
	}
	root := def.Spec.Versions[0].Schema.OpenAPIV3Schema
	for path, list := range map[string][]string{
		"spec.client":               names(Clients),
		"spec.mode":                 names(Modes),
		"spec.producer.acks":        names(AcksLevels),
		"spec.producer.compression": names(Compressions),
		"spec.payload.compression":  names(PayloadCompressions),
	} {
		s := root
		for _, p := range strings.Split(path, ".") {
			s = s.Properties[p]
		}
		if len(s.Enum) == 0 || !slices.Equal(s.Enum, list) {
			t.Errorf("CRD %s enum %q, the list %q", path, s.Enum, list)
		}
	}
	if DefaultClient.OrDefault() != DefaultClient || Client("").OrDefault() != DefaultClient {
		t.Fatalf("OrDefault: %q, %q", DefaultClient.OrDefault(), Client("").OrDefault())
	}
}

type schema struct {
	Properties map[string]schema `json:"properties"`
	Enum       []string          `json:"enum"`
}

func names[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
