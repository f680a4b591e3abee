package producer

import (
	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/payload"
	"github.com/serdebench/serdebench/workers/wire"
)

// partitioner picks each record's partition. The worker always chooses partitions
// itself (the clients' manual partitioners), so sequence numbers stay dense per
// partition and loss is exact, whichever strategy is set.
type partitioner struct {
	parts int32
	// stickyBytes > 0 makes it sticky, with the Java client's rule (KIP-794's
	// built-in partitioner): draw the next partition once batch.size bytes went to
	// this one and its last batch is full, or once twice batch.size went. A record
	// rarely fills a batch exactly (the next one opens a new batch, which is not
	// full), so in practice Java, and this, stay for about 2 × batch.size. 0 is
	// round-robin per record.
	stickyBytes int
	// draw picks the sticky partition: uniformly at random among all, the same one
	// again included, as Java does while its partitions' queues are alike (its
	// adaptive weighting needs the client's queues). Taking them in turn instead
	// leaves an open batch behind at every move, which costs latency
	// (docs/producer-settings.md has the measurement).
	draw func() int32
	// headerBytes is what every data record adds to its value (dataHeaderBytes or
	// compactHeaderBytes).
	headerBytes int
	cur         int32
	// produced is what went to the current partition; batch models the client's
	// open batch there (batch header included; 0: none).
	produced, batch int
}

// dataHeaderBytes is what a data record adds to its value in a batch: its headers'
// keys and values plus record framing (length, attributes, deltas and the varint
// lengths), as the Java client counts a record's size for its sticky partitioner.
var dataHeaderBytes = len(wire.Producer) + 4 + len(wire.Seq) + 8 + len(wire.Intended) + 8 +
	len(wire.Actual) + 8 + len(wire.Run) + 8 + recordFramingBytes

// compactHeaderBytes is dataHeaderBytes for the compact set: its one key and a
// value as wire encodes it, with a 3-byte sequence number, and framing with one
// header's two lengths instead of five headers' ten.
var compactHeaderBytes = len(wire.Compact) + len(wire.AppendCompact(nil, wire.Fields{Seq: 1 << 14})) + recordFramingBytes - 8

// recordFramingBytes is a record's framing in a v2 batch with short varints: length,
// attributes, timestamp and offset deltas, key length, value length, header count
// and each header's two lengths.
const recordFramingBytes = 20

// partitionSeed seeds producer id's sticky draws in trial t: its payload seed
// (payload.ProducerSeed), moved by the repetition so that repetitions sample the
// draws as Java's own partitioner would. The JVM worker's Trial.partitionSeed is
// the same.
func partitionSeed(t trial.Trial, id int) uint64 {
	return payload.ProducerSeed(t.Seed, id) + uint64(t.Repetition)<<48
}

// newPartitioner makes a producer's partitioner; seed (partitionSeed) makes its
// sticky draws, the same in every runtime.
func newPartitioner(s trial.Partitioner, parts int32, batchSizeBytes int32, headers trial.Headers, seed uint64) *partitioner {
	p := &partitioner{parts: parts, headerBytes: dataHeaderBytes}
	if headers == trial.HeadersCompact {
		p.headerBytes = compactHeaderBytes
	}
	if s == trial.PartitionerSticky {
		// batch.size 0 (no batching): every record is a full batch, so each draws anew.
		p.stickyBytes = max(int(batchSizeBytes), 1)
		rng := splitMix64(seed)
		p.draw = func() int32 { return int32(rng.next() % uint64(parts)) }
		p.cur = p.draw()
	}
	return p
}

// splitMix64 is SplitMix64 (Steele, Lea and Flood 2014), the generator behind
// Java's SplittableRandom, which the JVM worker draws from: so both runtimes send
// the same records to the same partitions from the same seed.
type splitMix64 uint64

func (s *splitMix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// next returns the partition of a record whose value (and any header beyond the
// ones every data record has) is valueBytes long.
func (p *partitioner) next(valueBytes int) int32 {
	part := p.cur
	if p.stickyBytes == 0 {
		p.cur = (p.cur + 1) % p.parts
		return part
	}
	n := valueBytes + p.headerBytes
	if p.batch == 0 || p.batch+n > p.stickyBytes {
		p.batch = batchOverheadBytes // the record opens a new batch
		p.produced += batchOverheadBytes
	}
	p.batch += n
	p.produced += n
	full := p.batch >= p.stickyBytes
	if p.produced >= 2*p.stickyBytes || (p.produced >= p.stickyBytes && full) {
		p.cur, p.produced, p.batch = p.draw(), 0, 0
	}
	return part
}

// name describes the strategy for the result's client settings.
func (p *partitioner) name() string {
	if p.stickyBytes == 0 {
		return "round-robin per record (manual)"
	}
	return "sticky, Java's rule: a partition drawn at random after batch.size bytes and a full batch, or 2 × batch.size; uncompressed bytes (manual)"
}
