package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aclements/go-moremath/stats"
)

// runs simulates k runs of one trial, each the median of reps repetitions: a
// run-level offset (between) shared by its repetitions, and each repetition's own
// noise (within), on the log scale around truth.
func runs(rng *rand.Rand, k, reps int, truth, between, within float64) (values []float64, repetitions [][]float64) {
	for range k {
		off := between * rng.NormFloat64()
		xs := make([]float64, reps)
		for i := range xs {
			xs[i] = truth * math.Exp(off+within*rng.NormFloat64())
		}
		values, repetitions = append(values, Median(xs).Median), append(repetitions, xs)
	}
	return values, repetitions
}

// TestLevelCoverage checks the two-level interval against a known truth: with
// run-level offsets as large as the noise within a run (this VM's, idle), a new
// run's change from N = 3, 5 and 10 baseline runs (nothing changed) is covered
// by its 95 % interval at least 95 % of the time, less the simulation's error; and
// a run 20 % slower is covered at the planted change. The repetitions' own
// interval of the median, read as if it spoke of the trial across runs, covers the
// long-run median far less often than it claims: why a schedule does not use it.
func TestLevelCoverage(t *testing.T) {
	const sims = 4000
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{3, 5, 10} {
		missed, missedPlanted, naive := 0, 0, 0
		var naiveConf float64
		for range sims {
			base, _ := runs(rng, n, 5, 100, 0.064, 0.064)
			l := LevelOf(base)
			next, reps := runs(rng, 1, 5, 100, 0.064, 0.064)
			s := l.ShiftOf(next[0])
			if s.LowPercent > 0 || s.HighPercent < 0 {
				missed++
			}
			slow, _ := runs(rng, 1, 5, 80, 0.064, 0.064)
			if s := l.ShiftOf(slow[0]); s.LowPercent > -20 || s.HighPercent < -20 {
				missedPlanted++
			}
			e := Median(reps[0])
			naiveConf = e.Confidence
			if e.Low > 100 || e.High < 100 {
				naive++
			}
		}
		// The binomial's standard error at 5 %: 0.34 % at 4,000 samples; 3 of them.
		slack := 3 * math.Sqrt(0.05*0.95/sims)
		if rate := float64(missed) / sims; rate > 0.05+slack {
			t.Errorf("N = %d: the change's 95 %% interval missed 0 in %.1f %% of runs", n, 100*rate)
		}
		if rate := float64(missedPlanted) / sims; rate > 0.05+slack {
			t.Errorf("N = %d: the change's 95 %% interval missed the planted −20 %% in %.1f %% of runs", n, 100*rate)
		}
		t.Logf("N = %2d: missed %.1f %% (0) and %.1f %% (−20 %%); the repetitions' %.1f %% interval missed the long-run median in %.1f %%",
			n, 100*float64(missed)/sims, 100*float64(missedPlanted)/sims, 100*naiveConf, 100*float64(naive)/sims)
		if rate := float64(naive) / sims; rate < 2*(1-naiveConf) {
			t.Errorf("N = %d: the within-run interval missed the long-run median in only %.1f %%: the test's noise has no run-level part", n, 100*rate)
		}
	}
}

// TestPoolKeepsCoverage: spreads pooled over three trials keep the interval's
// promise, whether the trials' runs are independent or share each run's offset
// (the environment, as large as each trial's own noise): the pooled level keeps
// one trial's degrees of freedom, since shared offsets make the trials' spreads
// move together.
func TestPoolKeepsCoverage(t *testing.T) {
	const sims = 4000
	rng := rand.New(rand.NewPCG(8, 9))
	for _, shared := range []float64{0, 0.1} {
		missed := 0
		for range sims {
			env := make([]float64, 6) // 5 baseline runs and the new one
			for i := range env {
				env[i] = shared * rng.NormFloat64()
			}
			var levels []Level
			var next float64
			for trial := range 3 {
				var base []float64
				for run := range 5 {
					base = append(base, 100*math.Exp(env[run]+0.1*rng.NormFloat64()))
				}
				levels = append(levels, LevelOf(base))
				if trial == 0 {
					next = 100 * math.Exp(env[5]+0.1*rng.NormFloat64())
				}
			}
			pooled := Pool(levels)
			if pooled[0].DF != 4 || pooled[0].Center != levels[0].Center || pooled[1].Spread != pooled[0].Spread {
				t.Fatalf("pooled %+v from %+v", pooled[0], levels[0])
			}
			if s := pooled[0].ShiftOf(next); s.LowPercent > 0 || s.HighPercent < 0 {
				missed++
			}
		}
		if rate := float64(missed) / sims; rate > 0.05+3*math.Sqrt(0.05*0.95/sims) {
			t.Errorf("pooled, shared offsets %.0f %%: missed 0 in %.1f %% of runs", 100*shared, 100*rate)
		}
	}
}

// TestShiftOfMeanOfRuns: the mean of m new runs has a narrower interval than one,
// and a one-sided p-value that says which way the level moved.
func TestShiftOfMeanOfRuns(t *testing.T) {
	l := LevelOf([]float64{100, 104, 96, 101, 99})
	one, two := l.ShiftOf(90), l.ShiftOf(90, 90)
	if math.Abs(one.Percent+10.0) > 0.2 || two.Percent != one.Percent || two.HighPercent-two.LowPercent >= one.HighPercent-one.LowPercent ||
		!(two.PLower < one.PLower) || math.Abs(one.PLower+one.PHigher-1) > 1e-12 {
		t.Fatalf("one %+v two %+v", one, two)
	}
	if s := LevelOf([]float64{100}).ShiftOf(90); math.Abs(s.Percent+10) > 1e-9 || !math.IsNaN(s.LowPercent) || !math.IsNaN(s.PLower) {
		t.Fatalf("one baseline run: the change, no interval: %+v", s)
	}
}

// TestHolm: the step-down adjustment against hand-computed values, NaN left out,
// and its promise: in families of 20 A/A tests, any false "different" at most 5 %
// of the time (uncorrected, nearly two in three families have one).
func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, math.NaN(), 0.03, 0.005})
	want := []float64{0.03, 0.06, math.NaN(), 0.06, 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12) {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if n := Tests(got); n != 4 {
		t.Fatalf("%d tests", n)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	const families = 2000
	anyRaw, anyHolm := 0, 0
	for range families {
		ps := make([]float64, 20)
		for i := range ps {
			ps[i] = rng.Float64() // p-values of true null hypotheses are uniform
		}
		if slices.Min(ps) < Alpha {
			anyRaw++
		}
		if slices.Min(Holm(ps)) < Alpha {
			anyHolm++
		}
	}
	if rate := float64(anyHolm) / families; rate > Alpha+3*math.Sqrt(Alpha*(1-Alpha)/families) {
		t.Errorf("Holm: a false 'different' in %.1f %% of families", 100*rate)
	}
	if rate := float64(anyRaw) / families; rate < 0.5 {
		t.Errorf("uncorrected: only %.1f %% of families had a false 'different'", 100*rate)
	}
}

// TestRelativeChange: the figure and its interval are one estimator, the figure
// always inside; a doubling is +100 %, a halving −50 %; the test is the U test's.
func TestRelativeChange(t *testing.T) {
	a := []float64{100, 102, 98, 101, 99}
	c := RelativeChange(a, []float64{200, 204, 196, 202, 198})
	if math.Abs(c.Percent-100) > 0.5 || c.LowPercent > c.Percent || c.HighPercent < c.Percent || c.Confidence < Confidence || !(c.P < Alpha) {
		t.Fatalf("doubling %+v", c)
	}
	c = RelativeChange(a, []float64{50, 51, 49, 50.5, 49.5})
	if math.Abs(c.Percent+50) > 0.5 || c.P != RelativeChange([]float64{1, 2, 3, 4, 5}, []float64{-5, -4, -3, -2, -1}).P {
		t.Fatalf("halving %+v", c)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for range 500 {
		x, y := make([]float64, 5), make([]float64, 6)
		for i := range x {
			x[i] = math.Exp(rng.NormFloat64())
		}
		for i := range y {
			y[i] = math.Exp(rng.NormFloat64())
		}
		if c := RelativeChange(x, y); c.Percent < c.LowPercent || c.Percent > c.HighPercent {
			t.Fatalf("the figure outside its interval: %+v", c)
		}
	}
	if c := RelativeChange([]float64{0, 0, 0}, []float64{1, 2, 3}); !math.IsNaN(c.Percent) {
		t.Fatalf("change from 0: %+v", c)
	}
}

// TestPower: the smallest p the U test can give, the repetitions a corrected
// family needs, and the detectable change, checked against an independent
// simulation with the library's own U test.
func TestPower(t *testing.T) {
	if p := MinP(3, 3); math.Abs(p-0.1) > 1e-12 {
		t.Fatalf("MinP(3, 3) = %v", p)
	}
	if p := MinP(4, 4); math.Abs(p-2.0/70) > 1e-12 {
		t.Fatalf("MinP(4, 4) = %v", p)
	}
	// One test needs 4 each; 35 (a 36-trial table against its baseline) need 7.
	if n1, n35 := RepetitionsFor(1), RepetitionsFor(35); n1 != 4 || n35 != 7 {
		t.Fatalf("RepetitionsFor: 1 → %d, 35 → %d", n1, n35)
	}
	if d := Detectable(3, 3, 1, 0.03); !math.IsInf(d, 1) {
		t.Fatalf("3 vs 3 detects %v", d)
	}
	// At the detectable change the test finds it about 80 % of the time (±3
	// standard errors of 2,000 draws), a third of it far less often.
	rng := rand.New(rand.NewPCG(12, 34))
	for _, c := range []struct{ n, tests int }{{5, 1}, {10, 1}, {10, 35}} {
		d := Detectable(c.n, c.n, c.tests, 0.03)
		shift := math.Log1p(d / 100)
		power := func(shift float64) float64 {
			hits := 0
			for range 2000 {
				a, b := make([]float64, c.n), make([]float64, c.n)
				for i := range a {
					a[i], b[i] = 0.03*rng.NormFloat64(), shift+0.03*rng.NormFloat64()
				}
				r, err := stats.MannWhitneyUTest(a, b, stats.LocationDiffers)
				if err == nil && r.P < Alpha/float64(c.tests) {
					hits++
				}
			}
			return float64(hits) / 2000
		}
		se := 3 * math.Sqrt(Power*(1-Power)/2000)
		if p := power(shift); math.Abs(p-Power) > se {
			t.Errorf("n = %d, %d tests: at the detectable %.1f %% the test found it in %.1f %%, want %.0f %%", c.n, c.tests, d, 100*p, 100*Power)
		}
		if p := power(shift / 3); p > 0.5 {
			t.Errorf("n = %d: a third of the detectable change found in %.1f %%", c.n, 100*p)
		}
		t.Logf("n = %2d each, %2d tests, 3 %% noise: %.1f %% detectable at %.0f %% power", c.n, c.tests, d, 100*Power)
	}
}
