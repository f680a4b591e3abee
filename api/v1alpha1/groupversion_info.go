// Package v1alpha1 holds the serdebench.io/v1alpha1 API: SerializationExperiment, the
// experiment the operator runs (and `serdebench run` runs locally), and
// SerializationResult, what it measured.
// +kubebuilder:object:generate=true
// +groupName=serdebench.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// Group, version and kinds of this API.
const (
	Group   = "serdebench.io"
	Version = "v1alpha1"
	// Kind is the experiment's kind.
	Kind = "SerializationExperiment"
	// ResultKind is the result's kind.
	ResultKind = "SerializationResult"
)

var (
	// GroupVersion is the group and version of these types.
	GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder registers the types with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(&SerializationExperiment{}, &SerializationExperimentList{},
		&SerializationResult{}, &SerializationResultList{},
		&SerializationSchedule{}, &SerializationScheduleList{})
}
