// Package experiment reads SerializationExperiment files as the API server would
// admit them: unknown fields, duplicate keys and wrong types are errors, the CRD's
// defaults are applied, and its schema and CEL rules are checked (internal/cli/admission),
// so a file is valid here exactly when `kubectl apply` would accept it.
package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/admission"
)

// LocalBootstrap stands in for spec.kafka when a file has none: locally the
// cluster-only fields (kafka, workers, timeoutSeconds, cleanupPolicy, retries) are
// optional, and kafka.bootstrapServers is only the default bootstrap address.
const LocalBootstrap = "127.0.0.1:9092"

// Load reads and admits an experiment file (YAML or JSON).
func Load(path string) (*v1alpha1.SerializationExperiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read experiment: %w", err)
	}
	return Parse(data)
}

// Parse decodes and admits an experiment document; the result has every default
// applied.
func Parse(data []byte) (*v1alpha1.SerializationExperiment, error) {
	// YAML to JSON without the target type, then strict JSON: what kubectl and the
	// API server do. (yaml.UnmarshalStrict's type-guided conversion turns
	// warmup.records into a spec.records of 0 through the inlined ExperimentSpec.)
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("invalid experiment: %w", err)
	}
	var x v1alpha1.SerializationExperiment
	if err := decodeStrict(js, &x); err != nil {
		return nil, err
	}
	want := v1alpha1.Group + "/" + v1alpha1.Version
	if x.APIVersion != want {
		return nil, fmt.Errorf("invalid experiment: apiVersion: must be %q, got %q", want, x.APIVersion)
	}
	if x.Kind != v1alpha1.Kind {
		return nil, fmt.Errorf("invalid experiment: kind: must be %q, got %q", v1alpha1.Kind, x.Kind)
	}
	if x.Name == "" {
		return nil, fmt.Errorf("invalid experiment: metadata.name: Required value")
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(js, &obj); err != nil { // integers as int64, as the API server decodes
		return nil, fmt.Errorf("invalid experiment: %w", err)
	}
	if spec, ok := obj["spec"].(map[string]any); ok && spec["kafka"] == nil {
		spec["kafka"] = map[string]any{"bootstrapServers": LocalBootstrap}
	}
	v, err := admission.Experiments()
	if err != nil {
		return nil, err
	}
	if errs := v.Admit(obj); len(errs) > 0 {
		return nil, fmt.Errorf("invalid experiment: %w", errs.ToAggregate())
	}
	admitted, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode admitted experiment: %w", err)
	}
	var out v1alpha1.SerializationExperiment
	if err := decodeStrict(admitted, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func decodeStrict(js []byte, x *v1alpha1.SerializationExperiment) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(x); err != nil {
		return fmt.Errorf("invalid experiment: %w", err)
	}
	return nil
}
