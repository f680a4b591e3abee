// Package admission defaults and validates a SerializationExperiment (or a
// SerializationSchedule, whose template `serdebench run` runs) exactly as the
// API server does at admission: with the API server's own code
// (k8s.io/apiextensions-apiserver: structural defaulting, OpenAPI schema
// validation, list-set uniqueness, CEL rules) against the CRD that
// `make manifests` generates. `serdebench validate` and `run` therefore accept and
// reject precisely what `kubectl apply` would.
package admission

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/config/crd"
)

// Validator is the compiled schema of one CRD version.
type Validator struct {
	structural *structuralschema.Structural
	schema     validation.SchemaValidator
	cel        *cel.Validator
}

// Experiments returns the validator for SerializationExperiment v1alpha1.
var Experiments = sync.OnceValues(func() (*Validator, error) { return New(crd.SerializationExperiments, v1alpha1.Version) })

// Schedules returns the validator for SerializationSchedule v1alpha1.
var Schedules = sync.OnceValues(func() (*Validator, error) { return New(crd.SerializationSchedules, v1alpha1.Version) })

// New compiles version of the CRD in crdYAML.
func New(crdYAML []byte, version string) (*Validator, error) {
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(crdYAML, &def); err != nil {
		return nil, fmt.Errorf("decode CRD: %w", err)
	}
	for _, v := range def.Spec.Versions {
		if v.Name != version || v.Schema == nil {
			continue
		}
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
			return nil, fmt.Errorf("convert schema: %w", err)
		}
		s, err := structuralschema.NewStructural(internal)
		if err != nil {
			return nil, fmt.Errorf("structural schema: %w", err)
		}
		sv, _, err := validation.NewSchemaValidator(internal)
		if err != nil {
			return nil, fmt.Errorf("schema validator: %w", err)
		}
		return &Validator{structural: s, schema: sv, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}, nil
	}
	return nil, fmt.Errorf("CRD %s has no schema for version %s", def.Name, version)
}

// Admit applies the schema's defaults to obj (a whole object, as decoded from JSON
// with integers as int64) in place and returns every validation error, as the API
// server would report them on create.
func (v *Validator) Admit(obj map[string]any) field.ErrorList {
	structuraldefaulting.Default(obj, v.structural)
	var errs field.ErrorList
	if name, _, _ := unstructured.NestedString(obj, "metadata", "name"); name != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	errs = append(errs, validation.ValidateCustomResource(nil, obj, v.schema)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	if blocking(errs) {
		// As the API server does (customresource strategy, hasBlockingErr): CEL rules
		// would see a malformed object.
		return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// Unknown returns the fields of obj (a whole object, as decoded from JSON) that
// the schema does not declare, by path (spec.producer.commit), as the API server's
// strict field validation finds them (the same pruning). obj is not changed.
func (v *Validator) Unknown(obj map[string]any) []string {
	cp := runtime.DeepCopyJSON(obj)
	return pruning.PruneWithOptions(cp, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
}

// blocking reports errors after which the API server does not run CEL rules.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}
