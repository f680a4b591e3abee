package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/trial"
)

// TestPhaseTable: a local faulted trial prints one line per phase, in seconds since
// the window began, and its time to the first error and recovery in words.
func TestPhaseTable(t *testing.T) {
	first, rec, end := int64(350), int64(1800), int64(19_900)
	p := &trial.Phases{ResolutionSeconds: 1, FaultStartMillis: 10_200, FaultEndMillis: &end,
		Before: &trial.Phase{StartMillis: 0, EndMillis: 9700, RecordsPerSecond: 1000, AckMicros: trial.PhaseLatencyMicros{P50: 800, P99: 1000, Max: 1200}},
		During: &trial.Phase{StartMillis: 9700, EndMillis: 20_700, RecordsPerSecond: 640, AckMicros: trial.PhaseLatencyMicros{P50: 52000, P99: 69000, Max: 90000},
			FailedRecords: 12, LostRecords: 3, DuplicatedRecords: 2},
		After: &trial.Phase{StartMillis: 20_700, EndMillis: 30_000, RecordsPerSecond: 1010},
		Band:  trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}, FirstErrorMillis: &first, RecoveryMillis: &rec, RecoveryFrom: trial.RecoveryFromEnd}
	rows := []Row{{Name: "t001-protobuf-256b-loss-5", Fault: "loss-5", Phases: p}, {Name: "t000-protobuf-256b"}}
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

// TestPhaseTableOutlasting: a fault found still in effect after the window ended
// says so, not a time past the window.
func TestPhaseTableOutlasting(t *testing.T) {
	end := int64(75_000)
	p := &trial.Phases{ResolutionSeconds: 1, FaultStartMillis: 10_200, FaultEndMillis: &end,
		Before: &trial.Phase{StartMillis: 0, EndMillis: 10_000}, During: &trial.Phase{StartMillis: 10_000, EndMillis: 30_000},
		RecoveryFrom: trial.RecoveryFromEnd, RecoveryNote: "the fault was still in effect when the window ended"}
	var buf bytes.Buffer
	if err := PhaseTable(&buf, []Row{{Name: "t001", Fault: "loss-5", Phases: p}}); err != nil {
		t.Fatal(err)
	}
	if want := "fault loss-5 from 10.2 s, still in effect when the window ended at 30.0 s"; !strings.Contains(buf.String(), want) {
		t.Errorf("phase table:\n%s\nlacks %q", buf.String(), want)
	}
}
