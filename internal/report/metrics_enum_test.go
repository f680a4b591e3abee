package report

import (
	"slices"
	"testing"

	"github.com/serdebench/serdebench/internal/testing/crdtest"
)

// TestMetricEnumsMatchTheCRD: admission knows the metric names this package
// computes: spec.objective's (every metric) and spec.repeatUntil.metrics' (those
// with a median), in Metrics' order, so a name no result has is refused with the
// field named instead of at the experiment's start.
func TestMetricEnumsMatchTheCRD(t *testing.T) {
	var all, median []string
	for _, m := range Metrics {
		all = append(all, m.Name)
		if !m.Total {
			median = append(median, m.Name)
		}
	}
	for path, want := range map[string][]string{
		"objective.optimize":             all,
		"objective.constraints[].metric": all,
		"repeatUntil.metrics[]":          median,
	} {
		if got := crdtest.Enum(t, crdtest.At(t, path)); !slices.Equal(got, want) {
			t.Errorf("spec.%s: the CRD admits %q, the metrics are %q", path, got, want)
		}
	}
}
