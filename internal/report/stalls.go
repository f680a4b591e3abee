package report

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/summary"
)

// stallsOf reads a result's stalls back into the table's units (results do not
// list the stalls one by one).
func stallsOf(x *v1alpha1.StallsResult) *summary.Stalls {
	if x == nil {
		return nil
	}
	return &summary.Stalls{Count: int(x.Count), Partitions: int(x.Partitions), Moved: int(x.Moved), MaxMicros: x.MaxMicros,
		TotalMicros: x.TotalMicros, Delayed: x.DelayedRecords, DelayedMaxMicros: x.DelayedMaxMicros, SlackMicros: x.SlackMicros}
}

// StallsTable writes the trials' partition stalls, when there are any: what a
// rebalance, a member gone or a paused one cost (docs/measurement.md,
// "Rebalances and stalls").
func StallsTable(w io.Writer, rows []Row) error {
	if !slices.ContainsFunc(rows, func(r Row) bool { return r.Stalls != nil || r.Fault != "" }) {
		return nil
	}
	fmt.Fprintln(w, "\nStalls (a partition unconsumed while a record of it waited at least 200 ms):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CODEC\tSIZE B\tSETTINGS\tstalls\tpartitions\tmoved\tlongest ms\ttotal ms\tdelayed records\tdelayed max ms\t")
	for _, r := range rows {
		settings := r.settingsLabel()
		x := r.Stalls
		if x == nil {
			if r.Fault != "" {
				fmt.Fprintf(tw, "%s\t%d\t%s\t0\t0\t0\t-\t-\t0\t-\t\n", r.Codec, r.SizeBytes, settings)
			}
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t%d\t%.0f\t%.0f\t%d\t%.0f\t\n", r.Codec, r.SizeBytes, settings, x.Count, x.Partitions, x.Moved,
			float64(x.MaxMicros)/1e3, float64(x.TotalMicros)/1e3, x.Delayed, float64(x.DelayedMaxMicros)/1e3)
	}
	return tw.Flush()
}
