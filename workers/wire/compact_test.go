package wire

import (
	"math"
	"testing"
)

// TestCompactRoundTrip: every field combination survives encoding, the producer
// index is left out for producer 0, and a truncated or padded value is refused.
func TestCompactRoundTrip(t *testing.T) {
	for _, f := range []Fields{
		{Run: 7, Intended: 1_795_000_000_123_456_789, Seq: 0},
		{Flags: FlagWarmup, Run: math.MaxUint32, Intended: 1, Seq: 1 << 40, Producer: 63},
		{Flags: FlagStep, Run: 1, Intended: 2, Seq: 300, Step: 12},
		{Flags: FlagEnd, Run: 9, Seq: 123456, Producer: 2},
	} {
		b := AppendCompact(make([]byte, 0, CompactMaxBytes), f)
		if cap(b) != CompactMaxBytes {
			t.Fatalf("%+v: grew past CompactMaxBytes (%d B)", f, len(b))
		}
		got, ok := ParseCompact(b)
		want := f
		if f.Producer != 0 {
			want.Flags |= FlagProducer
		}
		if !ok || got != want {
			t.Fatalf("%+v: parsed %+v (ok %v)", want, got, ok)
		}
		if _, ok := ParseCompact(b[:len(b)-1]); ok {
			t.Fatalf("%+v: a truncated value parsed", f)
		}
		if _, ok := ParseCompact(append(b, 0)); ok {
			t.Fatalf("%+v: a padded value parsed", f)
		}
	}
	// One producer's measured record: key and value within the documented 16-19 B.
	for _, seq := range []uint64{0, 1 << 20} {
		n := len(Compact) + len(AppendCompact(nil, Fields{Run: 1, Intended: 1, Seq: seq}))
		if n < 16 || n > 19 {
			t.Errorf("seq %d: %d B of key and value, documented 16-19", seq, n)
		}
	}
}
