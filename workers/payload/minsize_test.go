package payload

import (
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

// TestMinSizeBytes: the planner's minimum of every built-in schema fills a pool for
// every seed tried, and is within 10% of where generation starts to fail (so the
// bound the planner enforces is the schema's, not a guess far above it).
func TestMinSizeBytes(t *testing.T) {
	for _, name := range Names() {
		low, ok := trial.MinSizeBytes[name]
		if !ok {
			t.Errorf("%s: no minimum in trial.MinSizeBytes", name)
			continue
		}
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(1); seed <= 20; seed++ {
			if _, err := s.Pool(seed, int(low), 2048); err != nil {
				t.Errorf("%s at its minimum %d B, seed %d: %v", name, low, seed, err)
			}
		}
		if low <= 64 {
			continue // the API's own minimum: nothing below it to check
		}
		below := int(float64(low) * 0.9)
		if _, err := s.Pool(1, below, 2048); err == nil {
			t.Errorf("%s: a pool of %d B (10%% below the minimum %d B) filled: the minimum is too high", name, below, low)
		}
	}
}
