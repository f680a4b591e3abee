// Package experiment reads SerializationExperiment files strictly: unknown fields,
// wrong types and invalid values are errors that name the field.
package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// Load reads and validates an experiment file (YAML or JSON): the same
// SerializationExperiment the operator runs. Locally the cluster-only fields (kafka,
// workers, timeoutSeconds, cleanupPolicy) are optional and only kafka.bootstrapServers
// is used, as the default bootstrap address.
func Load(path string) (*v1alpha1.SerializationExperiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read experiment: %w", err)
	}
	return Parse(data)
}

// Parse decodes and validates an experiment document.
func Parse(data []byte) (*v1alpha1.SerializationExperiment, error) {
	// YAML to JSON without the target type, then strict JSON: what kubectl and the
	// API server do. (yaml.UnmarshalStrict's type-guided conversion turns
	// warmup.records into a spec.records of 0 through the inlined ExperimentSpec.)
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("invalid experiment: %w", err)
	}
	var x v1alpha1.SerializationExperiment
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("invalid experiment: %w", err)
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
	x.Spec.Default()
	errs := x.Spec.Validate(field.NewPath("spec"))
	if k := x.Spec.Kafka; k.Strimzi != nil && k.BootstrapServers != "" {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "kafka", "bootstrapServers"), "set exactly one of strimzi and bootstrapServers"))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("invalid experiment: %w", errs.ToAggregate())
	}
	return &x, nil
}
