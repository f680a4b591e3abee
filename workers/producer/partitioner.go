package producer

import (
	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/wire"
)

// partitioner picks each record's partition. The worker always chooses partitions
// itself (the clients' manual partitioners), so sequence numbers stay dense per
// partition and loss is exact, whichever strategy is set.
type partitioner struct {
	parts int32
	// stickyBytes > 0 makes it sticky, with the Java client's rule (KIP-794's
	// built-in partitioner): move to the next partition once batch.size bytes went to
	// this one and its last batch is full, or once twice batch.size went. A record
	// rarely fills a batch exactly (the next one opens a new batch, which is not
	// full), so in practice Java, and this, stay for about 2 × batch.size. 0 is
	// round-robin per record.
	stickyBytes int
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

func newPartitioner(s trial.Partitioner, parts int32, batchSizeBytes int32, headers trial.Headers) *partitioner {
	p := &partitioner{parts: parts, headerBytes: dataHeaderBytes}
	if headers == trial.HeadersCompact {
		p.headerBytes = compactHeaderBytes
	}
	if s == trial.PartitionerSticky {
		// batch.size 0 (no batching): every record is a full batch, so each moves on.
		p.stickyBytes = max(int(batchSizeBytes), 1)
	}
	return p
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
		p.cur, p.produced, p.batch = (p.cur+1)%p.parts, 0, 0
	}
	return part
}

// name describes the strategy for the result's client settings.
func (p *partitioner) name() string {
	if p.stickyBytes == 0 {
		return "round-robin per record (manual)"
	}
	return "sticky, Java's rule: next partition (in turn) after batch.size bytes and a full batch, or 2 × batch.size; uncompressed bytes (manual)"
}
