package experiment

import (
	"strings"
	"testing"
)

// TestAdmissionTable: `serdebench validate` accepts and rejects exactly the cases
// the API server does (controllers/validation_test.go runs the same table against
// a real apiserver), naming the same problem.
func TestAdmissionTable(t *testing.T) {
	cases, err := Cases("testdata/cases.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 30 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		_, err := Parse(c.Doc)
		switch {
		case c.Reject == "" && err != nil:
			t.Errorf("%s: rejected locally: %v", c.Name, err)
		case c.Reject != "" && err == nil:
			t.Errorf("%s: accepted locally, the API server rejects it (%s)", c.Name, c.Reject)
		case c.Reject != "" && !strings.Contains(err.Error(), c.Reject):
			t.Errorf("%s: error does not say %q:\n%v", c.Name, c.Reject, err)
		}
	}
}
