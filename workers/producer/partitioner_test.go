package producer

import (
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

func TestPartitionerRoundRobin(t *testing.T) {
	p := newPartitioner(trial.PartitionerRoundRobin, 3, 16384, trial.HeadersFull)
	for i := range 9 {
		if got := p.next(1176); got != int32(i%3) {
			t.Fatalf("record %d: partition %d, want %d", i, got, i%3)
		}
	}
}

func TestPartitionerSticky(t *testing.T) {
	// 1,176 B values in 16 KiB batches: 13 fit a batch, the 14th opens a second one
	// (not full), so the partition changes once twice batch.size went there, as in
	// the Java client.
	perRecord := 1176 + dataHeaderBytes
	want := (2*16384 - 2*batchOverheadBytes + perRecord - 1) / perRecord
	p := newPartitioner(trial.PartitionerSticky, 3, 16384, trial.HeadersFull)
	counts := map[int32]int{}
	var order []int32
	for range 3 * want {
		got := p.next(1176)
		if len(order) == 0 || order[len(order)-1] != got {
			order = append(order, got)
		}
		counts[got]++
	}
	if len(order) != 3 || order[0] != 0 || order[1] != 1 || order[2] != 2 {
		t.Fatalf("partition runs %v, want [0 1 2]", order)
	}
	for part, n := range counts {
		if n != want {
			t.Errorf("partition %d got %d records in a row, want %d", part, n, want)
		}
	}
	if p.next(1176) != 0 {
		t.Errorf("after the last partition the sticky partitioner must wrap to 0")
	}
}

func TestPartitionerStickyFullBatch(t *testing.T) {
	// A record larger than batch.size is a full batch of its own: batch.size went
	// and the batch is full, so every record moves on. batch.size 0 likewise.
	for _, batch := range []int32{1000, 0} {
		p := newPartitioner(trial.PartitionerSticky, 2, batch, trial.HeadersFull)
		if a, b, c := p.next(1176), p.next(1176), p.next(1176); a != 0 || b != 1 || c != 0 {
			t.Errorf("batch.size %d: partitions %d, %d, %d; want 0, 1, 0", batch, a, b, c)
		}
	}
}

func TestPartitionerStickyExactlyFull(t *testing.T) {
	// Four records that fill batch.size exactly: batch.size went and the batch is
	// full, so the fifth goes to the next partition.
	n := 1000 + dataHeaderBytes
	p := newPartitioner(trial.PartitionerSticky, 2, int32(batchOverheadBytes+4*n), trial.HeadersFull)
	for i := range 4 {
		if got := p.next(1000); got != 0 {
			t.Fatalf("record %d: partition %d, want 0", i, got)
		}
	}
	if got := p.next(1000); got != 1 {
		t.Fatalf("fifth record: partition %d, want 1", got)
	}
}
