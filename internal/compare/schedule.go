package compare

import "github.com/serdebench/serdebench/api/v1alpha1"

// ScheduleOptions are the options a schedule judges its runs with: its
// thresholds, baseline and persistence as admitted (the API's defaults applied;
// a pinned baseline judges each run alone against all its results).
// The operator and `serdebench compare --schedule` both read them here, so a
// local replay of a schedule's runs is judged as the schedule judges them.
func ScheduleOptions(spec *v1alpha1.SerializationScheduleSpec) Options {
	th, b := spec.Thresholds, spec.Baseline
	o := Options{
		Thresholds: Thresholds{ThroughputDropPercent: float64(th.ThroughputDropPercent),
			P99RisePercent: float64(th.P99RisePercent), SerializeRisePercent: float64(th.SerializeRisePercent)},
		BaselineRuns: int(b.Runs), MinRuns: int(b.MinRuns), Persistence: int(spec.PersistenceRuns),
	}
	if b.Kind == v1alpha1.BaselinePinned {
		// A pinned baseline holds no streak: each run stands alone against all of it.
		o.Persistence, o.BaselineRuns = 1, len(b.PinnedResults())
	}
	return o
}
