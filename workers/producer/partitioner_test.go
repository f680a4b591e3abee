package producer

import (
	"math"
	"slices"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

func TestPartitionerRoundRobin(t *testing.T) {
	p := newPartitioner(trial.PartitionerRoundRobin, 3, 16384, trial.HeadersFull, 1)
	for i := range 9 {
		if got := p.next(1176); got != int32(i%3) {
			t.Fatalf("record %d: partition %d, want %d", i, got, i%3)
		}
	}
}

// inTurn makes p draw partitions in turn from 0, so a test can see when it draws.
func inTurn(p *partitioner) *partitioner {
	p.cur = 0
	p.draw = func() int32 { return (p.cur + 1) % p.parts }
	return p
}

func TestPartitionerSticky(t *testing.T) {
	// 1,176 B values in 16 KiB batches: 13 fit a batch, the 14th opens a second one
	// (not full), so the partition is drawn again once twice batch.size went there,
	// as in the Java client.
	perRecord := 1176 + dataHeaderBytes
	want := (2*16384 - 2*batchOverheadBytes + perRecord - 1) / perRecord
	p := inTurn(newPartitioner(trial.PartitionerSticky, 3, 16384, trial.HeadersFull, 1))
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
		t.Errorf("after the last partition the in-turn draw must wrap to 0")
	}
}

// TestPartitionerDraws: the sticky partition is drawn as Java's SplittableRandom
// draws from the producer's seed (the JVM worker's generator; its first outputs
// from 0 are SplitMix64's published ones), uniformly over all partitions, the
// current one again included: over 30,000 draws of 3 each partition's share and
// the share of draws that stay lie within 4 standard errors of 1/3.
func TestPartitionerDraws(t *testing.T) {
	rng := splitMix64(0)
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := rng.next(); got != want {
			t.Fatalf("SplitMix64 output %d from 0: %#x, want %#x", i, got, want)
		}
	}
	// new java.util.SplittableRandom(ProducerSeed(42, 3)): remainderUnsigned(nextLong(), 3).
	p := newPartitioner(trial.PartitionerSticky, 3, 16384, trial.HeadersFull, 42+3<<32)
	got := []int32{p.cur}
	for range 11 {
		got = append(got, p.draw())
	}
	if want := []int32{1, 0, 1, 0, 0, 2, 0, 2, 2, 2, 2, 0}; !slices.Equal(got, want) {
		t.Fatalf("draws %v, want Java's %v", got, want)
	}
	// Each repetition draws anew; the JVM worker's Trial.partitionSeed is the same sum.
	if s0, s1 := partitionSeed(trial.Trial{Seed: 42}, 3), partitionSeed(trial.Trial{Seed: 42, Repetition: 1}, 3); s0 != 42+3<<32 || s1 != s0+1<<48 {
		t.Fatalf("partition seeds %#x, %#x", s0, s1)
	}
	const n = 30000
	counts, stays := make([]int, 3), 0
	prev := p.draw()
	for range n {
		d := p.draw()
		counts[d]++
		if d == prev {
			stays++
		}
		prev = d
	}
	se := math.Sqrt(n * (1.0 / 3) * (2.0 / 3))
	for _, c := range append(counts, stays) {
		if math.Abs(float64(c)-n/3.0) > 4*se {
			t.Errorf("%d of %d draws (partitions %v, stays %d): not a third", c, n, counts, stays)
			break
		}
	}
}

func TestPartitionerStickyFullBatch(t *testing.T) {
	// A record larger than batch.size is a full batch of its own: batch.size went
	// and the batch is full, so every record moves on. batch.size 0 likewise.
	for _, batch := range []int32{1000, 0} {
		p := inTurn(newPartitioner(trial.PartitionerSticky, 2, batch, trial.HeadersFull, 1))
		if a, b, c := p.next(1176), p.next(1176), p.next(1176); a != 0 || b != 1 || c != 0 {
			t.Errorf("batch.size %d: partitions %d, %d, %d; want 0, 1, 0", batch, a, b, c)
		}
	}
}

func TestPartitionerStickyExactlyFull(t *testing.T) {
	// Four records that fill batch.size exactly: batch.size went and the batch is
	// full, so the fifth goes to the next partition.
	n := 1000 + dataHeaderBytes
	p := inTurn(newPartitioner(trial.PartitionerSticky, 2, int32(batchOverheadBytes+4*n), trial.HeadersFull, 1))
	for i := range 4 {
		if got := p.next(1000); got != 0 {
			t.Fatalf("record %d: partition %d, want 0", i, got)
		}
	}
	if got := p.next(1000); got != 1 {
		t.Fatalf("fifth record: partition %d, want 1", got)
	}
}
