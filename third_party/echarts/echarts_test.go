package echarts

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestBundleIsPinned: the embedded bundle is the pinned release's, byte for byte.
func TestBundleIsPinned(t *testing.T) {
	sum := sha256.Sum256([]byte(JS))
	if got := hex.EncodeToString(sum[:]); got != SHA256 {
		t.Fatalf("echarts.common.min.js sha256 %s, want %s (hack/echarts-update.sh)", got, SHA256)
	}
	if !strings.Contains(JS, `version="`+Version+`"`) && !strings.Contains(JS, `"`+Version+`"`) {
		t.Fatalf("the bundle does not declare version %s", Version)
	}
}
