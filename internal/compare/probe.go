package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
	"github.com/serdebench/serdebench/workers/summary"
)

// ProbeShiftPercent is how much slower a part of the machine probe must be than
// its baseline's level, significantly, for the machine to count as shifted.
const ProbeShiftPercent = 10.0

// probeParts are the machine probe's parts (summary.Probe); for each, lower is
// better.
var probeParts = []struct {
	name, unit string
	value      func(summary.Probe) int64
}{
	{"cpu", "ns/op", func(p summary.Probe) int64 { return p.CPUNanosPerOp }},
	{"fsync", "µs", func(p summary.Probe) int64 { return p.FsyncMicros }},
	{"connect", "µs", func(p summary.Probe) int64 { return p.ConnectMicros }},
}

// ProbePart is one part of the machine probe against the baseline runs'.
type ProbePart struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// BaselineRuns is how many earlier runs measured it; Baseline their level.
	BaselineRuns int `json:"baselineRuns"`
	Baseline     Num `json:"baseline"`
	// Candidate is the run's value: the median over its trials and repetitions.
	Candidate Num `json:"candidate"`
	// StreakRuns is how many runs the change is over: the candidate and its
	// streak's earlier runs that measured the part (Persistence), as the trials'
	// Regressed is judged.
	StreakRuns int `json:"streakRuns"`
	// ChangePercent is the streak's change from Baseline (its geometric mean's),
	// bounded two-sided by ChangeLowPercent and ChangeHighPercent at
	// ChangeConfidence.
	ChangePercent     Num     `json:"changePercent"`
	ChangeLowPercent  Num     `json:"changeLowPercent"`
	ChangeHighPercent Num     `json:"changeHighPercent"`
	ChangeConfidence  float64 `json:"changeConfidence"`
	// P is the one-sided p-value of "the machine is slower", Holm-adjusted over
	// the parts judged.
	P Num `json:"p"`
	// Shifted says this part is slower by more than ProbeShiftPercent, p < α.
	Shifted bool `json:"shifted"`
	// UpperPercent bounds how much slower it is, one-sided at 1 − α; Steady says
	// that bound is below ProbeShiftPercent: the part is shown not slower.
	UpperPercent Num  `json:"upperPercent"`
	Steady       bool `json:"steady"`
	// Faster and NotFaster are Shifted's and Steady's mirrors, which judge an
	// improvement: faster by more than ProbeShiftPercent, p < α (Holm over the
	// parts); LowerPercent, the one-sided 1 − α bound on how much faster, above
	// −ProbeShiftPercent.
	Faster       bool `json:"faster,omitempty"`
	LowerPercent Num  `json:"lowerPercent"`
	NotFaster    bool `json:"notFaster,omitempty"`
}

// probeOf is a run's machine probe: each part's median over the rows that
// measured it (NaN: none did). Each runtime's loop is its own (Go's JSON, the
// JVM's Jackson): a run whose probes come from producers of two runtimes has
// none a median could stand for.
func probeOf(rows []report.Row) []float64 {
	out := make([]float64, len(probeParts))
	runtimes := map[string]bool{}
	for _, r := range rows {
		if r.Probe != nil {
			producers, _, _ := strings.Cut(r.Runtime, "→")
			runtimes[producers] = true
		}
	}
	for i, part := range probeParts {
		if len(runtimes) > 1 {
			out[i] = math.NaN()
			continue
		}
		var xs []float64
		for _, r := range rows {
			if r.Probe != nil && part.value(*r.Probe) > 0 {
				xs = append(xs, float64(part.value(*r.Probe)))
			}
		}
		out[i] = math.NaN()
		if len(xs) > 0 {
			out[i] = stats.Median(xs).Median
		}
	}
	return out
}

// ProbeSpread is each probe part's spread between runs, in percent by part name
// (the standard deviation of the logarithms of each run's probeOf, as a Level's
// Spread); a part fewer than 2 runs measured is absent.
func ProbeSpread(runs [][]report.Row) map[string]float64 {
	out := map[string]float64{}
	probes := make([][]float64, len(runs))
	for i, rows := range runs {
		probes[i] = probeOf(rows)
	}
	for i, part := range probeParts {
		if l := stats.LevelOf(measured(probes, i)); l.DF > 0 {
			out[part.name] = 100 * l.Spread
		}
	}
	return out
}

// machine is what the probe found: decides says it can stand in for a control
// trial; shifted and steady judge a worse move of the trials, faster and
// notFaster (their mirrors) a better one.
type machine struct{ decides, shifted, steady, faster, notFaster bool }

// judgeProbe judges the candidate's streak of probes (its earlier runs in the
// streak, then the candidate's own; each a probeOf) against the baseline runs'.
// The streak is the trials' (Persistence): a machine that moved for good moved in
// each of its runs, and its mean has a third of one run's noise at three, which
// a probe whose one reading wanders needs (docs/schedules.md, "The machine
// probe"). The probe decides when its CPU part, the one every worker measures,
// has the candidate and at least MinRuns baseline runs with a spread. shifted
// says some judged part is slower beyond ProbeShiftPercent, significantly after
// Holm's correction over the parts; steady that the CPU part is shown less slower
// than that (one-sided at 1 − α). Fsync and connect can show the machine slower,
// not hold it back from steady: Kafka's produce path neither fsyncs nor connects
// per request, and their noise would keep the probe from ever showing a machine
// steady (with all three required, a steady machine's 25 % upgrade drop was
// Regressed in 35 % of simulated plantings instead of 92 %). A probe neither
// shifted nor steady cannot tell whether the machine moved. faster and notFaster
// are the same the other way.
func judgeProbe(base, streak [][]float64, o Options) ([]ProbePart, machine) {
	cand := streak[len(streak)-1]
	if cand == nil {
		return nil, machine{}
	}
	var parts []ProbePart
	var m machine
	ps, pf := make([]float64, len(probeParts)), make([]float64, len(probeParts))
	shifts := make([]stats.Shift, len(probeParts))
	levels := make([]stats.Level, len(probeParts))
	xs := make([][]float64, len(probeParts))
	for i := range probeParts {
		levels[i], ps[i], pf[i] = stats.LevelOf(measured(base, i)), math.NaN(), math.NaN()
		if !math.IsNaN(cand[i]) {
			xs[i] = measured(streak, i)
		}
		shifts[i] = levels[i].ShiftOf(xs[i]...)
		if probeJudged(levels[i], cand[i], o) {
			ps[i], pf[i] = shifts[i].PHigher, shifts[i].PLower
		}
	}
	adj, adjF := stats.Holm(ps), stats.Holm(pf)
	for i, part := range probeParts {
		if math.IsNaN(cand[i]) && levels[i].Runs == 0 {
			continue
		}
		s := shifts[i]
		pp := ProbePart{Name: part.name, Unit: part.unit, BaselineRuns: levels[i].Runs, Baseline: Num(levels[i].Center), Candidate: Num(cand[i]), StreakRuns: len(xs[i]),
			ChangePercent: Num(s.Percent), ChangeLowPercent: Num(s.LowPercent), ChangeHighPercent: Num(s.HighPercent), ChangeConfidence: s.Confidence, P: Num(adj[i])}
		pp.Shifted = !math.IsNaN(adj[i]) && adj[i] < stats.Alpha && s.Percent > ProbeShiftPercent
		pp.Faster = !math.IsNaN(adjF[i]) && adjF[i] < stats.Alpha && s.Percent < -ProbeShiftPercent
		pp.UpperPercent, pp.LowerPercent = Num(math.NaN()), Num(math.NaN())
		if probeJudged(levels[i], cand[i], o) {
			pp.UpperPercent = Num(levels[i].BoundOf(1-stats.Alpha, true, xs[i]...))
			pp.LowerPercent = Num(levels[i].BoundOf(1-stats.Alpha, false, xs[i]...))
			pp.Steady, pp.NotFaster = float64(pp.UpperPercent) < ProbeShiftPercent, float64(pp.LowerPercent) > -ProbeShiftPercent
			if i == 0 {
				m.steady, m.notFaster = pp.Steady, pp.NotFaster
			}
		}
		m.shifted, m.faster = m.shifted || pp.Shifted, m.faster || pp.Faster
		parts = append(parts, pp)
	}
	m.decides = probeJudged(levels[0], cand[0], o)
	if !m.decides {
		return slices.Clip(parts), machine{}
	}
	return slices.Clip(parts), m
}

// measured is part i of the runs' probes that measured it.
func measured(runs [][]float64, i int) []float64 {
	var xs []float64
	for _, r := range runs {
		if r != nil && !math.IsNaN(r[i]) {
			xs = append(xs, r[i])
		}
	}
	return xs
}

// probeJudged says a probe part can be judged: the candidate measured it, and
// at least MinRuns baseline runs did, with a spread between them. Runs that all
// say the same (copies of one result, pinned as a baseline) do not know the
// probe's noise, and against no noise any wobble would be a shifted machine.
func probeJudged(l stats.Level, cand float64, o Options) bool {
	return l.Runs >= o.MinRuns && l.Spread > 0 && !math.IsNaN(cand)
}

// Finding is the part's finding in words: "slower", "faster", "steady" or
// "cannot tell" (whether it is slower: the worse move is the one a reader must
// not miss).
func (p ProbePart) Finding() string {
	switch {
	case p.Shifted:
		return "slower"
	case p.Faster:
		return "faster"
	case p.Steady:
		return "steady"
	}
	return "cannot tell"
}

// Machine says what the machine probe found, for conditions and events: each
// part's change and whether it was slower ("" when the probe did not decide).
func (r Result) Machine() string {
	if !r.ProbeDecides {
		return ""
	}
	parts := make([]string, 0, len(r.Probe))
	for _, p := range r.Probe {
		parts = append(parts, fmt.Sprintf("%s %+.1f %%, at most %+.1f %% (%s)", p.Name, p.ChangePercent, p.UpperPercent, p.Finding()))
	}
	what := "cannot tell whether the machine moved"
	switch {
	case r.MachineShifted:
		what = "was slower"
	case r.MachineFaster:
		what = "was faster"
	case r.MachineSteady:
		what = "held steady"
	}
	over := ""
	if len(r.Probe) > 0 && r.Probe[0].StreakRuns > 1 {
		over = fmt.Sprintf(" over the last %d runs", r.Probe[0].StreakRuns)
	}
	return fmt.Sprintf("the machine probe %s%s: %s", what, over, strings.Join(parts, ", "))
}
