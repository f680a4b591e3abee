// Package experiment reads SerializationExperiment files (or a
// SerializationSchedule's, as the experiment one of its runs creates) as the API
// server would admit them: unknown fields, duplicate keys and wrong types are errors, the CRD's
// defaults are applied, and its schema and CEL rules are checked (internal/cli/admission),
// so a file is valid here exactly when `kubectl apply` would accept it.
package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kjson "sigs.k8s.io/json"

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
// applied. Errors name the field by its path, as the API server reports them
// (spec.producer.commit: unknown field; spec.faults.baseline: Invalid value:
// "string": ... must be of type boolean), never by a Go type.
func Parse(data []byte) (*v1alpha1.SerializationExperiment, error) {
	// YAML to JSON without the target type, then JSON: what kubectl and the API
	// server do. (yaml.UnmarshalStrict's type-guided conversion turns
	// warmup.records into a spec.records of 0 through the inlined ExperimentSpec.)
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("invalid experiment: %w", err)
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(js, &obj); err != nil { // integers as int64, as the API server decodes
		return nil, fmt.Errorf("invalid experiment: not an object: %w", err)
	}
	want := v1alpha1.Group + "/" + v1alpha1.Version
	if got, _ := obj["apiVersion"].(string); got != want {
		return nil, fmt.Errorf("invalid experiment: apiVersion: must be %q, got %v", want, obj["apiVersion"])
	}
	if got, _ := obj["kind"].(string); got == v1alpha1.ScheduleKind {
		if obj, err = template(obj); err != nil {
			return nil, err
		}
	} else if got != v1alpha1.Kind {
		return nil, fmt.Errorf("invalid experiment: kind: must be %q (or %q, whose template runs), got %v", v1alpha1.Kind, v1alpha1.ScheduleKind, obj["kind"])
	}
	if err := metadata("experiment", obj["metadata"]); err != nil {
		return nil, err
	}
	v, err := admission.Experiments()
	if err != nil {
		return nil, err
	}
	if spec, ok := obj["spec"].(map[string]any); ok && spec["kafka"] == nil {
		spec["kafka"] = map[string]any{"bootstrapServers": LocalBootstrap}
	}
	if err := admit("experiment", v, obj); err != nil {
		return nil, err
	}
	return decode[v1alpha1.SerializationExperiment]("experiment", obj)
}

// admit checks obj (a whole object, as decoded from JSON) as the API server
// would: unknown fields first, then defaults, schema and CEL rules (in place).
func admit(kind string, v *admission.Validator, obj map[string]any) error {
	if unknown := v.Unknown(obj); len(unknown) > 0 {
		errs := make([]error, len(unknown))
		for i, p := range unknown {
			errs[i] = fmt.Errorf("%s: unknown field", p)
		}
		return invalid(kind, errs)
	}
	if errs := v.Admit(obj); len(errs) > 0 {
		return invalid(kind, errs.ToAggregate().Errors())
	}
	return nil
}

// decode is the admitted obj as a T. Admitted, the object decodes: an error
// here is serdebench's, not the file's.
func decode[T any](kind string, obj map[string]any) (*T, error) {
	admitted, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode admitted %s: %w", kind, err)
	}
	var out T
	dec := json.NewDecoder(bytes.NewReader(admitted))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("decode the admitted %s (a serdebench bug: the CRD and the Go types disagree): %w", kind, err)
	}
	return &out, nil
}

// template is the experiment one run of the schedule obj creates: admitted as a
// schedule first (so an error names the file's path,
// spec.experimentTemplate.spec.…), then named after the schedule with the
// template's labels. Its spec is admitted as an experiment's by the caller.
func template(obj map[string]any) (map[string]any, error) {
	if err := metadata("schedule", obj["metadata"]); err != nil {
		return nil, err
	}
	if err := admitSchedule(obj); err != nil {
		return nil, err
	}
	// Admitted, these are objects (the schema requires them).
	name, _, _ := unstructured.NestedString(obj, "metadata", "name")
	tmpl, _, _ := unstructured.NestedMap(obj, "spec", "experimentTemplate")
	meta := map[string]any{"name": name}
	if labels, ok := tmpl["labels"]; ok {
		meta["labels"] = labels
	}
	return map[string]any{"apiVersion": obj["apiVersion"], "kind": v1alpha1.Kind, "metadata": meta, "spec": tmpl["spec"]}, nil
}

// admitSchedule admits the schedule obj in place, as the API server would.
func admitSchedule(obj map[string]any) error {
	v, err := admission.Schedules()
	if err != nil {
		return err
	}
	if spec, ok, _ := unstructured.NestedMap(obj, "spec", "experimentTemplate", "spec"); ok && spec["kafka"] == nil {
		// Locally the template's kafka is optional, as an experiment's (LocalBootstrap).
		_ = unstructured.SetNestedField(obj, map[string]any{"bootstrapServers": LocalBootstrap}, "spec", "experimentTemplate", "spec", "kafka")
	}
	return admit("schedule", v, obj)
}

// LoadSchedule reads and admits a SerializationSchedule file (YAML or JSON):
// what `serdebench compare --schedule` takes its options from.
func LoadSchedule(path string) (*v1alpha1.SerializationSchedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read schedule: %w", err)
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("invalid schedule: %w", err)
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(js, &obj); err != nil {
		return nil, fmt.Errorf("invalid schedule: not an object: %w", err)
	}
	if got, _ := obj["kind"].(string); got != v1alpha1.ScheduleKind || obj["apiVersion"] != v1alpha1.Group+"/"+v1alpha1.Version {
		return nil, fmt.Errorf("invalid schedule: want apiVersion %s/%s, kind %s; got %v, %v", v1alpha1.Group, v1alpha1.Version, v1alpha1.ScheduleKind, obj["apiVersion"], obj["kind"])
	}
	if err := metadata("schedule", obj["metadata"]); err != nil {
		return nil, err
	}
	if err := admitSchedule(obj); err != nil {
		return nil, err
	}
	return decode[v1alpha1.SerializationSchedule]("schedule", obj)
}

// invalid says what is wrong, one error per line as kubectl prints them.
func invalid(kind string, errs []error) error {
	if len(errs) == 1 {
		return fmt.Errorf("invalid %s: %w", kind, errs[0])
	}
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = "* " + e.Error()
	}
	return fmt.Errorf("invalid %s:\n%s", kind, strings.Join(lines, "\n"))
}

// metadata checks the object's metadata as the API server decodes it: an object
// with known fields only, and a name.
func metadata(kind string, m any) error {
	js, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("invalid %s: metadata: %w", kind, err)
	}
	// As the API server decodes it: case-sensitive (Name is not name), unknown
	// fields named by their path.
	var meta metav1.ObjectMeta
	strict, err := kjson.UnmarshalStrict(js, &meta)
	if err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return fmt.Errorf("invalid %s: metadata.%s: expected %s, got %s", kind, typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return fmt.Errorf("invalid %s: metadata: %w", kind, err)
	}
	if len(strict) > 0 {
		errs := make([]error, len(strict))
		for i, e := range strict {
			errs[i] = fmt.Errorf("metadata: %w", e)
			var fe kjson.FieldError
			if errors.As(e, &fe) {
				what, _, _ := strings.Cut(e.Error(), ` "`) // unknown field "path", duplicate field "path"
				errs[i] = fmt.Errorf("metadata.%s: %s", fe.FieldPath(), what)
			}
		}
		return invalid(kind, errs)
	}
	if meta.Name == "" {
		return fmt.Errorf("invalid %s: metadata.name: Required value", kind)
	}
	return nil
}
