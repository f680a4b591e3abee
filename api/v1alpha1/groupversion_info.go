// Package v1alpha1 holds the serdebench.io/v1alpha1 API: SerializationExperiment, the
// experiment the operator runs (and `serdebench run` runs locally), and
// SerializationResult, what it measured.
// +kubebuilder:object:generate=true
// +groupName=serdebench.io
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group, version and kinds of this API.
const (
	Group   = "serdebench.io"
	Version = "v1alpha1"
	// Kind is the experiment's kind.
	Kind = "SerializationExperiment"
	// ResultKind is the result's kind.
	ResultKind = "SerializationResult"
	// ScheduleKind is the schedule's kind.
	ScheduleKind = "SerializationSchedule"
)

var (
	// GroupVersion is the group and version of these types.
	GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

	// SchemeBuilder registers the types with a scheme (apimachinery's builder: an API
	// package needs no controller-runtime).
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers the kinds and their lists under GroupVersion.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &SerializationExperiment{}, &SerializationExperimentList{},
		&SerializationResult{}, &SerializationResultList{},
		&SerializationSchedule{}, &SerializationScheduleList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
