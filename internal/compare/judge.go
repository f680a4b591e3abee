package compare

import (
	"math"
	"slices"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/stats"
)

// Judge judges candidate against the runs before it (oldest first): the last
// Persistence − 1 of them are its streak's earlier runs, and up to BaselineRuns
// before those its baseline.
func Judge(history []Run, candidate Run, o Options) Result {
	o = o.withDefaults()
	recentN := min(o.Persistence-1, len(history))
	from := max(0, len(history)-recentN-o.BaselineRuns)
	base := make([]runValues, 0, len(history)-from)
	probes := make([][]float64, 0, len(history)-from)
	var baseKeys []string
	baseName := map[string]string{}
	for _, run := range history[from:] {
		base, probes = append(base, run.values), append(probes, run.probe)
		for _, k := range run.order {
			if _, ok := baseName[k]; !ok {
				baseKeys = append(baseKeys, k)
				baseName[k] = run.names[k]
			}
		}
	}
	recent, base := base[len(base)-recentN:], base[:len(base)-recentN]
	streakProbes := append(slices.Clone(probes[len(probes)-recentN:]), candidate.probe)
	probes = probes[:len(probes)-recentN]
	cand, order, names, reps := candidate.values, candidate.order, candidate.names, candidate.reps
	var out Result
	var slow []int
	base, slow = withoutSlowRuns(base, o.MinRuns)
	for _, i := range slow {
		out.Excluded = append(out.Excluded, from+i)
		probes[i] = nil
	}
	// The machine probe, where the runs carry it and it can tell (the machine
	// shown slower, faster, or neither), is the control: the trials are each
	// tested on their own, and the environment moved only when the probe did. A
	// probe that cannot tell leaves the control trial to decide: trials tested on
	// their own level carry every move the machine makes, and on unchanged nights
	// those moves, shown or not by the trials, would alarm (TestNightlyWithProbe).
	var mach machine
	out.Probe, mach = judgeProbe(probes, streakProbes, o)
	byProbe := mach.decides && (mach.shifted || mach.steady)
	out.MachineShifted, out.MachineSteady, out.ProbeDecides = mach.shifted, mach.steady, byProbe
	out.MachineFaster, out.MachineNotFaster = mach.faster, mach.notFaster
	for _, k := range baseKeys {
		if _, ok := cand[k]; !ok {
			out.Missing = append(out.Missing, baseName[k])
		}
	}
	control := o.Control
	if byProbe {
		control = ""
	} else if _, ok := baseName[control]; !ok || cand[control] == nil {
		control = ""
		for _, k := range order {
			if _, ok := baseName[k]; ok {
				control = k
				break
			}
		}
	}
	if control != "" {
		out.Control = names[control]
	}
	var matched []string
	for _, k := range order {
		if _, ok := baseName[k]; !ok {
			out.Unmatched = append(out.Unmatched, names[k])
			continue
		}
		matched = append(matched, k)
		out.Trials = append(out.Trials, Trial{Key: k, Name: names[k], Control: k == control, Repetitions: reps[k]})
	}
	// series are a trial's values of one metric in runs: its own beside no control
	// (the control itself, or a run of one trial), else its ratio to the control in
	// the same run, whose noise the environment's moves do not carry.
	series := func(runs []runValues, k string, mi int, relative bool) (own, rel []float64) {
		for _, run := range runs {
			v, ok := run[k]
			if !ok {
				continue
			}
			own = append(own, v[mi])
			if cv, ok := run[control]; ok && relative {
				rel = append(rel, v[mi]/cv[mi])
			}
		}
		return own, rel
	}
	cells := make([][]cell, len(metrics))
	var single, joint, improve []float64
	for mi, m := range metrics {
		own, rel := make([]stats.Level, len(matched)), make([]stats.Level, len(matched))
		cs := make([]cell, len(matched))
		for ti, k := range matched {
			c := &cs[ti]
			c.relative = k != control && control != ""
			ov, rv := series(base, k, mi, c.relative)
			own[ti], rel[ti] = stats.LevelOf(ov), stats.LevelOf(rv)
			c.min, c.max = math.NaN(), math.NaN()
			if len(ov) > 0 {
				c.min, c.max = slices.Min(ov), slices.Max(ov)
			}
			c.x = cand[k][mi]
			c.xs, c.xsRel = series(append(slices.Clone(recent), cand), k, mi, c.relative)
		}
		// Each trial is judged by its own spread between runs: trials differ in
		// noise (a small payload's records/s moves more than a large one's), and a
		// spread pooled over them makes a noisy trial's intervals too narrow and a
		// quiet one's too wide (stats' TestOwnSpreadKeepsCoverage).
		for ti := range matched {
			c := &cs[ti]
			c.own, c.scale, c.test = own[ti], own[ti], c.xs
			if c.relative {
				c.scale, c.test = rel[ti], c.xsRel
			}
			c.abs = c.own.ShiftOf(c.x)
			c.single, c.joint = c.scale.ShiftOf(c.test[len(c.test)-1]), c.scale.ShiftOf(c.test...)
			c.judged = c.own.Runs >= o.MinRuns && c.scale.Runs >= o.MinRuns && !math.IsNaN(c.abs.Percent) && !math.IsNaN(c.single.Percent)
			c.pSingle, c.pJoint, c.pGain = math.NaN(), math.NaN(), math.NaN()
			if !c.judged {
				continue
			}
			c.pSingle = pWorse(c.single, m.higherIsBetter)
			// Persistence: the mean of the last Persistence runs is tested for every cell
			// that has them, so the family Holm corrects is every such cell, not the
			// ones the data put in a streak; a cell regresses only when, besides, each of
			// those runs was worse than the threshold, absolutely and on the tested
			// scale (a filter that can only remove rejections). An improvement is the
			// same test mirrored: the same runs' mean, one-sided the other way, each run
			// better than the threshold.
			if len(c.xs) == o.Persistence && len(c.test) == o.Persistence {
				c.pJoint, c.pGain = pWorse(c.joint, m.higherIsBetter), pBetter(c.joint, m.higherIsBetter)
				c.streak, c.gaining = true, true
				for i := range c.xs {
					c.streak = c.streak && beyond(percentOf(c.xs[i], c.own), m, o) && beyond(percentOf(c.test[i], c.scale), m, o)
					c.gaining = c.gaining && better(percentOf(c.xs[i], c.own), m, o) && better(percentOf(c.test[i], c.scale), m, o)
				}
			}
		}
		cells[mi] = cs
		for _, c := range cs {
			single, joint, improve = append(single, c.pSingle), append(joint, c.pJoint), append(improve, c.pGain)
		}
	}
	// Three families, each Holm-corrected over every trial and metric: this run
	// alone (Suspect), the streak worse (Regressed) and the streak better
	// (Improved). Each family holds its own chance of any false verdict below α,
	// so an improvement neither spends the regressions' budget nor is spent by it.
	adjSingle, adjJoint, adjImprove := stats.Holm(single), stats.Holm(joint), stats.Holm(improve)
	jointTests, improveTests := stats.Tests(joint), stats.Tests(improve)
	out.Tests = stats.Tests(single)
	for mi, m := range metrics {
		cs := cells[mi]
		for ti := range cs {
			c := &cs[ti]
			i := mi*len(matched) + ti
			c.pSingle, c.pJoint, c.pGain = adjSingle[i], adjJoint[i], adjImprove[i]
			c.suspect = c.judged && c.pSingle < stats.Alpha && beyond(c.abs.Percent, m, o) && beyond(c.single.Percent, m, o)
			c.regressed = c.streak && c.pJoint < stats.Alpha
			c.improved = c.gaining && c.pGain < stats.Alpha
		}
		// The environment: the control breached and at least half of the other
		// judged trials moved the same way beyond the threshold. gain is its mirror,
		// the environment's better move (a faster machine): it makes no metric
		// EnvironmentShifted, whose alert is for worse moves, but the gain it
		// explains is not the trials' own, so not Improved.
		ctrl, others, with, gained := -1, 0, 0, 0
		for ti, c := range cs {
			switch {
			case !c.judged:
			case out.Trials[ti].Control:
				ctrl = ti
			default:
				others++
				if beyond(c.abs.Percent, m, o) {
					with++
				}
				if better(c.abs.Percent, m, o) {
					gained++
				}
			}
		}
		env := ctrl >= 0 && cs[ctrl].regressed && others > 0 && 2*with >= others
		gain := ctrl >= 0 && cs[ctrl].improved && others > 0 && 2*gained >= others
		if byProbe {
			// Every trial is judged on its own. A shown fall (Regressed: a fall inside
			// the noise has nothing to explain, and a first night's Suspect waits for
			// its streak, as a trial's alarm does) is the machine's if the probe shows
			// it slower — any such fall: beside a slower machine no trial's fall can
			// be told its own (with "at least half of them", a slower machine alerted
			// on 10 % of nights in simulation) — and the trials' own if the probe
			// shows it steady. A gain is the machine's unless the probe shows it not
			// faster.
			fell, rose := 0, 0
			for _, c := range cs {
				if c.regressed {
					fell++
				}
				if c.improved {
					rose++
				}
			}
			env = fell > 0 && mach.shifted
			gain = rose > 0 && (mach.faster || !mach.notFaster)
		}
		for ti, c := range cs {
			t := &out.Trials[ti]
			mt := Metric{Name: m.name, Unit: m.unit, BaselineRuns: c.own.Runs, Baseline: Num(c.own.Center), Min: Num(c.min), Max: Num(c.max),
				SpreadPercent: Num(100 * c.own.Spread), Candidate: Num(c.x), ChangePercent: Num(c.abs.Percent), ChangeLowPercent: Num(c.abs.LowPercent),
				ChangeHighPercent: Num(c.abs.HighPercent), ChangeConfidence: c.abs.Confidence, ControlChangePercent: Num(math.NaN()), P: Num(c.pSingle),
				StreakChangePercent: Num(math.NaN()), StreakP: Num(math.NaN()), Verdict: Within}
			if c.relative {
				mt.ControlChangePercent = Num(c.single.Percent)
			}
			if c.streak {
				mt.StreakRuns, mt.StreakChangePercent, mt.StreakP = o.Persistence, Num(c.joint.Percent), Num(c.pJoint)
			}
			i := mi*len(matched) + ti
			if c.judged {
				mt.Tested = tested(c.scale, c.single, c.test[len(c.test)-1:], single[i], c.pSingle, out.Tests, c.relative, m.higherIsBetter)
			}
			if !math.IsNaN(c.pJoint) {
				mt.Streak = tested(c.scale, c.joint, c.test, joint[i], c.pJoint, jointTests, c.relative, m.higherIsBetter)
			}
			if !math.IsNaN(c.pGain) {
				// Its bound is on the other side: the change is at least it where higher is better.
				mt.Improvement = tested(c.scale, c.joint, c.test, improve[i], c.pGain, improveTests, c.relative, !m.higherIsBetter)
			}
			moved := beyond(c.abs.Percent, m, o)
			switch {
			case !c.judged:
				mt.Verdict, mt.P = NotJudged, Num(math.NaN())
			case env && byProbe && c.regressed, env && !byProbe && (t.Control || (moved && !c.suspect && !c.regressed)):
				mt.Verdict = EnvironmentShifted
			case c.regressed:
				mt.Verdict = Regressed
			case c.suspect:
				mt.Verdict = Suspect
			case c.improved && (!gain || (!t.Control && !byProbe)):
				// Beside the control, a trial's improvement is relative to it: its own
				// even when the environment gained too.
				mt.Verdict = Improved
			}
			t.Metrics = append(t.Metrics, mt)
		}
	}
	out.Verdict = NotJudged
	for i := range out.Trials {
		t := &out.Trials[i]
		t.Verdict = NotJudged
		for _, m := range t.Metrics {
			t.Verdict = worse(t.Verdict, m.Verdict)
		}
		out.Verdict = worse(out.Verdict, t.Verdict)
	}
	return out
}

// cell is one trial's metric while a run is judged.
type cell struct {
	x, min, max float64
	// relative: tested as a ratio to the control.
	relative bool
	// xs and xsRel are the streak's runs, the candidate last; test the tested ones.
	xs, xsRel, test    []float64
	own, scale         stats.Level
	abs, single, joint stats.Shift
	judged, streak     bool
	suspect, regressed bool
	// gaining: each of the streak's runs better than the threshold; improved:
	// besides, their mean significantly better.
	gaining, improved      bool
	pSingle, pJoint, pGain float64
}

// tested is a test as it was made: the shift s of xs against the level, and its
// one-sided bound on the side the test asked about at the level compatible with
// the Holm decision (1 − α·raw/adjusted: the bound clears zero exactly when
// adjusted < α). upper says the test asked whether the level fell, so the bound
// is an upper one: a worse test where higher is better, a better test where lower
// is. Without a raw p-value to scale (0: identical baseline runs) the level is
// Bonferroni's over the family's tests.
func tested(l stats.Level, s stats.Shift, xs []float64, raw, adjusted float64, tests int, relative, upper bool) *Test {
	level := 1 - stats.Alpha/float64(max(tests, 1))
	if raw > 0 && adjusted > 0 {
		level = 1 - stats.Alpha*raw/adjusted
	}
	on := v1alpha1.TestedOnBaseline
	if relative {
		on = v1alpha1.TestedOnControl
	}
	return &Test{Runs: len(xs), TestedOn: on, ChangePercent: Num(s.Percent), BoundPercent: Num(l.BoundOf(level, upper, xs...)),
		Confidence: level, Upper: upper, P: Num(adjusted)}
}

// percentOf is x's change from a level's center, in percent.
func percentOf(x float64, l stats.Level) float64 { return 100 * (x/l.Center - 1) }

// beyond says a change in percent is worse than the metric's threshold.
func beyond(pct float64, m metric, o Options) bool {
	th := m.threshold(o.Thresholds)
	if m.higherIsBetter {
		return pct < -th
	}
	return pct > th
}

// better says a change in percent is better than the metric's threshold:
// beyond's mirror, the same number of percent the other way (records/s more than
// 10 % higher, p99 more than 20 % lower).
func better(pct float64, m metric, o Options) bool {
	th := m.threshold(o.Thresholds)
	if m.higherIsBetter {
		return pct > th
	}
	return pct < -th
}

// pWorse is the one-sided p-value of the worse direction.
func pWorse(s stats.Shift, higherIsBetter bool) float64 {
	if higherIsBetter {
		return s.PLower
	}
	return s.PHigher
}

// pBetter is the one-sided p-value of the better direction: pWorse's mirror.
func pBetter(s stats.Shift, higherIsBetter bool) float64 { return pWorse(s, !higherIsBetter) }

// SlowRunFactor is how far below the other baseline runs a run must be, in their
// robust spreads (and at least SlowRunFloor on the log scale), for the baseline to
// leave it out.
// SlowRunTrials is the fewest trials in which a run can be told slow together.
const (
	SlowRunFactor = 4.0
	SlowRunFloor  = 0.1
	SlowRunTrials = 3
)

// withoutSlowRuns leaves out of a baseline the runs in which most trials (of at
// least SlowRunTrials) were slow together, far beyond the others' spread: a cold broker's first run (this VM's was
// half as fast as the later ones) or a night the whole machine crawled. In a
// baseline such a run widens the spread for as many nights as it stays, hiding
// regressions. Each run's level is the median over trials of its records/s' log
// deviation from that trial's median run; a run is left out when its level lies
// more than SlowRunFactor robust spreads (1.4826 × the median absolute deviation
// of the levels) below their median, and at least minRuns others remain. Only slow
// runs go: a fast one would hide nothing. It returns the baseline and the indices
// (into base) it left out.
func withoutSlowRuns(base []runValues, minRuns int) ([]runValues, []int) {
	if len(base) < minRuns+1 {
		return base, nil
	}
	keys := map[string]bool{}
	for _, run := range base {
		for k := range run {
			keys[k] = true
		}
	}
	devs := make([][]float64, len(base))
	for k := range keys {
		var ys []float64
		for _, run := range base {
			if v, ok := run[k]; ok && v[0] > 0 {
				ys = append(ys, math.Log(v[0]))
			}
		}
		if len(ys) < len(base) {
			continue // a trial some run lacks says nothing about the runs
		}
		mid := stats.Median(ys).Median
		for i := range base {
			devs[i] = append(devs[i], ys[i]-mid)
		}
	}
	levels := make([]float64, len(base))
	for i, d := range devs {
		if len(d) == 0 {
			return base, nil
		}
		levels[i] = stats.Median(d).Median
	}
	mid := stats.Median(levels).Median
	abs := make([]float64, len(levels))
	for i, l := range levels {
		abs[i] = math.Abs(l - mid)
	}
	limit := max(SlowRunFactor*1.4826*stats.Median(abs).Median, SlowRunFloor)
	var kept []runValues
	var out []int
	for i, run := range base {
		// Together: at least SlowRunTrials trials, most of them each that slow, so
		// one trial's own regression is never taken for a cold broker.
		slow := 0
		for _, d := range devs[i] {
			if -d > limit {
				slow++
			}
		}
		together := len(devs[i]) >= SlowRunTrials && 2*slow > len(devs[i])
		if together && mid-levels[i] > limit && len(base)-len(out)-1 >= minRuns {
			out = append(out, i)
			continue
		}
		kept = append(kept, run)
	}
	return kept, out
}
