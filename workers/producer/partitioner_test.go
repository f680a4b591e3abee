package producer

import (
	"testing"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

func TestPartitionerRoundRobin(t *testing.T) {
	p := newPartitioner(v1alpha1.PartitionerRoundRobin, 3, 16384)
	for i := range 9 {
		if got := p.next(1176); got != int32(i%3) {
			t.Fatalf("record %d: partition %d, want %d", i, got, i%3)
		}
	}
}

func TestPartitionerSticky(t *testing.T) {
	// 16384 bytes at 1176 + headers per record: 13 records per partition (the 13th
	// reaches batch.size), as the Java client fills a 16 KiB batch before moving on.
	perRecord := 1176 + dataHeaderBytes
	want := (16384 + perRecord - 1) / perRecord
	p := newPartitioner(v1alpha1.PartitionerSticky, 3, 16384)
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

func TestPartitionerStickyWithoutBatching(t *testing.T) {
	// batch.size 0: nothing to fill, so every record moves on.
	p := newPartitioner(v1alpha1.PartitionerSticky, 2, 0)
	if a, b := p.next(100), p.next(100); a != 0 || b != 1 {
		t.Fatalf("partitions %d, %d; want 0, 1", a, b)
	}
}
