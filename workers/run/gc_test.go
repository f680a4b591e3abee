package run

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: GCPercent unless the environment names GOGC, which then stands.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	TuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("without GOGC: GC percent %d, want %d", got, GCPercent)
	}
	TuneGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent %d, want it left at 100", got)
	}
}
