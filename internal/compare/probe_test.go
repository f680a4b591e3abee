package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/summary"
)

// probed are runs' rows with a machine probe of cpu ns/op scaled by machine (and
// its run-to-run wobble of ±2 %, as steady's).
func probed(runs [][]report.Row, machine float64) [][]report.Row {
	out := make([][]report.Row, len(runs))
	for i, rows := range runs {
		w := 1 + 0.02*float64(i%3-1)
		for _, r := range rows {
			r.Probe = &summary.Probe{CPUNanosPerOp: int64(16000 * machine * w), FsyncMicros: int64(2000 * w), ConnectMicros: int64(150 * w)}
			out[i] = append(out[i], r)
		}
	}
	return out
}

// TestProbeDecidesTheEnvironment: with the machine probe in every run, a uniform
// 25 % drop of every trial is the trials' own (an upgrade): Regressed, however
// many trials moved, and the probe said so; the same drop with the probe 40 %
// slower is the machine's: EnvironmentShifted. Unchanged runs stay Within, and
// without the probe in the candidate the control trial decides, as before.
func TestProbeDecidesTheEnvironment(t *testing.T) {
	slow := func(f float64) []report.Row {
		return []report.Row{row("json", 40000*f, 20000, 4.7), row("protobuf", 146000*f, 8000, 1.5)}
	}
	for _, c := range []struct {
		name    string
		runs    [][]report.Row
		want    Verdict
		shifted bool
	}{
		{"unchanged", probed(steady(7), 1), Within, false},
		{"trials slower, machine not", append(probed(steady(5), 1), probed([][]report.Row{slow(0.75), slow(0.76)}, 1)...), Regressed, false},
		{"trials and machine slower", append(probed(steady(5), 1), probed([][]report.Row{slow(0.75), slow(0.76)}, 1.4)...), EnvironmentShifted, true},
		{"machine slower, trials not", append(probed(steady(5), 1), probed(steady(2), 1.4)...), Within, true},
		{"no probe in the candidate", append(probed(steady(6), 1), slow(0.75), slow(0.76)), EnvironmentShifted, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, _ := Replay(c.runs, DefaultOptions)
			withProbe := c.runs[len(c.runs)-1][0].Probe != nil
			if res.Verdict != c.want || res.MachineShifted != c.shifted || res.ProbeDecides != withProbe || (withProbe && res.Control != "") {
				t.Fatalf("verdict %s, machine shifted %v, probe decides %v, control %q; want %s, %v, %v: %+v",
					res.Verdict, res.MachineShifted, res.ProbeDecides, res.Control, c.want, c.shifted, withProbe, res)
			}
			if withProbe && (len(res.Probe) != len(probeParts) || res.Probe[0].BaselineRuns < DefaultOptions.MinRuns) {
				t.Fatalf("probe parts %+v: want every part against the baseline", res.Probe)
			}
			if c.want != Within {
				for _, tr := range res.Trials {
					if tr.Metrics[0].Verdict != c.want {
						t.Errorf("%s: records/s %s, want %s (every trial moved)", tr.Name, tr.Metrics[0].Verdict, c.want)
					}
				}
			}
			if m := res.Machine(); withProbe && (!strings.Contains(m, "cpu") || strings.Contains(m, "was slower") != c.shifted) {
				t.Errorf("the probe's words %q: want each part, and slower exactly when it shifted (%v)", m, c.shifted)
			}
			t.Logf("%s: %s; %s", c.name, res.Verdict, res.Machine())
		})
	}
}

// TestProbeNeedsItsBaseline: a probe fewer than MinRuns earlier runs measured,
// or one its baseline runs all measured alike (copies of one result pinned as a
// baseline: no noise known), cannot stand in for the control: the control trial
// decides.
func TestProbeNeedsItsBaseline(t *testing.T) {
	runs := append(steady(4), probed(steady(2), 1)...) // the last two runs probed: one baseline run
	res, _ := Replay(runs, DefaultOptions)
	if res.ProbeDecides || res.Control == "" {
		t.Fatalf("probe decides %v, control %q: a probe with one baseline run cannot decide", res.ProbeDecides, res.Control)
	}
	copies := probed(steady(1), 1)[0]
	runs = [][]report.Row{copies, copies, copies, copies, probed(steady(1), 1.3)[0]}
	if res, _ := Replay(runs, DefaultOptions); res.ProbeDecides || res.MachineShifted {
		t.Fatalf("probe decides %v, machine shifted %v: identical baseline probes know no noise", res.ProbeDecides, res.MachineShifted)
	}
}

// TestProbeCannotTell: a probe too noisy to show the machine steady or slower
// does not decide: the control trial does, as without a probe, and one trial's
// drop beside it is its own (Regressed); every trial's drop, the control's too,
// is the environment's.
func TestProbeCannotTell(t *testing.T) {
	runs := probed(steady(7), 1)
	for i := range runs[:5] {
		for j := range runs[i] {
			p := *runs[i][j].Probe
			p.CPUNanosPerOp = int64(float64(p.CPUNanosPerOp) * (1 + 0.2*float64(i%3-1))) // ±20 %
			runs[i][j].Probe = &p
		}
	}
	for _, i := range []int{5, 6} {
		runs[i][1].RecordsPerSecond *= 0.75 // protobuf alone
	}
	res, _ := Replay(runs, DefaultOptions)
	if res.ProbeDecides || res.Control == "" || res.MachineSteady || res.MachineShifted || res.Verdict != Regressed {
		t.Fatalf("verdict %s, probe decides %v, control %q, steady %v, shifted %v: want one trial's drop Regressed beside the control; %s",
			res.Verdict, res.ProbeDecides, res.Control, res.MachineSteady, res.MachineShifted, res.Machine())
	}
	for _, i := range []int{5, 6} {
		runs[i][0].RecordsPerSecond *= 0.75 // and the control
	}
	if res, _ = Replay(runs, DefaultOptions); res.ProbeDecides || res.Verdict != EnvironmentShifted {
		t.Fatalf("verdict %s, probe decides %v: want every trial's drop EnvironmentShifted by the control; %s", res.Verdict, res.ProbeDecides, res.Machine())
	}
}

// TestProbeOfOneRuntime: producers of two runtimes measure with loops of their
// own; a run with both has no probe, and the control trial decides.
func TestProbeOfOneRuntime(t *testing.T) {
	runs := probed(steady(6), 1)
	for i := range runs {
		runs[i][0].Runtime, runs[i][1].Runtime = "go", "jvm→go"
	}
	res, _ := Replay(runs, DefaultOptions)
	if res.ProbeDecides || res.Control == "" {
		t.Fatalf("probe decides %v, control %q: a run of two runtimes' probes has none", res.ProbeDecides, res.Control)
	}
}

// TestProbeSpread checks the spread against a known truth: three runs whose
// parts read e^−0.1, 1 and e^0.1 times their level spread exactly 10 % (the
// standard deviation of the logarithms); each run's value is its median over
// its rows, so one odd row does not move it; one run alone has no spread.
func TestProbeSpread(t *testing.T) {
	var runs [][]report.Row
	for i, f := range []float64{math.Exp(-0.1), 1, math.Exp(0.1)} {
		var rows []report.Row
		for _, odd := range []float64{1, 1, 1 + 4*float64(i%2)} { // run 1 has an odd row
			rows = append(rows, report.Row{Probe: &summary.Probe{CPUNanosPerOp: int64(1e6 * f * odd), FsyncMicros: int64(1e4 * f * odd), ConnectMicros: int64(1e4 * f * odd)}})
		}
		runs = append(runs, rows)
	}
	got := ProbeSpread(runs)
	for _, part := range []string{"cpu", "fsync", "connect"} {
		if v, ok := got[part]; !ok || math.Abs(v-10) > 0.05 {
			t.Errorf("%s spread %.3f %% (present %v), want 10 %%", part, v, ok)
		}
	}
	if one := ProbeSpread(runs[:1]); len(one) != 0 {
		t.Errorf("one run: %v, want no spread", one)
	}
}
