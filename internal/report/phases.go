package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/summary"
)

// Phases are a faulted trial's phases in the table's units (docs/faults.md).
type Phases struct {
	// ResolutionSeconds is the length of the intervals the phases are made of.
	ResolutionSeconds int64
	// FaultStart and FaultEnd are the fault's window in seconds since the
	// measured window began (FaultEnd: the during phase's end for a kill).
	FaultStart, FaultEnd float64
	Phases               []PhaseRow
	// FirstErrorSeconds and RecoverySeconds are nil when there was none.
	FirstErrorSeconds, RecoverySeconds *float64
	RecoveryFrom, RecoveryNote, Band   string
}

// PhaseRow is one phase: its bounds in seconds since the measured window began,
// throughput, latencies in µs, and its records' failures, losses and duplicates.
type PhaseRow struct {
	Name                                           string
	From, To                                       float64
	RecordsPerSecond                               float64
	AckP50, AckP99, AckMax, E2EP50, E2EP99, E2EMax int64
	Failed, Lost, Duplicated                       int64
}

// localPhases converts a local result's phases.
func localPhases(p *summary.Phases) *Phases {
	if p == nil {
		return nil
	}
	first := p.During
	if p.Before != nil {
		first = p.Before
	}
	if first == nil {
		return nil
	}
	windowStart := first.Start
	out := &Phases{ResolutionSeconds: p.ResolutionSeconds, FirstErrorSeconds: p.FirstErrorSeconds, RecoverySeconds: p.RecoverySeconds,
		RecoveryFrom: p.RecoveryFrom, RecoveryNote: p.RecoveryNote, Band: p.Band.String(), FaultStart: p.FaultStart.Sub(windowStart).Seconds()}
	for _, ph := range []struct {
		name string
		p    *summary.Phase
	}{{"before", p.Before}, {"during", p.During}, {"after", p.After}} {
		if ph.p == nil {
			continue
		}
		out.Phases = append(out.Phases, PhaseRow{Name: ph.name, From: ph.p.Start.Sub(windowStart).Seconds(), To: ph.p.End.Sub(windowStart).Seconds(),
			RecordsPerSecond: ph.p.RecordsPerSecond, AckP50: ph.p.Ack.P50, AckP99: ph.p.Ack.P99, AckMax: ph.p.Ack.Max,
			E2EP50: ph.p.EndToEnd.P50, E2EP99: ph.p.EndToEnd.P99, E2EMax: ph.p.EndToEnd.Max,
			Failed: ph.p.Failed, Lost: ph.p.Lost, Duplicated: ph.p.Duplicated})
	}
	out.FaultEnd = faultEnd(out, p.FaultEnd, windowStart)
	return out
}

// resultPhases converts a SerializationResult trial's phases.
func resultPhases(t v1alpha1.TrialResult) *Phases {
	p := t.Phases
	if p == nil || t.Fault == nil || t.Fault.InjectedTime == nil {
		return nil
	}
	first := p.During
	if p.Before != nil {
		first = p.Before
	}
	if first == nil {
		return nil
	}
	start := first.StartTime.Time
	seconds := func(ms *int64) *float64 {
		if ms == nil {
			return nil
		}
		s := float64(*ms) / 1000
		return &s
	}
	out := &Phases{ResolutionSeconds: int64(p.ResolutionSeconds), FirstErrorSeconds: seconds(p.FirstErrorMillis),
		RecoverySeconds: seconds(p.RecoveryMillis), RecoveryFrom: p.RecoveryFrom, RecoveryNote: p.RecoveryNote, Band: p.Band.String(),
		FaultStart: t.Fault.InjectedTime.Sub(start).Seconds()}
	for _, ph := range []struct {
		name string
		p    *v1alpha1.Phase
	}{{"before", p.Before}, {"during", p.During}, {"after", p.After}} {
		if ph.p == nil {
			continue
		}
		out.Phases = append(out.Phases, PhaseRow{Name: ph.name, From: ph.p.StartTime.Sub(start).Seconds(), To: ph.p.EndTime.Sub(start).Seconds(),
			RecordsPerSecond: float64(ph.p.RecordsPerSecond), AckP50: ph.p.AckMicros.P50, AckP99: ph.p.AckMicros.P99, AckMax: ph.p.AckMicros.Max,
			E2EP50: ph.p.EndToEndMicros.P50, E2EP99: ph.p.EndToEndMicros.P99, E2EMax: ph.p.EndToEndMicros.Max,
			Failed: ph.p.FailedRecords, Lost: ph.p.LostRecords, Duplicated: ph.p.DuplicatedRecords})
	}
	var end *time.Time
	if t.Fault.RecoveredTime != nil {
		end = &t.Fault.RecoveredTime.Time
	}
	out.FaultEnd = faultEnd(out, end, start)
	return out
}

// faultEnd is the fault's end in seconds since start; a kill's is the during
// phase's end.
func faultEnd(p *Phases, end *time.Time, start time.Time) float64 {
	if end != nil {
		return end.Sub(start).Seconds()
	}
	for _, ph := range p.Phases {
		if ph.Name == "during" {
			return ph.To
		}
	}
	return p.FaultStart
}

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
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	for _, r := range faulted {
		for _, ph := range r.Phases.Phases {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Name, r.Fault, ph.Name, f(ph.From, 1), f(ph.To, 1),
				f(ph.RecordsPerSecond, 0), ph.AckP50, ph.AckP99, ph.AckMax, ph.E2EP50, ph.E2EP99, ph.E2EMax, ph.Failed, ph.Lost, ph.Duplicated)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "FROM/TO: seconds since the measured window began. REC/S: acknowledged in the phase; latencies of the records due in it (1% precision); FAILED, LOST, DUP: its records (by due time).")
	for _, r := range faulted {
		p := r.Phases
		line := fmt.Sprintf("%s (%d s intervals): fault %s from %.1f s to %.1f s", r.Name, p.ResolutionSeconds, r.Fault, p.FaultStart, p.FaultEnd)
		if p.FirstErrorSeconds != nil {
			line += fmt.Sprintf("; first failed send %.2f s after it began", *p.FirstErrorSeconds)
		} else {
			line += "; no send failed after it began"
		}
		from := "its end"
		if p.RecoveryFrom == summary.RecoveryFromKill {
			from = "the kill"
		}
		if p.RecoverySeconds != nil {
			line += fmt.Sprintf("; recovered %.1f s after %s (%s)", *p.RecoverySeconds, from, p.Band)
		} else {
			line += "; not recovered: " + p.RecoveryNote
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
