package v1alpha1_test

import (
	"testing"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/testing/crdtest"
)

// TestMostRepetitions holds MostRepetitions to the CRD: the markers set the
// limit admission applies, the constant what results advise.
func TestMostRepetitions(t *testing.T) {
	for _, path := range []string{"repetitions", "repeatUntil.maxRepetitions"} {
		s := crdtest.At(t, path)
		if s.Maximum == nil || int32(*s.Maximum) != v1alpha1.MostRepetitions {
			t.Errorf("spec.%s: maximum %v, want MostRepetitions %d", path, s.Maximum, v1alpha1.MostRepetitions)
		}
	}
}
