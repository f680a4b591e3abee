package stats

import (
	"math"
	"slices"
	"sync"

	"github.com/aclements/go-moremath/stats"
)

// Level is the between-run model of one metric: the runs a new run is compared
// with, each as one value (its median over its repetitions), on the log scale.
// Runs of a benchmark differ by more than the repetitions inside one run show (a
// neighbour, the page cache, a warming broker): repetitions measure the noise
// within a run, and only earlier runs measure the noise between runs, which is
// what a new run's value carries.
type Level struct {
	// Runs is how many baseline runs there are.
	Runs int
	// Center is the baseline runs' geometric mean, Spread the standard deviation
	// of their logarithms (about their coefficient of variation), with DF degrees
	// of freedom (Runs − 1, or more when pooled).
	Center, Spread float64
	DF             int
	mean           float64
}

// LevelOf is the level of baseline run values (all positive; at least 2 to have a
// spread).
func LevelOf(runs []float64) Level {
	l := Level{Runs: len(runs)}
	if len(runs) == 0 || !positive(runs) || slices.ContainsFunc(runs, func(x float64) bool { return math.IsInf(x, 0) }) {
		return l
	}
	ys := logs(runs)
	l.mean = stats.Mean(ys)
	if len(ys) > 1 {
		l.Spread, l.DF = stats.StdDev(ys), len(ys)-1
	}
	l.Center = math.Exp(l.mean)
	return l
}

// Pool gives levels of series that share their noise the pooled spread: each
// keeps its center, and the spread is estimated from all of them. Series measured
// together share their conditions, so their spreads are not independent samples
// of the noise: the degrees of freedom stay those of the best-observed single
// series (not their sum). It suits one figure for planning (report.NoiseOf); a
// test of one series against its own level uses that series' spread, since
// series differ in noise (TestOwnSpreadKeepsCoverage: the pooled interval misses
// a noisy series' next value far more often than its 95 % promise).
func Pool(levels []Level) []Level {
	ss, df, most := 0.0, 0, 0
	for _, l := range levels {
		if l.DF > 0 && !math.IsNaN(l.Spread) && !math.IsInf(l.Spread, 0) {
			ss += l.Spread * l.Spread * float64(l.DF)
			df += l.DF
			most = max(most, l.DF)
		}
	}
	out := make([]Level, len(levels))
	for i, l := range levels {
		if l.DF > 0 && df > 0 {
			l.Spread, l.DF = math.Sqrt(ss/float64(df)), most
		}
		out[i] = l
	}
	return out
}

// Shift is new runs' values against a Level: the change of the level they come
// from, estimated by the log ratio of their geometric mean to the baseline's
// center, with the interval Student's t gives for that change — the new runs' mean
// and the baseline's each carry the between-run noise, so the interval's
// half-width on the log scale is t(DF) · spread · √(1/m + 1/runs) for m new runs
// (for one, the prediction interval of one more run). The figure and the interval
// are one estimator.
type Shift struct {
	// Percent is the change from the baseline's center; LowPercent and
	// HighPercent bound the change of the level at Confidence.
	Percent, LowPercent, HighPercent, Confidence float64
	// PHigher and PLower are the one-sided p-values of "the level rose" and "the
	// level fell": the chance runs of the baseline's level lie this far out.
	PHigher, PLower float64
}

// ShiftOf tests new run values xs against the level at Confidence. The change
// needs a baseline and positive values; its interval and p-values a spread (2
// baseline runs). What cannot be had is NaN.
func (l Level) ShiftOf(xs ...float64) Shift {
	nan := math.NaN()
	s := Shift{Percent: nan, LowPercent: nan, HighPercent: nan, PHigher: nan, PLower: nan}
	if l.Runs < 1 || l.Center == 0 || !positive(xs) {
		return s
	}
	d := stats.Mean(logs(xs)) - l.mean
	s.Percent = percentOfLog(d)
	if l.DF < 1 {
		return s
	}
	s.Confidence = Confidence
	se := l.Spread * math.Sqrt(1/float64(len(xs))+1/float64(l.Runs))
	if se == 0 {
		// Identical baseline runs: any change is beyond them, none is not.
		s.LowPercent, s.HighPercent = s.Percent, s.Percent
		s.PHigher, s.PLower = pointP(d > 0), pointP(d < 0)
		return s
	}
	t := stats.TDist{V: float64(l.DF)}
	q := tQuantile(l.DF)
	s.LowPercent, s.HighPercent = percentOfLog(d-q*se), percentOfLog(d+q*se)
	s.PLower = t.CDF(d / se)
	s.PHigher = 1 - s.PLower
	return s
}

// BoundOf is the one-sided bound, in percent, on the change of the level new run
// values xs come from, at confidence level: the change is at most the bound
// (upper) or at least it. It is ShiftOf's estimator at another level, so a
// bound at 1 − α clears zero exactly when the one-sided p-value is below α. NaN
// where ShiftOf's interval is.
func (l Level) BoundOf(level float64, upper bool, xs ...float64) float64 {
	if l.Runs < 1 || l.Center == 0 || !positive(xs) || l.DF < 1 || !(level > 0 && level < 1) {
		return math.NaN()
	}
	d := stats.Mean(logs(xs)) - l.mean
	se := l.Spread * math.Sqrt(1/float64(len(xs))+1/float64(l.Runs))
	q := stats.InvCDF(stats.TDist{V: float64(l.DF)})(level) * se
	if upper {
		return percentOfLog(d + q)
	}
	return percentOfLog(d - q)
}

var quantiles sync.Map // degrees of freedom → the two-sided Confidence quantile of t

// tQuantile is Student's t quantile at 1 − (1 − Confidence)/2: InvCDF inverts by
// bisection, so each is found once.
func tQuantile(df int) float64 {
	if q, ok := quantiles.Load(df); ok {
		return q.(float64)
	}
	q := stats.InvCDF(stats.TDist{V: float64(df)})(1 - (1-Confidence)/2)
	quantiles.Store(df, q)
	return q
}

func pointP(beyond bool) float64 {
	if beyond {
		return 0
	}
	return 1
}
