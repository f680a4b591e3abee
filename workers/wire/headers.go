// Package wire defines the record headers producers write and consumers read: who sent
// a record, its per-partition sequence number and its send times. Values are
// fixed-width big-endian integers so encoding allocates nothing.
package wire

import (
	"encoding/binary"
	"hash/fnv"
)

// Header keys.
const (
	// Producer is the producer index (uint32).
	Producer = "sb-p"
	// Seq is the record's sequence number on its partition for its producer (uint64).
	Seq = "sb-s"
	// Intended is the intended send time, Unix ns (int64).
	Intended = "sb-i"
	// Actual is when the producer started sending the record, Unix ns (int64).
	Actual = "sb-a"
	// Warmup marks a record excluded from measurement (1 byte, 1).
	Warmup = "sb-w"
	// End marks a producer's end-of-trial record on a partition; its value is the
	// number of records the producer sent to that partition (uint64).
	End = "sb-end"
	// Step is the rate-search step a measured record belongs to (uint32; only in
	// trials with rate.search).
	Step = "sb-k"
	// Run identifies the trial attempt a record belongs to (uint64, RunID): on a
	// shared topic, consumers skip records of other runs.
	Run = "sb-r"
)

// RunID is the run identifier of a trial attempt, from its unique consumer group
// name (FNV-1a, 64 bit).
func RunID(group string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(group))
	return h.Sum64()
}

// PutUint64 writes v into b[:8] and returns it.
func PutUint64(b []byte, v uint64) []byte { binary.BigEndian.PutUint64(b[:8], v); return b[:8] }

// PutUint32 writes v into b[:4] and returns it.
func PutUint32(b []byte, v uint32) []byte { binary.BigEndian.PutUint32(b[:4], v); return b[:4] }

// Uint64 reads a header value written by PutUint64; ok is false for a short value.
func Uint64(b []byte) (uint64, bool) {
	if len(b) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(b), true
}

// Uint32 reads a header value written by PutUint32.
func Uint32(b []byte) (uint32, bool) {
	if len(b) != 4 {
		return 0, false
	}
	return binary.BigEndian.Uint32(b), true
}
