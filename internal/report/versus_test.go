package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/stats"
)

// aaTable is one simulated experiment of n identical trials, each repeated reps
// times, interleaved: every round (repetition) has its own offset shared by all
// trials (the machine's drift), and each trial run its own noise.
func aaTable(rng *rand.Rand, n, reps int, round, within float64) []Row {
	var rows []Row
	for k := range reps {
		off := round * rng.NormFloat64()
		for i := range n {
			name := fmt.Sprintf("t%03d-json-1176b", i)
			rows = append(rows, Row{Name: fmt.Sprintf("%s-r%d", name, k+1), Config: name, Repetition: k + 1, Codec: "json", SizeBytes: 1176,
				RecordsPerSecond: 50000 * math.Exp(off+within*rng.NormFloat64()), Reference: i == 0})
		}
	}
	return rows
}

// TestAATableFamilyWise: an A/A experiment of 36 identical trials, each against the
// declared baseline, Holm-corrected: a false "different" anywhere in the table in
// at most 5 % of experiments (the budget docs/measurement.md states), at 7 (the
// fewest with which 35 tests can reach significance) and 10 repetitions, with and
// without round offsets as large as the noise; uncorrected, nearly half of the
// tables had one. With 5 repetitions no cell can reach significance, and every
// cell says what it needs.
func TestAATableFamilyWise(t *testing.T) {
	const tables = 400
	rng := rand.New(rand.NewPCG(21, 22))
	for _, reps := range []int{5, 7, 10} {
		for _, round := range []float64{0, 0.03} {
			anyHolm, anyRaw := 0, 0
			needs := 0
			for range tables {
				rows := aaTable(rng, 36, reps, round, 0.03)
				vs, tests := VersusReference(rows, Metrics[0])
				if tests != 35 {
					t.Fatalf("%d tests, want 35", tests)
				}
				holm, raw := false, false
				for _, v := range vs {
					holm = holm || v.Significant
					raw = raw || (!v.Reference && v.Change.P < stats.Alpha)
					if v.NeedsRepetitions > 0 {
						needs++
					}
				}
				if holm {
					anyHolm++
				}
				if raw {
					anyRaw++
				}
			}
			rate := float64(anyHolm) / tables
			t.Logf("36 A/A trials, %2d repetitions, round offsets %.0f %%: a false 'different' in %.1f %% of tables (uncorrected %.1f %%)",
				reps, 100*round, 100*rate, 100*float64(anyRaw)/tables)
			if rate > stats.Alpha+3*math.Sqrt(stats.Alpha*(1-stats.Alpha)/tables) {
				t.Errorf("%d repetitions: a false 'different' in %.1f %% of A/A tables, budget 5 %%", reps, 100*rate)
			}
			if reps == 5 && (needs != tables*35 || anyHolm != 0) {
				t.Errorf("5 repetitions, 35 tests: %d cells said what they need, want every one", needs)
			}
		}
	}
}

// TestVersusCells: the baseline cell says so; a planted 30 % drop is found with
// its interval and confidence; a twin is ~ with its interval; with too few
// repetitions the cell says how many it needs.
func TestVersusCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var rows []Row
	for k := range 6 {
		for i, f := range []float64{1, 1, 0.7} {
			name := fmt.Sprintf("t%03d-json-1176b", i)
			rows = append(rows, Row{Name: fmt.Sprintf("%s-r%d", name, k+1), Config: name, Repetition: k + 1,
				RecordsPerSecond: 50000 * f * math.Exp(0.02*rng.NormFloat64()), Reference: i == 1})
		}
	}
	vs, tests := VersusReference(rows, Metrics[0])
	if tests != 2 || vs["t001-json-1176b"].String() != "baseline" {
		t.Fatalf("%d tests, %v", tests, vs)
	}
	if c := vs["t002-json-1176b"].String(); !strings.HasPrefix(c, "-3") || !strings.Contains(c, " % [") || !strings.HasSuffix(c, "] 96 %") {
		t.Errorf("planted drop cell %q", c)
	}
	if c := vs["t000-json-1176b"].String(); !strings.HasPrefix(c, "~ [") {
		t.Errorf("twin cell %q", c)
	}
	short := rows[:9] // 3 repetitions each
	vs, _ = VersusReference(short, Metrics[0])
	if c := vs["t002-json-1176b"].String(); c != "needs ≥ 5 reps" {
		t.Errorf("3 repetitions, 2 tests: %q", c)
	}
}

// TestPlanOf: a run's own sensitivity comes from its repetitions' noise and says
// what the table could find, or how many repetitions it needs; without
// repetitions it says the default noise was assumed.
func TestPlanOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	rows := aaTable(rng, 3, 6, 0, 0.03)
	p := PlanOf(rows)
	if p.Configs != 3 || p.Repetitions != 6 || p.Tests != 2 || p.Noise < 0.015 || p.Noise > 0.05 || math.IsInf(p.DetectablePercent, 0) ||
		!strings.Contains(p.Source, "this run's repetitions") {
		t.Fatalf("%+v", p)
	}
	s := p.Sensitivity()
	if s.DetectablePercent == "" || s.PowerPercent != 80 || s.NeedsRepetitions != 0 {
		t.Fatalf("sensitivity %+v", s)
	}
	one := PlanOf(aaTable(rng, 36, 1, 0, 0.03))
	if one.Noise != DefaultNoise || one.NeedsRepetitions != 7 || one.Sensitivity().DetectablePercent != "" ||
		!strings.Contains(strings.Join(one.Lines(), "\n"), "needs ≥ 7") {
		t.Fatalf("one repetition: %+v", one)
	}
}
