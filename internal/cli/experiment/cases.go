package experiment

import (
	"encoding/json"
	"fmt"
	"os"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/yaml"
)

// Case is one entry of the shared admission table (testdata/cases.yaml): a spec
// and whether admission rejects it, with a text the error must contain.
type Case struct {
	Name   string
	Reject string
	// OwnName is true when the case sets metadata.name itself (tests that rename
	// cases leave it).
	OwnName bool
	// Doc is the whole object, as JSON.
	Doc []byte
}

// Cases reads the admission table at path, merging each case over the base.
func Cases(path string) ([]Case, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var table struct {
		Base  map[string]any `json:"base"`
		Cases []struct {
			Name     string         `json:"name"`
			Reject   string         `json:"reject"`
			Metadata map[string]any `json:"metadata"`
			Spec     map[string]any `json:"spec"`
		} `json:"cases"`
	}
	if err := yaml.UnmarshalStrict(raw, &table); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	base, err := json.Marshal(table.Base)
	if err != nil {
		return nil, err
	}
	var out []Case
	for _, c := range table.Cases {
		overrides := map[string]any{}
		if c.Spec != nil {
			overrides["spec"] = c.Spec
		}
		if c.Metadata != nil {
			overrides["metadata"] = c.Metadata
		}
		patch, err := json.Marshal(overrides)
		if err != nil {
			return nil, err
		}
		doc, err := jsonpatch.MergePatch(base, patch)
		if err != nil {
			return nil, fmt.Errorf("case %q: %w", c.Name, err)
		}
		out = append(out, Case{Name: c.Name, Reject: c.Reject, OwnName: c.Metadata["name"] != nil, Doc: doc})
	}
	return out, nil
}
