package runner_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/compare"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/cpuload"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestStressedMachineIsTheEnvironment plants a machine slowdown: three runs of a
// small experiment on the real broker, then one with CPU stress beside its workers
// (three goroutines spinning for every processor in this process, as a
// noisy neighbour would). Judged by compare against the three, the stressed run is
// EnvironmentShifted, not Regressed, and the machine probe says why: its CPU part
// is far slower (the stress leaves the probe's loop about 2/7 of a
// processor, 3.5 times as slow: it must be at least 50 % slower).
func TestStressedMachineIsTheEnvironment(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("json", "protobuf")
	s.Records, s.Consumers = ptr(int64(3000)), 1
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	run := func(stress bool) []report.Row {
		t.Helper()
		stop := func() {}
		if stress {
			stop = cpuload.Spin(3 * runtime.GOMAXPROCS(0))
		}
		results, err := runner.Run(context.Background(), trials, runner.Options{Brokers: brokers, Experiment: "it-probe", TrialTimeout: 2 * time.Minute})
		stop()
		if err != nil {
			t.Fatal(err)
		}
		rows := report.LocalRows(results)
		for _, r := range rows {
			if r.Probe == nil || r.Probe.CPUNanosPerOp <= 0 || r.Probe.FsyncMicros <= 0 || r.Probe.ConnectMicros <= 0 {
				t.Fatalf("%s: probe %+v: every trial's first producer measures every part", r.Name, r.Probe)
			}
		}
		return rows
	}
	var history [][]report.Row
	for range 3 {
		history = append(history, run(false))
	}
	o := compare.DefaultOptions
	o.Persistence = 1 // the stressed run alone is judged
	res := compare.Compare(history, run(true), o)
	t.Logf("stressed run: %s; %s", res.Verdict, res.Machine())
	for _, tr := range res.Trials {
		for _, m := range tr.Metrics {
			t.Logf("  %s %s: %s (%s)", tr.Name, m.Name, m.Said(), m.Verdict)
		}
	}
	if !res.ProbeDecides || res.Verdict != compare.EnvironmentShifted || len(res.Probe) == 0 || res.Probe[0].Name != "cpu" || float64(res.Probe[0].ChangePercent) < 50 {
		t.Fatalf("verdict %s, probe decides %v, probe %+v: want EnvironmentShifted, the probe's CPU part at least 50 %% slower", res.Verdict, res.ProbeDecides, res.Probe)
	}
}
