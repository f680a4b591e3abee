package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRanksShareWhatRunsCannotTell: five runs each, one sample wholly below two
// that overlap; the two share rank 2, the first is alone at 1.
func TestRanksShareWhatRunsCannotTell(t *testing.T) {
	got := Ranks([][][]float64{{{11, 12, 13, 14, 15}, {1, 2, 3, 4, 5}, {12, 13, 14, 15, 16}}})[0]
	want := []Place{{Rank: 2, Tie: true}, {Rank: 1}, {Rank: 2, Tie: true}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sample %d: %+v, want %+v (all: %+v)", i, got[i], want[i], got)
		}
	}
}

// TestRanksCorrectAcrossGroups: five runs against five wholly apart is Mann-Whitney's
// smallest p, 2/252 ≈ 0.0079. Over six such pairs Holm keeps them (6 × 0.0079 <
// 0.05); over seven it keeps none (7 × 0.0079 > 0.05), though each group holds one
// pair: the family is the whole table.
func TestRanksCorrectAcrossGroups(t *testing.T) {
	for _, tc := range []struct {
		groups int
		apart  bool
	}{{1, true}, {6, true}, {7, false}, {12, false}} {
		groups := make([][][]float64, tc.groups)
		for g := range groups {
			groups[g] = [][]float64{{10, 11, 12, 13, 14}, {1, 2, 3, 4, 5}}
		}
		for g, places := range Ranks(groups) {
			want := []Place{{Rank: 2}, {Rank: 1}}
			if !tc.apart {
				want = []Place{{Rank: 1, Tie: true}, {Rank: 1, Tie: true}}
			}
			if places[0] != want[0] || places[1] != want[1] {
				t.Fatalf("%d groups, group %d: %+v, want %+v", tc.groups, g, places, want)
			}
		}
	}
}

// TestRanksAA: tables whose samples all come from one distribution (5 or 7 runs,
// groups of 2 to 4 samples, at most 6 pairs so that 5 runs can tell a pair apart)
// rank anything apart in at most Alpha of them, less the simulation's error: a
// table's chance of any false order is what Holm bounds. Mann-Whitney reads ranks
// only, so the noise's size does not matter.
func TestRanksAA(t *testing.T) {
	const tables = 1500
	floor := Alpha + 3*math.Sqrt(Alpha*(1-Alpha)/tables)
	rng := rand.New(rand.NewPCG(43, 1))
	for _, runs := range []int{5, 7} {
		for _, shape := range [][]int{{2, 2}, {4}, {3, 3}} {
			false1 := 0
			for range tables {
				groups := make([][][]float64, len(shape))
				for g, n := range shape {
					for range n {
						s := make([]float64, runs)
						for k := range s {
							s[k] = 100 * math.Exp(0.1*rng.NormFloat64())
						}
						groups[g] = append(groups[g], s)
					}
				}
				apart := false
				for _, places := range Ranks(groups) {
					for _, p := range places {
						apart = apart || p.Rank != 1
					}
				}
				if apart {
					false1++
				}
			}
			if rate := float64(false1) / tables; rate > floor {
				t.Errorf("%d runs, groups %v: %.1f%% of A/A tables ranked something apart (at most %.1f%%)",
					runs, shape, 100*rate, 100*floor)
			}
		}
	}
}
