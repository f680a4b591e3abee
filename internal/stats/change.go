package stats

import "math"

// Change is b against a as a relative change, the figure and its interval from one
// estimator: the Hodges-Lehmann shift of the values' logarithms (the median of
// all pairwise log ratios), turned back into percent. So the figure always lies
// inside its interval, a doubling and a halving are the same size, and the test
// (Mann-Whitney U, which ranks are all it reads) is the same as on the raw values.
type Change struct {
	// Percent is the estimated change of b from a; LowPercent and HighPercent
	// bound it at Confidence (see Difference).
	Percent, LowPercent, HighPercent, Confidence float64
	// P is the two-sided Mann-Whitney U test's p-value, uncorrected: correct a
	// family of tests with Holm.
	P float64
}

// RelativeChange estimates b's change from a over their repetitions. Values at or
// below zero have no logarithm: then the shift of the raw values over a's median
// (NaN when that is 0).
func RelativeChange(a, b []float64) Change {
	if positive(a) && positive(b) {
		d := Compare(logs(a), logs(b))
		return Change{Percent: percentOfLog(d.Shift), LowPercent: percentOfLog(d.Low), HighPercent: percentOfLog(d.High), Confidence: d.Confidence, P: d.P}
	}
	d := Compare(a, b)
	base := Median(a).Median
	if base == 0 {
		nan := math.NaN()
		return Change{Percent: nan, LowPercent: nan, HighPercent: nan, Confidence: d.Confidence, P: d.P}
	}
	base = math.Abs(base)
	return Change{Percent: 100 * d.Shift / base, LowPercent: 100 * d.Low / base, HighPercent: 100 * d.High / base, Confidence: d.Confidence, P: d.P}
}

// percentOfLog is a log ratio as a percent change.
func percentOfLog(l float64) float64 { return 100 * math.Expm1(l) }

func positive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return len(xs) > 0
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}
