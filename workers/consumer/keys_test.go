package consumer

import (
	"testing"

	"github.com/serdebench/serdebench/workers/wire"
)

// TestKeyIndexAllocatesNothing: sarama's []byte header keys map to the same index
// as franz-go's strings, without an allocation per header.
func TestKeyIndexAllocatesNothing(t *testing.T) {
	keys := []string{wire.Run, wire.Producer, wire.Seq, wire.Intended, wire.Warmup, wire.End, wire.Step, wire.Compact, "other"}
	raw := make([][]byte, len(keys))
	for i, k := range keys {
		raw[i] = []byte(k)
		if keyIndexBytes(raw[i]) != keyIndex(k) {
			t.Errorf("%s: %d from bytes, %d from the string", k, keyIndexBytes(raw[i]), keyIndex(k))
		}
	}
	if keyIndex("other") != hOther || keyIndex(wire.End) != hEnd {
		t.Error("unexpected indexes")
	}
	allocs := testing.AllocsPerRun(1000, func() {
		for _, k := range raw {
			_ = keyIndexBytes(k)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per lookup", allocs)
	}
}
