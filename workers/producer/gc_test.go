package producer

import (
	"runtime/debug"
	"testing"
)

// TestGCSettings: the collector's settings as the runtime applies them, off and
// unlimited included.
func TestGCSettings(t *testing.T) {
	prev, prevLimit := debug.SetGCPercent(250), debug.SetMemoryLimit(64<<20)
	defer func() { debug.SetGCPercent(prev); debug.SetMemoryLimit(prevLimit) }()
	if got := gcSettings(); got["GOGC"] != "250" || got["GOMEMLIMIT"] != "67108864" {
		t.Errorf("GOGC 250, limit 64 MiB: %v", got)
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1<<63 - 1)
	if got := gcSettings(); got["GOGC"] != "off" || got["GOMEMLIMIT"] != "none" {
		t.Errorf("GOGC off, no limit: %v", got)
	}
}
