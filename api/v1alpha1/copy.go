package v1alpha1

import "encoding/json"

// DeepCopySpec returns an independent copy of the spec. (controller-gen's DeepCopy
// replaces this once the types are registered with a scheme.)
func (s *ExperimentSpec) DeepCopySpec() *ExperimentSpec {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // the spec holds only JSON-safe types
	}
	var out ExperimentSpec
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return &out
}
