// Package htmlreport writes serdebench's HTML report: one self-contained file (the
// pinned ECharts bundle inline) with the charts the studies draw — throughput per
// codec and size, serialized size, (de)serialization time and its share, latency
// percentiles from the merged histograms, throughput over time — the table and the
// environment, for one run or several side by side.
package htmlreport

import (
	"fmt"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/recommend"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/workers/summary"
)

// Run is one run as the report shows it: a local run's JSON or a SerializationResult.
type Run struct {
	// Label names the run in legends and headings.
	Label string
	// Environment is what the run records about where it ran, as name/value pairs.
	Environment [][2]string
	// Versions are what shaped its numbers besides its spec (compare.Changes says
	// where they changed between runs).
	Versions compare.Versions
	// Rows are the table's rows, one per trial (its repetitions summed up).
	Rows []report.Row
	// Runs are the rows as measured, a repeated trial's every repetition: what a
	// comparison tests.
	Runs []report.Row
	// Trials hold each row's distributions and series, in the same order.
	Trials []Trial
	// Objective is the experiment's spec.objective (nil: the default);
	// TrialSeconds a trial's warmup and measured window (recommend.TrialSeconds).
	Objective    *v1alpha1.Objective
	TrialSeconds int
}

// Trial is what the report draws for one trial beyond its table row.
type Trial struct {
	// Latency is the end-to-end latency percentile curve from the merged histogram.
	Latency []Percentile
	// Throughput is records per second over the measured window.
	Throughput []Sample
	// P99 is the acknowledgement and end-to-end p99 per interval.
	P99 []LatencySample
	// Fault is the trial's fault window, shaded on the charts over time (nil: none).
	Fault *Shade
}

// LatencySample is one interval's p99 latencies.
type LatencySample struct {
	// Seconds since the first interval started.
	Seconds float64
	// AckMicros and EndToEndMicros are the p99 of the records due in the interval.
	AckMicros, EndToEndMicros int64
}

// Shade is a fault's window on the charts over time, in their seconds.
type Shade struct {
	Name     string
	From, To float64
}

// Percentile is one point of a latency curve.
type Percentile struct {
	// Label is the percentile ("p99.9", "max").
	Label string
	// Micros is its latency in microseconds.
	Micros int64
}

// Sample is one point of a series over time.
type Sample struct {
	// Seconds since the measured window started.
	Seconds float64
	// RecordsPerSecond achieved in the interval.
	RecordsPerSecond float64
}

// PercentileLabels are the latency curve's points, in order.
var PercentileLabels = []string{"p50", "p75", "p90", "p95", "p99", "p99.9", "p99.99", "max"}

// curve keeps the percentiles a histogram has (optional ones may be 0: absent).
func curve(vals ...int64) []Percentile {
	var out []Percentile
	for i, v := range vals {
		if v > 0 {
			out = append(out, Percentile{Label: PercentileLabels[i], Micros: v})
		}
	}
	return out
}

// FromResult is a SerializationResult as a run.
func FromResult(res *v1alpha1.SerializationResult) Run {
	run := Run{Label: res.Name, Objective: res.Experiment.Spec.Objective, TrialSeconds: recommend.TrialSeconds(res.Experiment.Spec.ExperimentSpec)}
	rows := report.ResultRows(res)
	env := res.Environment
	run.Environment = nonEmpty([][2]string{
		{"result", res.Name}, {"experiment", res.Experiment.Name}, {"created", res.CreationTimestamp.UTC().Format(time.RFC3339)},
		{"Kafka", env.KafkaRelease}, {"Kafka APIs", env.KafkaAPIVersions}, {"operator", env.OperatorVersion}, {"worker image", env.WorkerImage},
		{"worker image IDs", fmt.Sprint(env.WorkerImageIDs)}, {"nodes", fmt.Sprint(env.NodeNames)}, {"broker CPU", report.BrokerCPU(env.BrokerCPU)},
		{"Kubernetes", env.KubernetesVersion}, {"software", report.SoftwareLine(env.Software)}, {"machines", report.MachinesLine(env.Machines)},
	})
	run.Versions = compare.VersionsOf(env)
	for _, t := range res.Trials {
		e := t.EndToEndMicros
		tr := Trial{Latency: curve(e.P50, e.P75, e.P90, e.P95, e.P99, e.P999, e.P9999, e.Max)}
		if len(t.Intervals) > 0 {
			start := t.Intervals[0].StartTime.Time
			for _, iv := range t.Intervals {
				at := iv.StartTime.Sub(start).Seconds()
				tr.Throughput = append(tr.Throughput, Sample{Seconds: at, RecordsPerSecond: float64(iv.RecordsPerSecond)})
				tr.P99 = append(tr.P99, LatencySample{Seconds: at, AckMicros: iv.AckP99Micros, EndToEndMicros: iv.EndToEndP99Micros})
			}
			if f := t.Fault; f != nil && f.InjectedTime != nil {
				var end *time.Time
				if f.RecoveredTime != nil {
					end = &f.RecoveredTime.Time
				}
				tr.Fault = shade(f.Name, f.InjectedTime.Time, end, start, seriesEnd(len(t.Intervals), int64(t.IntervalSeconds)), t.Phases)
			}
		}
		run.Trials = append(run.Trials, tr)
	}
	return aggregate(run, rows)
}

// aggregate makes a run's rows one per trial, repetitions summed up
// (report.Aggregate), each with the series of the repetition it shows.
func aggregate(run Run, rows []report.Row) Run {
	byName := map[string]Trial{}
	for i, r := range rows {
		byName[r.Name] = run.Trials[i]
	}
	run.Runs, run.Rows, run.Trials = rows, report.Aggregate(rows), nil
	for _, r := range run.Rows {
		name := r.Name
		if r.Shown != "" {
			name = r.Shown
		}
		run.Trials = append(run.Trials, byName[name])
	}
	return run
}

// FromLocal is a `serdebench run -o json` report as a run.
func FromLocal(rep report.Report) Run {
	run := Run{Label: rep.Experiment}
	rows := report.Stopped(report.LocalRows(rep.Trials), rep.Stopping != nil)
	if rep.Environment.StartedAt != "" {
		run.Label = rep.Experiment + " " + rep.Environment.StartedAt
	}
	e := rep.Environment
	run.Environment = nonEmpty([][2]string{
		{"experiment", rep.Experiment}, {"started", e.StartedAt}, {"finished", e.FinishedAt}, {"Kafka", e.BrokerRelease}, {"Kafka APIs", e.BrokerAPIVersions},
		{"brokers", fmt.Sprint(e.Brokers)}, {"serdebench", e.WorkerVersion}, {"Go", e.GoVersion},
		{"CPUs", fmt.Sprint(e.CPUs)}, {"OS/arch", e.OS + "/" + e.Arch}, {"software", report.SoftwareLine(e.Software)}, {"machines", report.MachinesLine(e.Machines)},
	})
	run.Versions = compare.VersionsOf(v1alpha1.Environment{KafkaRelease: e.BrokerRelease, Software: e.Software, Machines: e.Machines})
	if e.WorkerVersion != "" {
		run.Versions["serdebench"] = e.WorkerVersion // its binary ran the Go workers
	}
	for _, t := range rep.Trials {
		run.Trials = append(run.Trials, localTrial(t.Result, t.Fault))
	}
	return aggregate(run, rows)
}

// localTrial is a local result's trial, f its fault as the rig applied it (nil:
// none).
func localTrial(r *summary.Result, f *report.LocalFault) Trial {
	if r == nil {
		return Trial{}
	}
	e := r.EndToEnd
	tr := Trial{Latency: curve(e.P50, e.P75, e.P90, e.P95, e.P99, e.P999, e.P9999, e.Max)}
	if len(r.Intervals) > 0 {
		start := r.Intervals[0].Start
		for _, iv := range r.Intervals {
			at := iv.Start.Sub(start).Seconds()
			tr.Throughput = append(tr.Throughput, Sample{Seconds: at, RecordsPerSecond: iv.RecordsPerSecond})
			tr.P99 = append(tr.P99, LatencySample{Seconds: at, AckMicros: iv.Ack.P99, EndToEndMicros: iv.EndToEnd.P99})
		}
		if f != nil && !f.Applied.IsZero() {
			var end *time.Time
			if !f.Removed.IsZero() {
				end = &f.Removed
			}
			tr.Fault = shade(f.Name, f.Applied, end, start, seriesEnd(len(r.Intervals), r.IntervalSeconds), r.Phases)
		}
	}
	return tr
}

// shade is a trial's fault window in seconds since origin (its series' first
// interval), within the series (until seconds): from the fault's start to its
// end as its record says, or for a kill (no end) for as long as its phases say
// its effect lasted, until the trial recovered. The record's times serve first:
// a result of an older version has phases without their times.
func shade(name string, start time.Time, end *time.Time, origin time.Time, until float64, p *trial.Phases) *Shade {
	from := start.Sub(origin).Seconds()
	to := from
	switch {
	case end != nil:
		to = end.Sub(origin).Seconds()
	case p != nil:
		to += float64(max(0, p.FaultEnd()-p.FaultStartMillis)) / 1000
	}
	return &Shade{Name: name, From: from, To: min(to, max(until, from))}
}

// seriesEnd is where n intervals of width seconds end, in seconds since the first
// began.
func seriesEnd(n int, width int64) float64 {
	return float64(int64(n) * max(width, 1))
}

func nonEmpty(kv [][2]string) [][2]string {
	out := kv[:0]
	for _, p := range kv {
		if p[1] != "" && p[1] != "[]" && p[1] != "/" && p[1] != "0" {
			out = append(out, p)
		}
	}
	return out
}
