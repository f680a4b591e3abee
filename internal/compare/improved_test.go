package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/report"
)

// faster are runs' rows with records/s multiplied by rps and p99 by p99: a
// change of every trial (the probe, if any, untouched).
func faster(runs [][]report.Row, rps, p99 float64) [][]report.Row {
	out := make([][]report.Row, len(runs))
	for i, rows := range runs {
		for _, r := range rows {
			r.RecordsPerSecond *= rps
			r.P99 = int64(float64(r.P99) * p99)
			out[i] = append(out[i], r)
		}
	}
	return out
}

// TestLastingGainIsImproved: every trial 25 % faster in records/s and 25 %
// lower in p99 over the streak, beside a steady machine probe (a broker upgrade
// that helped), is Improved per metric, per trial and for the run, not Within;
// each Improved metric carries the test it rests on, one-sided in the better
// direction, its bound beyond the threshold, and Said and Flagged print it. A
// breach of another metric of the same trial outweighs the gain.
func TestLastingGainIsImproved(t *testing.T) {
	base := probed(steady(5), 1)
	gain := faster(probed(steady(2), 1), 1.25, 0.75)
	res, verdicts := Replay(append(slices.Clone(base), gain...), DefaultOptions)
	if !res.ProbeDecides || !res.MachineSteady || res.Verdict != Improved || verdicts[5] != Within || verdicts[6] != Improved {
		t.Fatalf("verdicts %v, probe decides %v, steady %v; want the second run of the gain Improved: %+v", verdicts, res.ProbeDecides, res.MachineSteady, res)
	}
	th := DefaultThresholds
	for _, tr := range res.Trials {
		if tr.Verdict != Improved {
			t.Errorf("%s: %s, want Improved", tr.Name, tr.Verdict)
		}
		for _, m := range tr.Metrics {
			var bound float64
			switch m.Name {
			case "recordsPerSecond":
				bound = th.ThroughputDropPercent
			case "endToEndP99":
				bound = -th.P99RisePercent
			default:
				if m.Verdict != Within {
					t.Errorf("%s %s: %s, want Within (unchanged)", tr.Name, m.Name, m.Verdict)
				}
				continue
			}
			x := m.Improvement
			if m.Verdict != Improved || x == nil || m.Streak == nil {
				t.Fatalf("%s %s: %s, improvement test %v: want Improved, resting on its test", tr.Name, m.Name, m.Verdict, x)
			}
			// The bound is the improvement's: the other side of the streak's worse test,
			// beyond the threshold in the better direction, at the Holm-compatible level.
			beyond := float64(x.BoundPercent) > bound
			if bound < 0 {
				beyond = float64(x.BoundPercent) < bound
			}
			if x.Runs != 2 || x.Upper != (bound < 0) || x.Upper == m.Streak.Upper || !beyond || !(x.P < 0.05) || x.Confidence < 0.95 ||
				x.TestedOn != "Baseline" {
				t.Errorf("%s %s: improvement test %s, want over 2 runs against its baseline, its bound beyond %+.0f %%", tr.Name, m.Name, x, bound)
			}
			if !strings.Contains(m.Said(), x.String()) || m.StreakTest() != x {
				t.Errorf("%s %s: said %q, want the improvement's test %q", tr.Name, m.Name, m.Said(), x)
			}
		}
	}
	if got := res.Flagged(Improved); len(got) != 2*len(res.Trials) || !strings.Contains(got[0], "last 2 runs' mean vs the baseline, ≥ +") {
		t.Errorf("improved %v", got)
	}
	if !strings.Contains(res.Method(DefaultOptions), "Improved") {
		t.Errorf("method %q does not say Improved", res.Method(DefaultOptions))
	}
	// Any worse verdict dominates: protobuf's serialize time 40 % higher over the
	// same streak regresses it, however much faster its records/s.
	worse := faster(probed(steady(2), 1), 1.25, 0.75)
	for i := range worse {
		worse[i][1].SerMicros *= 1.4
	}
	res, _ = Replay(append(slices.Clone(base), worse...), DefaultOptions)
	if res.Verdict != Regressed || res.Trials[1].Verdict != Regressed || res.Trials[1].Metrics[0].Verdict != Improved || res.Trials[0].Verdict != Improved {
		t.Fatalf("a gain beside a breach: run %s, trials %s and %s; want Regressed, the gain still Improved: %+v", res.Verdict, res.Trials[0].Verdict,
			res.Trials[1].Verdict, res)
	}
}

// TestEnvironmentGainIsNotImproved: the mirror of EnvironmentShifted, as a
// filter. Every trial 25 % faster on a machine the probe shows 40 % faster is the
// machine's gain: Within, not Improved, and not EnvironmentShifted (that
// verdict and its alert are for worse moves). Without the probe, the control
// trial's gain with the others' is the environment's too, while the control
// faster alone is its own.
func TestEnvironmentGainIsNotImproved(t *testing.T) {
	base := probed(steady(5), 1)
	res, _ := Replay(append(slices.Clone(base), faster(probed(steady(2), 1/1.4), 1.25, 1)...), DefaultOptions)
	if !res.ProbeDecides || !res.MachineFaster || res.MachineNotFaster || res.Verdict != Within || !strings.Contains(res.Machine(), "was faster") {
		t.Fatalf("every trial and the machine faster: %s, machine faster %v, not faster %v (%s); want Within", res.Verdict, res.MachineFaster,
			res.MachineNotFaster, res.Machine())
	}
	gain := func(json, protobuf float64) []report.Row {
		return []report.Row{row("json", 40000*json, 20000, 4.7), row("protobuf", 146000*protobuf, 8000, 1.5)}
	}
	res, _ = Replay(append(steady(5), gain(1.3, 1.3), gain(1.3, 1.31)), DefaultOptions)
	if res.ProbeDecides || res.Control != "t-json" || res.Verdict != Within {
		t.Fatalf("every trial faster beside the control: %s %v, want Within", res.Verdict, res.Flagged(res.Verdict))
	}
	res, _ = Replay(append(steady(5), gain(1.3, 1), gain(1.3, 1)), DefaultOptions)
	if res.Verdict != Improved || res.Trials[0].Metrics[0].Verdict != Improved || res.Trials[1].Verdict != Within {
		t.Fatalf("the control alone faster: %s %+v, want its records/s Improved", res.Verdict, res)
	}
}

// TestOneGoodNightIsWithin: a single night 25 % faster (Persistence 2) is
// Within — there is no single-run improvement — though its improvement test is
// recorded; with Persistence 1 the streak is that night alone, and it is Improved.
func TestOneGoodNightIsWithin(t *testing.T) {
	runs := append(probed(steady(6), 1), faster(probed(steady(1), 1), 1.25, 0.75)...)
	res, _ := Replay(runs, DefaultOptions)
	if res.Verdict != Within {
		t.Fatalf("one good night: %s %v, want Within", res.Verdict, res.Flagged(res.Verdict))
	}
	if m := res.Trials[0].Metrics[0]; m.Improvement == nil || m.Improvement.Runs != 2 || m.Said() == m.Improvement.String() {
		t.Fatalf("records/s %+v: want the streak's improvement test recorded, not said", m)
	}
	o := DefaultOptions
	o.Persistence = 1
	res, _ = Replay(runs, o)
	if res.Verdict != Improved || res.Trials[0].Metrics[0].Improvement.Runs != 1 {
		t.Fatalf("persistence 1: %s %+v, want Improved over this run", res.Verdict, res)
	}
}

// TestNightlyImprovedFalseRate simulates unchanged nights of the nightly sample
// (TestNightlyFalseAlarms' machine) at each noise level — the sample's options and
// the defaults, with the control trial or the machine probe as the control, and
// trials of unequal noise — and counts the nights on which some metric was
// Improved. Its family is Holm-corrected as the regressions' is, so it keeps the
// same budget: 12 a year. (Every trial moving up together beside a probe that
// does not see the machine faster is the trials' own, by design.)
func TestNightlyImprovedFalseRate(t *testing.T) {
	const years = 3
	for _, c := range []struct {
		name   string
		o      Options
		reps   int
		scales []float64
		probe  bool
	}{
		{"sample", nightly, 1, nil, false}, {"sample", nightly, 3, nil, false}, {"sample", nightly, 3, unequal, false},
		{"defaults", DefaultOptions, 3, nil, false}, {"sample, probe", nightly, 3, nil, true},
	} {
		for _, n := range noises {
			s := &sim{rng: rand.New(rand.NewPCG(23, uint64(c.reps))), n: n, reps: c.reps, scales: c.scales}
			var history []Run
			improved, regressed := 0, 0
			for night := range 365 * years {
				var rows []report.Row
				if c.probe {
					rows = s.probedRun(unchanged(night), 1)
				} else {
					rows = s.run(unchanged(night))
				}
				cand := Summarize(rows)
				res := Judge(history, cand, c.o)
				history = append(history, cand)
				if night < c.o.MinRuns {
					continue
				}
				if len(res.Flagged(Improved)) > 0 {
					improved++
				}
				if res.Verdict == Regressed {
					regressed++
				}
			}
			perYear := float64(improved) / years
			t.Logf("%-13s %-5s noise%s, %d repetitions: a year %5.1f nights with a metric Improved (%4.1f Regressed)", c.name, n.name, scaled(c.scales), c.reps,
				perYear, float64(regressed)/years)
			if perYear > 12 || math.IsNaN(perYear) {
				t.Errorf("%s, %s noise%s, %d repetitions: %.1f falsely Improved nights a year, budget 12", c.name, n.name, scaled(c.scales), c.reps, perYear)
			}
		}
	}
}
