package stats

import (
	"math"
	"math/rand/v2"
	"sync"
)

// MinP is the smallest two-sided p-value the exact Mann-Whitney U test can give
// with n1 and n2 values: every value of one side below every value of the other.
func MinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	// 2 / C(n1+n2, n1), in logs: C grows past float64's range long after it matters.
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2*math.Exp(l1+l2-lc))
}

// RepetitionsFor is the fewest repetitions on each side with which a family of
// tests, Holm-corrected, can call any one of them significant: MinP(n, n) below
// Alpha / tests. Fewer, and a cell can only ever say "~".
func RepetitionsFor(tests int) int {
	tests = max(tests, 1)
	n := 1
	for MinP(n, n)*float64(tests) >= Alpha {
		n++
	}
	return n
}

// Power is the detection probability Detectable aims at.
const Power = 0.8

// Detectable is the smallest relative change, in percent, that the Mann-Whitney U
// test between n1 and n2 repetitions finds with probability Power at the
// corrected level Alpha / tests (Bonferroni: Holm's first step, the strictest
// level any test of the family faces, so a conservative answer: Holm's later
// steps find smaller changes), when the values' logarithms have standard deviation
// noise (about the coefficient of variation). +Inf when the test cannot reach that
// level at all (see RepetitionsFor). The noise is taken as normal on the log
// scale; since the test reads only ranks, the answer is a multiple of noise,
// found once per (n1, n2, tests) by a seeded simulation.
func Detectable(n1, n2, tests int, noise float64) float64 {
	if MinP(n1, n2)*float64(max(tests, 1)) >= Alpha {
		return math.Inf(1)
	}
	return percentOfLog(detectableSigmas(n1, n2, max(tests, 1)) * noise)
}

type powerKey struct{ n1, n2, tests int }

var powerCache sync.Map // powerKey → float64 (the shift in noise units)

// detectableSigmas is the shift, in standard deviations, detected with probability
// Power: bisection on a simulation that reuses its draws (common random numbers),
// so power is monotone in the shift and the answer reproducible.
func detectableSigmas(n1, n2, tests int) float64 {
	k := powerKey{n1, n2, tests}
	if v, ok := powerCache.Load(k); ok {
		return v.(float64)
	}
	o, _ := orderAt(n1, n2, Alpha/float64(tests))
	c := float64(o - 1) // the test rejects at U ≤ c or U ≥ n1·n2 − c
	const draws = 4000
	rng := rand.New(rand.NewPCG(uint64(n1)<<32|uint64(n2), uint64(tests)))
	a, b := make([][]float64, draws), make([][]float64, draws)
	for i := range draws {
		a[i], b[i] = normals(rng, n1), normals(rng, n2)
	}
	power := func(shift float64) float64 {
		hits := 0
		for i := range draws {
			u := uStat(a[i], b[i], shift)
			if u <= c || u >= float64(n1*n2)-c {
				hits++
			}
		}
		return float64(hits) / draws
	}
	lo, hi := 0.0, 1.0
	for power(hi) < Power {
		lo, hi = hi, 2*hi
	}
	for range 30 {
		mid := (lo + hi) / 2
		if power(mid) < Power {
			lo = mid
		} else {
			hi = mid
		}
	}
	powerCache.Store(k, hi)
	return hi
}

// uStat is the Mann-Whitney U of a against b shifted up by shift: the pairs where
// b's value is below a's (ties count a half).
func uStat(a, b []float64, shift float64) float64 {
	u := 0.0
	for _, x := range a {
		for _, y := range b {
			switch y += shift; {
			case y < x:
				u++
			case y == x:
				u += 0.5
			}
		}
	}
	return u
}

func normals(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	return xs
}
