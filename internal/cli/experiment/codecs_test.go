package experiment

import (
	"os"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/codec"
)

// TestCodecEnumMatchesWorkers: the CRD admits exactly the codecs the runtimes' workers
// have (api/trial.Runtimes; each worker's own test checks its row), so no admitted
// experiment fails at the worker and no codec is unreachable; the Go worker's at once.
func TestCodecEnumMatchesWorkers(t *testing.T) {
	raw, err := os.ReadFile("../../../config/crd/bases/serdebench.io_serializationexperiments.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		t.Fatal(err)
	}
	items := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["codecs"].Items.Schema
	var enum []string
	for _, v := range items.Enum {
		enum = append(enum, strings.Trim(string(v.Raw), `"`))
	}
	var every []string
	for _, r := range trial.Runtimes {
		for _, c := range r.Codecs {
			if !slices.Contains(every, string(c)) {
				every = append(every, string(c))
			}
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(enum)), slices.Sorted(slices.Values(every))) {
		t.Fatalf("CRD enum %v, workers %v", enum, every)
	}
	want := codec.Names()
	all := header + "spec:\n  codecs: [" + strings.Join(want, ", ") + "]\n  payload: {schema: simple, sizesBytes: [256]}\n  records: 1\n"
	// The registry codecs need a registry: admission says so.
	if _, err := Parse([]byte(all)); err == nil || !strings.Contains(err.Error(), "needs kafka.schemaRegistry.url") {
		t.Fatalf("registry codecs without a registry: %v", err)
	}
	x, err := Parse([]byte(all + "  kafka: {bootstrapServers: 'k:9092', schemaRegistry: {url: 'http://registry:8080/apis/ccompat/v7'}}\n"))
	if err != nil {
		t.Fatalf("every codec at once: %v", err)
	}
	if _, err := Parse([]byte(all + "  kafka: {bootstrapServers: 'k:9092', schemaRegistry: {url: 'registry:8080'}}\n")); err == nil {
		t.Fatal("a registry URL without a scheme was admitted")
	}
	if len(x.Spec.Codecs) != len(want) {
		t.Fatalf("admitted %d codecs, want %d", len(x.Spec.Codecs), len(want))
	}
}
