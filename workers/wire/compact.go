package wire

import (
	"encoding/binary"
)

// Compact is the key of the one header a record carries in the compact header set
// (api/trial HeadersCompact): only what the trial's consumers need, packed.
//
// Its value: a flags byte; the run's low 32 bits (4 B, big-endian); the intended
// send time, Unix ns (8 B); the sequence number (uvarint; in an end record, the
// records sent); then, if flagged, the producer index and the rate-search step
// (uvarints). Producer 0 leaves its index out, so one producer's measured records
// carry 16 to 19 B of key and value (sequence numbers below 2^28 per
// partition) against the full set's 56.
const Compact = "sb"

// Flags of a compact header.
const (
	// FlagWarmup marks a warmup record.
	FlagWarmup byte = 1 << iota
	// FlagProducer says the producer index follows (absent: producer 0).
	FlagProducer
	// FlagStep says the rate-search step follows.
	FlagStep
	// FlagEnd marks a producer's end-of-trial record on a partition.
	FlagEnd
)

// CompactMaxBytes is the longest compact header value.
const CompactMaxBytes = 1 + 4 + 8 + binary.MaxVarintLen64 + 2*binary.MaxVarintLen32

// Fields are what a compact header carries.
type Fields struct {
	Flags byte
	// Run is the low 32 bits of the run's RunID: two attempts on one topic are
	// told apart unless their IDs agree in them (odds 2^-32).
	Run      uint32
	Intended int64
	// Seq is the record's sequence number, or in an end record the records sent.
	Seq      uint64
	Producer uint32
	Step     uint32
}

// AppendCompact appends f's compact encoding to dst (cap CompactMaxBytes avoids
// an allocation). It sets FlagProducer itself when Producer is not 0.
func AppendCompact(dst []byte, f Fields) []byte {
	if f.Producer != 0 {
		f.Flags |= FlagProducer
	} else {
		f.Flags &^= FlagProducer
	}
	dst = append(dst, f.Flags)
	dst = binary.BigEndian.AppendUint32(dst, f.Run)
	dst = binary.BigEndian.AppendUint64(dst, uint64(f.Intended))
	dst = binary.AppendUvarint(dst, f.Seq)
	if f.Flags&FlagProducer != 0 {
		dst = binary.AppendUvarint(dst, uint64(f.Producer))
	}
	if f.Flags&FlagStep != 0 {
		dst = binary.AppendUvarint(dst, uint64(f.Step))
	}
	return dst
}

// ParseCompact reads a compact header value; ok is false for a malformed one.
func ParseCompact(b []byte) (f Fields, ok bool) {
	if len(b) < 13 {
		return Fields{}, false
	}
	f.Flags = b[0]
	f.Run = binary.BigEndian.Uint32(b[1:5])
	f.Intended = int64(binary.BigEndian.Uint64(b[5:13]))
	b = b[13:]
	var n int
	if f.Seq, n = binary.Uvarint(b); n <= 0 {
		return Fields{}, false
	}
	b = b[n:]
	if f.Flags&FlagProducer != 0 {
		var v uint64
		if v, n = binary.Uvarint(b); n <= 0 || v > 1<<32-1 {
			return Fields{}, false
		}
		f.Producer, b = uint32(v), b[n:]
	}
	if f.Flags&FlagStep != 0 {
		var v uint64
		if v, n = binary.Uvarint(b); n <= 0 || v > 1<<32-1 {
			return Fields{}, false
		}
		f.Step, b = uint32(v), b[n:]
	}
	return f, len(b) == 0
}
