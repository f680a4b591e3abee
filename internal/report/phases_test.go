package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/workers/summary"
)

// TestPhaseTable: a local faulted trial prints one line per phase, in seconds since
// the window began, and its time to the first error and recovery in words.
func TestPhaseTable(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	end, first, rec := sec(20.2), 0.35, 1.8
	p := &summary.Phases{ResolutionSeconds: 1, FaultStart: sec(10.5), FaultEnd: &end,
		Before: &summary.Phase{Start: sec(0.3), End: sec(10), RecordsPerSecond: 1000, Ack: summary.Percentiles{P50: 800, P99: 1000, Max: 1200}},
		During: &summary.Phase{Start: sec(10), End: sec(21), RecordsPerSecond: 640, Ack: summary.Percentiles{P50: 52000, P99: 69000, Max: 90000}, Failed: 12, Lost: 3, Duplicated: 2},
		After:  &summary.Phase{Start: sec(21), End: sec(30.3), RecordsPerSecond: 1010},
		Band:   trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}, FirstErrorSeconds: &first, RecoverySeconds: &rec, RecoveryFrom: summary.RecoveryFromEnd}
	rows := []Row{{Name: "t001-protobuf-256b-loss-5", Fault: "loss-5", Phases: localPhases(p)}, {Name: "t000-protobuf-256b"}}
	var buf bytes.Buffer
	if err := PhaseTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(buf.String()), " ") // columns' padding aside
	t.Log("\n" + buf.String())
	for _, want := range []string{
		"whole intervals of 1 s",
		"t001-protobuf-256b-loss-5 loss-5 during 9.7 20.7 640 52000 69000 90000 0 0 0 12 3 2",
		"fault loss-5 from 10.2 s to 19.9 s; first failed send 0.35 s after it began; recovered 1.8 s after its end (3 intervals in a row with throughput within ±10%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("phase table lacks %q", want)
		}
	}
	if strings.Contains(out, "t000-protobuf-256b") {
		t.Error("the baseline trial has no phases and no line")
	}
}
