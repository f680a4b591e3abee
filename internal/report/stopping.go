package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/stats"
)

// Stopping is where spec.repeatUntil stands after these rows: the fewest
// repetitions any trial has, whether every trial's chosen metrics have an
// interval within the target (stats.Settled), and the widest of them. Nil
// without repeatUntil.
func Stopping(rows []Row, u *v1alpha1.RepeatUntil) *v1alpha1.Stopping {
	if u == nil {
		return nil
	}
	groups := Groups(rows)
	if len(groups) == 0 {
		return &v1alpha1.Stopping{}
	}
	out := &v1alpha1.Stopping{Repetitions: math.MaxInt32}
	var samples [][]float64
	widest, at := -1.0, ""
	for _, g := range groups {
		out.Repetitions = min(out.Repetitions, int32(len(g)))
		for _, name := range metricsOf(u) {
			m, ok := MetricNamed(name)
			if !ok {
				continue // refused by plan.Expand; an older result's name
			}
			xs := Values(m, g)
			samples = append(samples, xs)
			if h := stats.HalfWidth(xs); math.IsNaN(h) || h > widest {
				widest, at = h, ConfigOf(g[0])+" "+name
			}
		}
	}
	target := float64(u.TargetHalfWidthPercent) / 100
	out.Met = stats.Settled(samples, target)
	switch {
	case math.IsInf(widest, 1) || math.IsNaN(widest):
		out.Widest = fmt.Sprintf("%s: no %.0f %% interval yet (it needs 7 repetitions and a median other than 0)", at, 100*stats.StopConfidence)
	default:
		out.Widest = fmt.Sprintf("%s ±%.1f %% (%.0f %% interval; target ±%d %%)", at, 100*widest, 100*stats.StopConfidence, u.TargetHalfWidthPercent)
	}
	return out
}

// Stopped marks rows as stopped by spec.repeatUntil's rule when stopped is
// true: a local run's rows, which do not carry their spec (ResultRows marks its
// own).
func Stopped(rows []Row, stopped bool) []Row {
	if !stopped {
		return rows
	}
	out := slices.Clone(rows)
	for i := range out {
		out[i].Stopped = true
	}
	return out
}

// stated is e as a table states it: after a stopping rule chose the number of
// repetitions, at the level the rule keeps (stats.StoppedConfidence) where the
// order statistics' nominal level is higher.
func stated(e stats.Estimate, stopped bool) stats.Estimate {
	if stopped && e.Confidence > stats.StoppedConfidence {
		e.Confidence = stats.StoppedConfidence
	}
	return e
}

// stoppedNote says, under a table of rows a stopping rule repeated, what their
// intervals' confidence is.
var stoppedNote = fmt.Sprintf("After repeatUntil every median's interval states %.0f %%: the level its stopping rule keeps in simulation, "+
	"not its order statistics' nominal one (%.1f %% at 7 repetitions), which holds only when nothing chose when to stop.",
	100*stats.StoppedConfidence, 100*stats.MedianAt([]float64{1, 2, 3, 4, 5, 6, 7}, stats.Confidence).Confidence)

// anyStopped says some row was repeated by a stopping rule.
func anyStopped(rows []Row) bool {
	return slices.ContainsFunc(rows, func(r Row) bool { return r.Stopped })
}

// StoppingLine prints s under a table: how many repetitions ran of how many
// planned, and why the rounds stopped there.
func StoppingLine(w io.Writer, s *v1alpha1.Stopping, spec v1alpha1.ExperimentSpec) {
	u := spec.RepeatUntil
	if s.Met {
		fmt.Fprintf(w, "repetitions: %d of at most %d; every interval of %s within ±%d %% (widest: %s)\n",
			s.Repetitions, u.MaxRepetitions, strings.Join(metricsOf(u), ", "), u.TargetHalfWidthPercent, s.Widest)
		return
	}
	fmt.Fprintf(w, "repetitions: %d of at most %d; target ±%d %% not met (widest: %s)\n", s.Repetitions, u.MaxRepetitions, u.TargetHalfWidthPercent, s.Widest)
}

// metricsOf are the metrics repeatUntil waits for (its default when unset).
func metricsOf(u *v1alpha1.RepeatUntil) []string {
	if len(u.Metrics) == 0 {
		return v1alpha1.DefaultRepeatMetrics()
	}
	return u.Metrics
}

// CheckRepeatMetrics refuses a metric repeatUntil cannot wait for: unknown, or a
// count the repetitions add up instead of estimating a median.
func CheckRepeatMetrics(u *v1alpha1.RepeatUntil) error {
	if u == nil {
		return nil
	}
	for _, name := range u.Metrics {
		m, ok := MetricNamed(name)
		if !ok || m.Total {
			var known []string
			for _, m := range Metrics {
				if !m.Total {
					known = append(known, m.Name)
				}
			}
			return fmt.Errorf("metrics: %q is not a figure with a median (known: %v)", name, known)
		}
	}
	return nil
}
