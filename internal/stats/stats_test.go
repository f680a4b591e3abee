package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aclements/go-moremath/stats"
)

func TestMedianSmallSamples(t *testing.T) {
	for _, c := range []struct {
		values           []float64
		median, lo, hi   float64
		minConf, maxConf float64
	}{
		{[]float64{7}, 7, 7, 7, 0, 0},
		{[]float64{3, 1, 2}, 2, 1, 3, 0.75, 0.75},
		{[]float64{5, 1, 4, 2, 3}, 3, 1, 5, 0.9375, 0.9375},
		// n = 10: X(2)..X(9) covers the median with 97.9 %.
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 2, 9, 0.95, 0.98},
	} {
		e := Median(c.values)
		if e.Median != c.median || e.Low != c.lo || e.High != c.hi || e.Confidence < c.minConf || e.Confidence > c.maxConf || e.N != len(c.values) {
			t.Errorf("Median(%v) = %+v, want median %v in [%v, %v] at %v..%v", c.values, e, c.median, c.lo, c.hi, c.minConf, c.maxConf)
		}
	}
}

// TestCoverage checks the intervals' promise against a known truth, at 3, 5, 8 and
// 10 repetitions: over many samples from a skewed distribution with a known
// median, the median's interval misses it no more often than 1 − its confidence
// says, two samples of the same distribution are called significant no more often
// than Alpha (an A/A test), the shift's interval covers a planted 20 % shift at its
// confidence, and from 5 repetitions the shift is found. (Run-level offsets:
// TestLevelCoverage.)
func TestCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// 1 + exponential: a long right tail like a noisy neighbour's, median 1 + ln 2/20.
	draw := func(n int, scale float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = scale * (1 + rng.ExpFloat64()/20) // CV about 5 %, like throughput
		}
		return xs
	}
	const runs = 4000
	slack := 3 * math.Sqrt(0.05*0.95/runs)
	truth := 1 + math.Ln2/20
	for _, n := range []int{3, 5, 8, 10} {
		missed, falseAlarms, found, shiftMissed := 0, 0, 0, 0
		var conf, diffConf float64
		for range runs {
			a := draw(n, 1)
			e := Median(a)
			conf = e.Confidence
			if truth < e.Low || truth > e.High {
				missed++
			}
			b := draw(n, 1)
			if d := Compare(a, b); d.Significant {
				falseAlarms++
			}
			slow := draw(n, 0.8) // a planted 20 % slowdown
			d := Compare(a, slow)
			diffConf = d.Confidence
			if d.Significant && d.High < 0 {
				found++
			}
			if want := -0.2 * truth; want < d.Low || want > d.High {
				shiftMissed++
			}
		}
		if n >= 6 && conf < Confidence {
			t.Fatalf("%d repetitions: confidence %v below %v", n, conf, Confidence)
		}
		if rate := float64(missed) / runs; rate > 1-conf+slack {
			t.Errorf("n = %d: median interval missed the true median in %.1f %% of samples, promised at most %.1f %%", n, 100*rate, 100*(1-conf))
		}
		if rate := float64(falseAlarms) / runs; rate > Alpha+slack {
			t.Errorf("n = %d: A/A: %.1f %% called significant, want at most %.0f %%", n, 100*rate, 100*Alpha)
		}
		if rate := float64(shiftMissed) / runs; rate > 1-diffConf+slack {
			t.Errorf("n = %d: shift interval missed the planted shift in %.1f %% of samples, promised at most %.1f %%", n, 100*rate, 100*(1-diffConf))
		}
		if rate := float64(found) / runs; n >= 5 && rate < 0.95 {
			t.Errorf("n = %d: planted 20 %% slowdown found in only %.1f %% of samples", n, 100*rate)
		}
	}
}

func TestCompareSmallSamples(t *testing.T) {
	// 3 and 3: at best p = 0.1, never significant; the range is a 90 % interval.
	d := Compare([]float64{1, 2, 3}, []float64{11, 12, 13})
	if d.Significant || math.Abs(d.P-0.1) > 1e-9 || d.Low != 8 || d.High != 12 || d.Shift != 10 || math.Abs(d.Confidence-0.9) > 1e-9 {
		t.Errorf("3 vs 3 = %+v", d)
	}
	// 4 and 4 can be told apart (p = 0.029).
	d = Compare([]float64{1, 2, 3, 4}, []float64{11, 12, 13, 14})
	if !d.Significant || d.Low <= 0 || d.Confidence < Confidence {
		t.Errorf("4 vs 4 = %+v", d)
	}
	// Identical values: no difference, and an interval of exactly 0.
	d = Compare([]float64{5, 5, 5}, []float64{5, 5, 5})
	if d.Significant || d.P != 1 || d.Low != 0 || d.High != 0 {
		t.Errorf("equal = %+v", d)
	}
}

// TestCompareLargeSamples: a schedule may pool many baseline values; the interval
// then comes from the normal approximation, fast, and still covers the shift.
func TestCompareLargeSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := make([]float64, 300), make([]float64, 20)
	for i := range a {
		a[i] = 100 + rng.NormFloat64()
	}
	for i := range b {
		b[i] = 90 + rng.NormFloat64()
	}
	d := Compare(a, b)
	if !d.Significant || d.Low > -10 || d.High < -10 || d.Confidence < 0.94 || d.Confidence > 0.96 {
		t.Fatalf("300 vs 20, shifted by -10: %+v", d)
	}
	// Where both apply, the approximation's order is within one of the exact one.
	for _, n := range [][2]int{{20, 20}, {21, 20}, {30, 14}} {
		exact := 0
		u := stats.UDist{N1: n[0], N2: n[1]}
		for exact+1 <= n[0]*n[1]/2 && u.CDF(float64(exact)) <= Alpha/2 {
			exact++
		}
		approx, _ := order(n[0], n[1])
		if approx < exact-1 || approx > exact+1 {
			t.Errorf("%v: normal order %d, exact %d", n, approx, exact)
		}
	}
}
