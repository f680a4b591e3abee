// Package stats says how sure a repeated measurement is: the median of a trial's
// repetitions with a distribution-free confidence interval, and whether two trials
// differ (the Mann-Whitney U test, with the Hodges-Lehmann interval of their shift).
// Benchmark numbers are rarely normal (tails, bimodal GC pauses, a noisy
// neighbour), so nothing here assumes they are: the method is benchstat's
// (golang.org/x/perf/benchmath's AssumeNothing), on the same library. The docs'
// measurement page says why, and how many repetitions each statement needs.
package stats

import (
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/aclements/go-moremath/stats"
)

// Confidence is the level every interval is asked for.
const Confidence = 0.95

// Alpha is the significance level of a comparison: 1 − Confidence.
const Alpha = 1 - Confidence

// Estimate is the median of n repetitions with its confidence interval.
type Estimate struct {
	// N is the number of repetitions.
	N int
	// Median and Mean of the values.
	Median, Mean float64
	// Low and High bound the interval that contains the true median with
	// probability Confidence. From order statistics of the values: exact for any
	// continuous distribution. Below 6 repetitions no such interval reaches 95 %;
	// then it is the values' range and Confidence says what it reaches (75 % for
	// 3, 1 − 2^(1−n)); with one repetition it is the value itself, Confidence 0.
	Low, High  float64
	Confidence float64
}

// Median estimates the median of values, its interval at Confidence.
func Median(values []float64) Estimate { return MedianAt(values, Confidence) }

// MedianAt estimates the median of values, its interval at level (the widest
// the values give, at its own level, when too few reach it).
func MedianAt(values []float64, level float64) Estimate {
	n := len(values)
	if n == 0 {
		return Estimate{}
	}
	xs := slices.Clone(values)
	slices.Sort(xs)
	sample := stats.Sample{Xs: xs, Sorted: true}
	e := Estimate{N: n, Median: sample.Quantile(0.5), Mean: stats.Mean(xs), Low: xs[0], High: xs[n-1]}
	if n == 1 {
		return e
	}
	ci := quantileCI(n, level)
	if ci.LoOrder < 1 || ci.HiOrder > n {
		// Too few for the level: the widest interval the values give, at its own.
		e.Confidence = 1 - math.Pow(2, float64(1-n))
		return e
	}
	e.Low, e.High, e.Confidence = xs[ci.LoOrder-1], xs[ci.HiOrder-1], ci.Confidence
	return e
}

// quantileCIs caches the median's order statistics by sample size and level: the
// binomial sums behind them cost more than the sort, and schedules, plans and
// simulations ask for the same few again and again.
var quantileCIs sync.Map

type ciKey struct {
	n     int
	level float64
}

func quantileCI(n int, level float64) stats.QuantileCIResult {
	k := ciKey{n, level}
	if ci, ok := quantileCIs.Load(k); ok {
		return ci.(stats.QuantileCIResult)
	}
	ci := stats.QuantileCI(n, 0.5, level)
	quantileCIs.Store(k, ci)
	return ci
}

// Difference is b against a: their shift and whether it is significant.
type Difference struct {
	// Shift is the Hodges-Lehmann estimate of b − a (the median of all pairwise
	// differences); Low and High bound its confidence interval, at Confidence
	// (95 % when the repetitions allow it; 90 % with 3 and 3, the most they allow).
	Shift, Low, High, Confidence float64
	// P is the two-sided Mann-Whitney U test's p-value (exact without ties and
	// for small samples); Significant says P < Alpha. With 3 repetitions each no
	// difference can be significant (P ≥ 0.1): it takes 4 and 4.
	P           float64
	Significant bool
}

// exactLimit is the largest n1·n2 whose U distribution is walked exactly: each
// step of the walk costs O(n1·n2·k), and a schedule may pool hundreds of
// baseline values. Beyond it the normal approximation is within a unit of k.
const exactLimit = 400

// order is the largest k ≥ 1 with P(U < k) ≤ α/2, and P(U < k) — or, when none
// exists, 0 and P(U ≤ 0): the interval is then the differences' range.
func order(n1, n2 int) (k int, below float64) { return orderAt(n1, n2, Alpha) }

// orderAt is order at the two-sided level: the test at that level rejects at
// U ≤ k − 1 or U ≥ n1·n2 − (k − 1).
func orderAt(n1, n2 int, level float64) (k int, below float64) {
	n := n1 * n2
	if n > exactLimit {
		mu, sigma := float64(n)/2, math.Sqrt(float64(n)*float64(n1+n2+1)/12)
		cdf := func(u int) float64 { return stats.StdNormal.CDF((float64(u) + 0.5 - mu) / sigma) } // continuity-corrected P(U ≤ u)
		k = int(math.Floor(mu - stats.StdNormal.InvCDF(1-level/2)*sigma))
		for k > 0 && cdf(k-1) > level/2 {
			k--
		}
		for k+1 <= n/2 && cdf(k) <= level/2 {
			k++
		}
		if k == 0 {
			return 0, cdf(0)
		}
		return k, cdf(k - 1)
	}
	u := stats.UDist{N1: n1, N2: n2}
	for k+1 <= n/2 && u.CDF(float64(k)) <= level/2 {
		k++
	}
	if k == 0 {
		return 0, u.CDF(0)
	}
	return k, u.CDF(float64(k - 1))
}

// Compare tests whether b's values come from a distribution shifted from a's.
func Compare(a, b []float64) Difference {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return Difference{P: 1}
	}
	diffs := make([]float64, 0, n1*n2)
	for _, x := range a {
		for _, y := range b {
			diffs = append(diffs, y-x)
		}
	}
	slices.Sort(diffs)
	d := Difference{P: 1, Shift: (stats.Sample{Xs: diffs, Sorted: true}).Quantile(0.5), Low: diffs[0], High: diffs[len(diffs)-1]}
	// The interval's order statistics come from the U distribution: k is the largest
	// with P(U < k) ≤ α/2, and [D(k), D(n1·n2+1−k)] covers the shift with
	// probability 1 − 2·P(U < k) (Hollander & Wolfe, Nonparametric Statistical
	// Methods, 4.3). Without a k ≥ 1 the whole range is the interval.
	k, below := order(n1, n2)
	if k == 0 {
		d.Confidence = 1 - 2*below
	} else {
		d.Low, d.High = diffs[k-1], diffs[len(diffs)-k]
		d.Confidence = 1 - 2*below
	}
	res, err := stats.MannWhitneyUTest(a, b, stats.LocationDiffers)
	switch {
	case errors.Is(err, stats.ErrSamplesEqual):
		// Every value the same: no evidence of a difference.
	case err != nil:
		return d
	default:
		d.P = res.P
		d.Significant = res.P < Alpha
	}
	return d
}
