package plan_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
)

// measured is a row per trial of the plan, its records/s and p99 drawn around
// their truth with the noise given (lognormal, seeded).
func measured(trials []trial.Trial, rng *rand.Rand, noise float64) []report.Row {
	rows := make([]report.Row, len(trials))
	for i, t := range trials {
		f := func(truth float64) float64 { return truth * math.Exp(noise*rng.NormFloat64()) }
		rows[i] = report.Row{Name: t.Name, Config: t.Config, Repetition: int(t.Repetition), RecordsPerSecond: f(20000), P99: int64(f(5000))}
	}
	return rows
}

// TestStop: repeatUntil stops only at a round's start, never before
// spec.repetitions nor before the 98 % interval exists (7 rounds), and only when
// every trial's chosen metrics are within the target; too noisy a trial runs to
// the most rounds.
func TestStop(t *testing.T) {
	s := base()
	s.Repetitions = 3
	s.RepeatUntil = &v1alpha1.RepeatUntil{TargetHalfWidthPercent: 5, MaxRepetitions: 12}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(trials) != 4*12 {
		t.Fatalf("%d trials planned, want the most: 4 configurations × 12", len(trials))
	}
	configs := len(trials) / 12
	quiet := measured(trials, rand.New(rand.NewPCG(1, 2)), 0.005)
	stopsAt := func(rows []report.Row, spec v1alpha1.ExperimentSpec) int {
		for i, next := range trials {
			if st, stop := plan.Stop(spec, next, rows[:i]); stop {
				if st.Repetitions != next.Repetition-1 || !st.Met {
					t.Fatalf("stopped before %s with %+v", next.Name, st)
				}
				return i
			}
		}
		return len(trials)
	}
	// Quiet trials meet ±5 % as soon as the 98 % interval exists: after round 7.
	if got := stopsAt(quiet, s); got != 7*configs {
		t.Errorf("quiet: stopped before trial %d, want %d (the start of round 8)", got, 7*configs)
	}
	// Never before spec.repetitions rounds ran.
	late := s
	late.Repetitions = 9
	if got := stopsAt(quiet, late); got != 9*configs {
		t.Errorf("repetitions 9: stopped before trial %d, want %d", got, 9*configs)
	}
	// One noisy configuration holds every other one to the end.
	noisy := measured(trials, rand.New(rand.NewPCG(3, 4)), 0.005)
	wild := measured(trials, rand.New(rand.NewPCG(5, 6)), 0.30)
	for i, tr := range trials {
		if tr.Config == trials[0].Config {
			noisy[i] = wild[i]
		}
	}
	if got := stopsAt(noisy, s); got != len(trials) {
		t.Errorf("one configuration at 30 %% noise: stopped before trial %d, want none skipped", got)
	}
	st := report.Stopping(noisy, s.RepeatUntil)
	if st.Met || st.Repetitions != 12 || !strings.HasPrefix(st.Widest, trials[0].Config+" ") {
		t.Errorf("stopping of the noisy run: %+v, want not met after 12 with %s the widest", st, trials[0].Config)
	}
	// A metric that stays wide holds it too: the p99 is not within ±5 % at 30 % noise.
	p99 := measured(trials, rand.New(rand.NewPCG(7, 8)), 0.005)
	for i := range p99 {
		p99[i].P99 = wild[i].P99
	}
	if got := stopsAt(p99, s); got != len(trials) {
		t.Errorf("noisy p99: stopped before trial %d, want none skipped", got)
	}
	only := s
	only.RepeatUntil = &v1alpha1.RepeatUntil{TargetHalfWidthPercent: 5, MaxRepetitions: 12, Metrics: []string{"recordsPerSecond"}}
	if got := stopsAt(p99, only); got != 7*configs {
		t.Errorf("records/s only, noisy p99: stopped before trial %d, want %d", got, 7*configs)
	}
	// Without repeatUntil nothing stops.
	fixed := base()
	fixed.Repetitions = 12
	if got := stopsAt(quiet, fixed); got != len(trials) {
		t.Errorf("fixed repetitions: stopped before trial %d", got)
	}
}

// TestRepeatMetricsChecked: a metric repeatUntil cannot wait for is refused with
// the ones it can.
func TestRepeatMetricsChecked(t *testing.T) {
	for _, name := range []string{"recordsPerSec", "lostRecords"} {
		s := base()
		s.RepeatUntil = &v1alpha1.RepeatUntil{TargetHalfWidthPercent: 5, MaxRepetitions: 8, Metrics: []string{name}}
		_, err := plan.Expand(s)
		if err == nil || !strings.Contains(err.Error(), "spec.repeatUntil.metrics") || !strings.Contains(err.Error(), "endToEndMicros.p99") {
			t.Errorf("metric %s: %v", name, err)
		}
	}
}
