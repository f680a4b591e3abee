package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/serdebench/serdebench/api/trial"
)

// PhaseTable writes each faulted trial's phases, then its time to the first error
// and its recovery.
func PhaseTable(w io.Writer, rows []Row) error {
	var faulted []Row
	for _, r := range rows {
		if r.Phases != nil {
			faulted = append(faulted, r)
		}
	}
	if len(faulted) == 0 {
		return nil
	}
	res := faulted[0].Phases.ResolutionSeconds
	for _, r := range faulted[1:] {
		if r.Phases.ResolutionSeconds != res {
			res = 0
		}
	}
	if res > 0 {
		fmt.Fprintf(w, "\nFault phases: before, during and after each trial's fault, in whole intervals of %d s (an interval the fault overlaps is during it).\n", res)
	} else {
		fmt.Fprintln(w, "\nFault phases: before, during and after each trial's fault, in whole intervals (their length is after each trial's name below; an interval the fault overlaps is during it).")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "TRIAL\tFAULT\tPHASE\tFROM s\tTO s\tREC/S\tACK p50 µs\tp99 µs\tmax µs\tE2E p50 µs\tp99 µs\tmax µs\tFAILED\tLOST\tDUP\t")
	for _, r := range faulted {
		for _, ph := range r.Phases.Named() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Name, r.Fault, ph.Name, seconds(ph.StartMillis, 1), seconds(ph.EndMillis, 1),
				ph.RecordsPerSecond, ph.AckMicros.P50, ph.AckMicros.P99, ph.AckMicros.Max, ph.EndToEndMicros.P50, ph.EndToEndMicros.P99, ph.EndToEndMicros.Max,
				ph.FailedRecords, ph.LostRecords, ph.DuplicatedRecords)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "FROM/TO: seconds since the measured window began. REC/S: acknowledged in the phase; latencies of the records due in it (1% precision); FAILED, LOST, DUP: its records (by due time).")
	for _, r := range faulted {
		p := r.Phases
		line := fmt.Sprintf("%s (%d s intervals): fault %s from %s s to %s s", r.Name, p.ResolutionSeconds, r.Fault, seconds(p.FaultStartMillis, 1), seconds(p.FaultEnd(), 1))
		if named := p.Named(); len(named) > 0 && p.FaultEnd() > named[len(named)-1].EndMillis {
			line = fmt.Sprintf("%s (%d s intervals): fault %s from %s s, still in effect when the window ended at %s s", r.Name, p.ResolutionSeconds, r.Fault,
				seconds(p.FaultStartMillis, 1), seconds(named[len(named)-1].EndMillis, 1))
		}
		if p.FirstErrorMillis != nil {
			line += fmt.Sprintf("; first failed send %s s after it began", seconds(*p.FirstErrorMillis, 2))
		} else {
			line += "; no send failed after it began"
		}
		from := "its end"
		if p.RecoveryFrom == trial.RecoveryFromKill {
			from = "the kill"
		}
		if p.RecoveryMillis != nil {
			line += fmt.Sprintf("; recovered %s s after %s (%s)", seconds(*p.RecoveryMillis, 1), from, p.Band)
		} else {
			line += "; not recovered: " + p.RecoveryNote
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// seconds writes milliseconds as seconds with prec decimals.
func seconds(ms int64, prec int) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', prec, 64)
}
