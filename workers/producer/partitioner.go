package producer

import (
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/wire"
)

// partitioner picks each record's partition. The worker always chooses partitions
// itself (the clients' manual partitioners), so sequence numbers stay dense per
// partition and loss is exact, whichever strategy is set.
type partitioner struct {
	parts int32
	// stickyBytes > 0 makes it sticky: records go to one partition until that many
	// bytes went there, then to the next one, as the Java client's built-in
	// partitioner (KIP-794) switches after batch.size bytes. 0 is round-robin per
	// record.
	stickyBytes int
	cur         int32
	bytes       int
}

// dataHeaderBytes is what a data record's headers add to its value: their keys and
// values, as the Java client counts a record's size for its sticky partitioner.
var dataHeaderBytes = len(wire.Producer) + 4 + len(wire.Seq) + 8 + len(wire.Intended) + 8 +
	len(wire.Actual) + 8 + len(wire.Run) + 8

func newPartitioner(s v1alpha1.Partitioner, parts int32, batchSizeBytes int32) *partitioner {
	p := &partitioner{parts: parts}
	if s == v1alpha1.PartitionerSticky {
		// batch.size 0 (no batching) leaves nothing to stick to: round-robin.
		p.stickyBytes = int(batchSizeBytes)
	}
	return p
}

// next returns the partition of a record whose value is valueBytes long.
func (p *partitioner) next(valueBytes int) int32 {
	part := p.cur
	if p.stickyBytes == 0 {
		p.cur = (p.cur + 1) % p.parts
		return part
	}
	p.bytes += valueBytes + dataHeaderBytes
	if p.bytes >= p.stickyBytes {
		p.cur, p.bytes = (p.cur+1)%p.parts, 0
	}
	return part
}

// name describes the strategy for the result's client settings.
func (p *partitioner) name() string {
	if p.stickyBytes == 0 {
		return "round-robin per record (manual)"
	}
	return "sticky, next partition after batch.size bytes (manual)"
}
