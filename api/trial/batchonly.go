package trial

import "strings"

// BatchOnly are the settings single mode ignores (Table's rows shown in batch mode
// only): a producer waiting for each acknowledgement sends each record alone, so
// a batch's size and linger mean nothing to it.
func BatchOnly() []Row {
	var out []Row
	for _, r := range Table {
		if r.Label.When == LabelInBatchMode {
			out = append(out, r)
		}
	}
	return out
}

// batchOnlyNames are BatchOnly's JSON names, each with prefix, joined with "and".
func batchOnlyNames(prefix string) string {
	var names []string
	for _, r := range BatchOnly() {
		names = append(names, prefix+r.JSON)
	}
	return strings.Join(names, " and ")
}

// The refusals of batch settings that no trial would use (issue 44: nothing
// silently ignored). The planner (internal/plan) and the CRD's rules
// (hack/gensettings) give the same words.
var (
	// BatchSweepUnused: the matrix sweeps a batch setting and none of its trials is
	// in batch mode.
	BatchSweepUnused = batchOnlyNames("matrix.") + " sweep batch mode's settings, and no trial of the matrix is in batch mode (mode, matrix.mode): " +
		"single mode sends each record alone; remove the sweep, or sweep mode too"
	// BatchSettingsUnused: spec.producer sets a batch setting to other than its
	// default and no trial is in batch mode.
	BatchSettingsUnused = batchOnlyNames("producer.") + " apply to batch mode, and no trial is in it (mode, matrix.mode, matrix.include): " +
		"single mode sends each record alone; leave them at their defaults, or add a batch-mode trial"
	// BatchPointUnused: a matrix.include point in single mode sets a batch setting.
	BatchPointUnused = "matrix.include: a point in single mode sets " + strings.ReplaceAll(batchOnlyNames(""), " and ", " or ") +
		", which single mode ignores (it sends each record alone): remove them from the point"
)
