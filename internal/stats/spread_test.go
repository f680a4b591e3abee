package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestOwnSpreadKeepsCoverage: three trials whose between-run noise differs (one
// three times the others', or graded), 5 baseline runs each. Each trial's own
// spread keeps its interval's 95 % promise for one more run; the spread pooled
// over the trials, which the quiet trials pull down, misses the noisy trial's
// next run far more often (and at equal noise is needlessly wide).
func TestOwnSpreadKeepsCoverage(t *testing.T) {
	const sims = 4000
	slack := 3 * math.Sqrt(0.05*0.95/sims)
	rng := rand.New(rand.NewPCG(8, 10))
	for _, c := range []struct {
		name   string
		sds    [3]float64
		shared float64
		pooled bool // whether the pooled spread keeps the promise too
	}{
		{"equal", [3]float64{0.1, 0.1, 0.1}, 0, true},
		{"equal, shared offsets", [3]float64{0.1, 0.1, 0.1}, 0.1, true},
		{"one noisy", [3]float64{0.3, 0.1, 0.1}, 0, false},
		{"one noisy, shared offsets", [3]float64{0.3, 0.1, 0.1}, 0.05, false},
		{"graded", [3]float64{0.2, 0.1, 0.05}, 0, false},
	} {
		missed, missedPooled := 0, 0
		for range sims {
			env := make([]float64, 6)
			for i := range env {
				env[i] = c.shared * rng.NormFloat64()
			}
			var levels []Level
			var next float64
			for trial, sd := range c.sds {
				var base []float64
				for run := range 5 {
					base = append(base, 100*math.Exp(env[run]+sd*rng.NormFloat64()))
				}
				levels = append(levels, LevelOf(base))
				if trial == 0 {
					next = 100 * math.Exp(env[5]+sd*rng.NormFloat64())
				}
			}
			if s := levels[0].ShiftOf(next); s.LowPercent > 0 || s.HighPercent < 0 {
				missed++
			}
			if s := Pool(levels)[0].ShiftOf(next); s.LowPercent > 0 || s.HighPercent < 0 {
				missedPooled++
			}
		}
		rate, pooled := float64(missed)/sims, float64(missedPooled)/sims
		t.Logf("%-26s trial 0's 95 %% interval missed: own spread %4.1f %%, pooled %4.1f %%", c.name, 100*rate, 100*pooled)
		if math.Abs(rate-0.05) > slack {
			t.Errorf("%s: the own-spread interval missed in %.1f %% of runs, want 5 %%", c.name, 100*rate)
		}
		if c.pooled != (pooled <= 0.05+slack) {
			t.Errorf("%s: the pooled interval missed in %.1f %% of runs: the case does not show what it is for", c.name, 100*pooled)
		}
	}
}
