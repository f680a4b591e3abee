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
	// ChangePercent is Candidate's change from Baseline, bounded two-sided by
	// ChangeLowPercent and ChangeHighPercent at ChangeConfidence.
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

// machine is what the probe found: decides says it can stand in for a control
// trial; shifted and steady judge a worse move of the trials, faster and
// notFaster (their mirrors) a better one.
type machine struct{ decides, shifted, steady, faster, notFaster bool }

// judgeProbe judges the candidate's probe against the baseline runs' (each a
// probeOf). The probe decides when its CPU part, the one every worker measures,
// has the candidate and at least MinRuns baseline runs with a spread. shifted
// says some judged part is slower beyond ProbeShiftPercent, significantly after
// Holm's correction over the parts; steady that every judged part is shown less
// slower than that (each one-sided at 1 − α: all must hold, so no correction). A
// probe neither shifted nor steady cannot tell whether the machine moved.
// faster and notFaster are the same the other way.
func judgeProbe(base [][]float64, cand []float64, o Options) ([]ProbePart, machine) {
	if cand == nil {
		return nil, machine{}
	}
	var parts []ProbePart
	m := machine{steady: true, notFaster: true}
	ps, pf := make([]float64, len(probeParts)), make([]float64, len(probeParts))
	shifts := make([]stats.Shift, len(probeParts))
	levels := make([]stats.Level, len(probeParts))
	for i := range probeParts {
		var xs []float64
		for _, b := range base {
			if b != nil && !math.IsNaN(b[i]) {
				xs = append(xs, b[i])
			}
		}
		levels[i], ps[i], pf[i] = stats.LevelOf(xs), math.NaN(), math.NaN()
		shifts[i] = levels[i].ShiftOf(cand[i])
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
		pp := ProbePart{Name: part.name, Unit: part.unit, BaselineRuns: levels[i].Runs, Baseline: Num(levels[i].Center), Candidate: Num(cand[i]),
			ChangePercent: Num(s.Percent), ChangeLowPercent: Num(s.LowPercent), ChangeHighPercent: Num(s.HighPercent), ChangeConfidence: s.Confidence, P: Num(adj[i])}
		pp.Shifted = !math.IsNaN(adj[i]) && adj[i] < stats.Alpha && s.Percent > ProbeShiftPercent
		pp.Faster = !math.IsNaN(adjF[i]) && adjF[i] < stats.Alpha && s.Percent < -ProbeShiftPercent
		pp.UpperPercent, pp.LowerPercent = Num(math.NaN()), Num(math.NaN())
		if probeJudged(levels[i], cand[i], o) {
			pp.UpperPercent = Num(levels[i].BoundOf(1-stats.Alpha, true, cand[i]))
			pp.LowerPercent = Num(levels[i].BoundOf(1-stats.Alpha, false, cand[i]))
			pp.Steady, pp.NotFaster = float64(pp.UpperPercent) < ProbeShiftPercent, float64(pp.LowerPercent) > -ProbeShiftPercent
			m.steady, m.notFaster = m.steady && pp.Steady, m.notFaster && pp.NotFaster
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
	return fmt.Sprintf("the machine probe %s: %s", what, strings.Join(parts, ", "))
}
