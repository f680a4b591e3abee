package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// Splits is how many random splits of the repetitions Select makes.
const Splits = 1000

// Selection is how far to trust a pick made as the best of several samples'
// medians and then credited with its own median, from the same repetitions: among
// near-equals the luckiest sample wins, so the winner's median flatters it (the
// winner's curse). Select measures it by splitting every sample's repetitions at
// random into a part that picks and a part that measures the pick: a median read
// from repetitions that did not choose it carries no luck of the choice.
type Selection struct {
	// Splits is how many random splits were made (0: too few repetitions, at
	// least 2 per sample, or values at or below zero; the rest is then unset).
	Splits int
	// Again is the share of splits whose picking part picks the same sample as
	// all the repetitions do: how stable the pick is.
	Again float64
	// Value is what the pick is worth measured apart from its choice: the
	// geometric mean, over the splits, of the median the measuring part gives
	// the sample the picking part chose. It answers for the procedure (pick the
	// best median), not for one sample, and since half the repetitions pick less
	// surely than all, it leans cautious when one sample is truly ahead.
	Value float64
	// BiasPercent is the pick's own median against Value, in percent, signed in
	// the better direction: how much the pick's median flatters it (negative
	// when the split found it better than its median said).
	BiasPercent float64
}

// Select measures the selection of samples[pick] as the best median (the
// highest, or the lowest with lower) over Splits seeded random splits.
func Select(samples [][]float64, pick int, lower bool) Selection {
	if pick < 0 || pick >= len(samples) {
		return Selection{}
	}
	for _, s := range samples {
		if len(s) < 2 || !positive(s) {
			return Selection{}
		}
	}
	better := func(a, b float64) bool {
		if lower {
			return a < b
		}
		return a > b
	}
	// Seeded by the shape, so a result renders the same every time it is read.
	rng := rand.New(rand.NewPCG(uint64(len(samples)), uint64(len(samples[pick]))))
	shuffled := make([][]float64, len(samples))
	for i, s := range samples {
		shuffled[i] = slices.Clone(s)
	}
	again, sum := 0, 0.0
	for range Splits {
		best, bestAt := 0.0, -1
		for i, s := range shuffled {
			rng.Shuffle(len(s), func(a, b int) { s[a], s[b] = s[b], s[a] })
			// The picking part is the larger half: choosing needs the surer median.
			m := median(s[:len(s)-len(s)/2])
			if bestAt < 0 || better(m, best) {
				best, bestAt = m, i
			}
		}
		if bestAt == pick {
			again++
		}
		s := shuffled[bestAt]
		sum += math.Log(median(s[len(s)-len(s)/2:]))
	}
	value := sum / Splits
	own := math.Log(median(samples[pick]))
	bias := own - value
	if lower {
		bias = -bias
	}
	return Selection{Splits: Splits, Again: float64(again) / Splits, Value: math.Exp(value), BiasPercent: percentOfLog(bias)}
}

// median is Median's figure without its interval (sorted on a copy: its
// caller's order is its own).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return stats.Sample{Xs: s, Sorted: true}.Quantile(0.5)
}

// Separating is the fewest repetitions on each side, at most most, with which
// the Mann-Whitney U test, at the corrected level of a family of tests (see
// Detectable), finds a change of changePercent with probability Power when the
// values' logarithms spread as noise: what would tell two samples apart that one
// run could not, if the change is what it measured. 0 when none up to most
// would (no change, or one too small for the spread).
func Separating(changePercent, noise float64, tests, most int) int {
	if math.IsNaN(changePercent) || math.IsNaN(noise) || changePercent == 0 || noise <= 0 {
		return 0
	}
	// Sizes compared as log ratios: a halving is as large as a doubling.
	size := math.Abs(math.Log1p(changePercent / 100))
	finds := func(n int) bool { return math.Log1p(Detectable(n, n, tests, noise)/100) <= size }
	lo := RepetitionsFor(tests) // below it no test can decide
	if lo > most || !finds(most) {
		return 0
	}
	// Detectable falls as n grows: the fewest that finds it, by bisection.
	hi := most
	for lo < hi {
		mid := (lo + hi) / 2
		if finds(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}

// LogSpread is the pooled standard deviation of two samples' logarithms (about
// their coefficient of variation): NaN with values at or below zero or fewer
// than three in all.
func LogSpread(a, b []float64) float64 {
	if !positive(a) || !positive(b) || len(a)+len(b) < 3 {
		return math.NaN()
	}
	ss := 0.0
	for _, s := range [][]float64{logs(a), logs(b)} {
		if len(s) > 1 {
			ss += float64(len(s)-1) * stats.Variance(s)
		}
	}
	return math.Sqrt(ss / float64(len(a)+len(b)-2))
}
