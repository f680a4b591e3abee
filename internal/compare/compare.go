// Package compare judges a run against the runs before it, trial by trial, as a
// nightly check must: quiet when nothing changed, loud when something did and
// stayed. It is serdebench compare's logic and the SerializationSchedule's.
//
// Noise has two levels. Repetitions inside a run (spec.repetitions) measure the
// noise within a run; runs on different days also differ as a whole (a
// neighbour, a warming broker, the page cache), and only earlier runs measure
// that. So each run is one value per trial and metric — the median of its
// repetitions — and a new run is judged against the spread of the earlier runs'
// values (stats.Level): its change from their center, with the interval Student's
// t gives for one more run. A metric breaches when that change is worse than its
// threshold and significant after Holm's correction over every trial and metric
// of the run; a breach is Suspect. It is Regressed when it persists: each of the
// last Persistence runs worse than the threshold, and their mean significant
// against the runs before them. The runs of that streak are never part of its
// baseline, whatever they showed, so the test is not biased by having picked them.
// The mirror of Regressed is Improved: each of the same runs better than the
// threshold, and their mean significant the other way, Holm-corrected in a
// family of its own. With Persistence above 1, one good run alone is Within:
// unlike a first breach, a first gain needs no watching.
// Every trial beside a control trial of the same run is tested relative to it:
// when the control regressed and the others moved with it, the metric is
// EnvironmentShifted, not regressed; when it gained with them, the gain is the
// environment's, not Improved.
package compare

import (
	"slices"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// Thresholds are the relative changes that count as a regression, in percent.
type Thresholds struct {
	// ThroughputDropPercent: records per second lower by more than this.
	ThroughputDropPercent float64
	// P99RisePercent: end-to-end p99 higher by more than this.
	P99RisePercent float64
	// SerializeRisePercent: serialize µs per record higher by more than this.
	SerializeRisePercent float64
}

// DefaultThresholds are throughput −10 %, p99 +20 % and serialize time +20 %.
var DefaultThresholds = Thresholds{ThroughputDropPercent: 10, P99RisePercent: 20, SerializeRisePercent: 20}

// Options say how runs are judged.
type Options struct {
	Thresholds Thresholds
	// BaselineRuns is how many earlier runs make a baseline (default 5).
	BaselineRuns int
	// MinRuns is the fewest baseline runs a metric is judged with (default 3): with
	// fewer the between-run noise is not known, and the comparison says so instead
	// of guessing. A run is judged once MinRuns + Persistence − 1 runs came before
	// it (the streak's are not its baseline): Needed.
	MinRuns int
	// Persistence is how many consecutive runs must be worse than the threshold,
	// and significant together, before a metric is Regressed (default 2; 1
	// regresses at the first breach). The last Persistence − 1 earlier runs are the
	// streak's, the BaselineRuns before them the baseline: a lasting change is
	// alerted until the baseline has absorbed it.
	Persistence int
	// Control is the key of the trial whose moves are the environment's (default:
	// the candidate's first trial in plan order).
	Control string
}

// DefaultOptions are the defaults of each option.
var DefaultOptions = Options{Thresholds: DefaultThresholds, BaselineRuns: 5, MinRuns: 3, Persistence: 2}

// Needed is how many earlier runs a run needs to be judged.
func (o Options) Needed() int {
	o = o.withDefaults()
	return o.MinRuns + o.Persistence - 1
}

func (o Options) withDefaults() Options {
	if o.BaselineRuns < 1 {
		o.BaselineRuns = DefaultOptions.BaselineRuns
	}
	if o.MinRuns < 2 {
		o.MinRuns = DefaultOptions.MinRuns
	}
	if o.Persistence < 1 {
		o.Persistence = DefaultOptions.Persistence
	}
	return o
}

// Verdict is what a metric, a trial or a run came to (the API's).
type Verdict = v1alpha1.ComparisonVerdict

// Verdicts, from the least to the most severe.
const (
	NotJudged          = v1alpha1.VerdictNotJudged
	Within             = v1alpha1.VerdictWithin
	Improved           = v1alpha1.VerdictImproved
	EnvironmentShifted = v1alpha1.VerdictEnvironmentShifted
	Suspect            = v1alpha1.VerdictSuspect
	Regressed          = v1alpha1.VerdictRegressed
)

// severity orders the verdicts for a trial's and a run's roll-up: a trial with
// one metric Improved and the rest Within is Improved, and any worse verdict of
// another metric outweighs the improvement (a gate must not miss it).
var severity = []Verdict{NotJudged, Within, Improved, EnvironmentShifted, Suspect, Regressed}

func worse(a, b Verdict) Verdict {
	if slices.Index(severity, b) > slices.Index(severity, a) {
		return b
	}
	return a
}
