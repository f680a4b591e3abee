package trial

import (
	"slices"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/crdtest"
)

// TestEnumListsMatchTheCRD: each list of enum values holds exactly what the CRD
// admits where the spec sets it (from the type's Enum marker), in its order.
func TestEnumListsMatchTheCRD(t *testing.T) {
	for path, list := range map[string][]string{
		"client":               names(Clients),
		"mode":                 names(Modes),
		"producer.acks":        names(AcksLevels),
		"producer.compression": names(Compressions),
		"payload.compression":  names(PayloadCompressions),
	} {
		if got := crdtest.Enum(t, crdtest.At(t, path)); len(got) == 0 || !slices.Equal(got, list) {
			t.Errorf("CRD spec.%s enum %q, the list %q", path, got, list)
		}
	}
	if DefaultClient.OrDefault() != DefaultClient || Client("").OrDefault() != DefaultClient {
		t.Fatalf("OrDefault: %q, %q", DefaultClient.OrDefault(), Client("").OrDefault())
	}
}

func names[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
