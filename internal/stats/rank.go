package stats

// Place is a sample's place among its group's, smaller values first.
type Place struct {
	// Rank is 1 + the samples of the group measurably smaller than this one.
	Rank int
	// Tie says another sample of the group has the same rank: the repetitions
	// could not tell them apart.
	Tie bool
}

// Orders says which samples of each group (each sample one figure's repetitions)
// the repetitions tell apart: Orders(groups)[g][a][b] is −1 when sample a is
// measurably smaller than b, +1 when larger, 0 when no test tells. The test is a
// two-sided Mann-Whitney on every pair within a group, Holm-adjusted over the
// pairs of all groups together, as a table is read as a whole.
func Orders(groups [][][]float64) [][][]int {
	type pair struct{ g, a, b int }
	var pairs []pair
	var ps []float64
	out := make([][][]int, len(groups))
	for g, samples := range groups {
		out[g] = make([][]int, len(samples))
		for a := range samples {
			out[g][a] = make([]int, len(samples))
			for b := a + 1; b < len(samples); b++ {
				pairs = append(pairs, pair{g, a, b})
				ps = append(ps, RelativeChange(samples[a], samples[b]).P)
			}
		}
	}
	adjusted := Holm(ps)
	for k, p := range pairs {
		if !(adjusted[k] < Alpha) {
			continue
		}
		switch ma, mb := Median(groups[p.g][p.a]).Median, Median(groups[p.g][p.b]).Median; {
		case ma < mb:
			out[p.g][p.a][p.b], out[p.g][p.b][p.a] = -1, 1
		case mb < ma:
			out[p.g][p.a][p.b], out[p.g][p.b][p.a] = 1, -1
		}
	}
	return out
}

// Ranks places each group's samples by Orders: a sample's rank is 1 + the samples
// measurably smaller, so samples no test tells apart share a rank ("1=" rather
// than a coin toss between equals).
func Ranks(groups [][][]float64) [][]Place {
	orders := Orders(groups)
	out := make([][]Place, len(groups))
	for g, o := range orders {
		out[g] = make([]Place, len(o))
		for a, row := range o {
			out[g][a].Rank = 1 + count(row, 1)
		}
		held := map[int]int{}
		for _, p := range out[g] {
			held[p.Rank]++
		}
		for a := range out[g] {
			out[g][a].Tie = held[out[g][a].Rank] > 1
		}
	}
	return out
}

func count(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}
