package summary

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/serdebench/serdebench/api/trial"
)

// faultedTrial builds one producer's and one consumer's summaries of a 30 s trial
// at 1000 records/s over 3 partitions, with intervals of 1 s. Records due in
// [slowFrom, slowTo) are acknowledged after slowMicros instead of 1 ms; among them
// every 10th fails, every 7th acknowledged one is never received and every 13th
// received one arrives twice. It returns the summaries and the exact failed, lost
// and duplicated counts per phase for phase bounds at the given seconds.
func faultedTrial(t *testing.T, slowFrom, slowTo float64, slowMicros int64, bounds [2]int64) ([]*Summary, [3][3]int64) {
	t.Helper()
	const rate, seconds, partitions = 1000, 30, 3
	prod := &Summary{Role: RoleProducer, Worker: "0", Series: NewSeries(1), Histograms: map[string]*Histogram{}}
	cons := &Summary{Role: RoleConsumer, Worker: "c0", Series: NewSeries(1), Histograms: map[string]*Histogram{}}
	var acked, failed, received [partitions]SeqSet
	var seqs [partitions]int64
	var want [3][3]int64 // phase × failed, lost, duplicated
	var lastDone time.Time
	phaseOf := func(at time.Time) int {
		switch s := at.Unix() - t0.Unix(); {
		case s < bounds[0]:
			return 0
		case s < bounds[1]:
			return 1
		}
		return 2
	}
	for i := range rate * seconds {
		at := t0.Add(time.Duration(i) * time.Second / rate)
		p := i % partitions
		seq := seqs[p]
		seqs[p]++
		off := at.Sub(t0).Seconds()
		slow := off >= slowFrom && off < slowTo
		lat := int64(1000)
		if slow {
			lat = slowMicros
		}
		done := at.Add(time.Duration(lat) * time.Microsecond)
		lastDone = later(lastDone, done)
		ph := phaseOf(at)
		prod.Series.Seq(at, p, seq)
		if slow && i%10 == 0 {
			failed[p].Add(seq)
			prod.Series.Offered(at)
			prod.Series.Failure(done)
			want[ph][0]++
			continue
		}
		acked[p].Add(seq)
		prod.Series.Measured(at, lat)
		prod.Series.Done(done, true)
		prod.Records++
		if slow && i%7 == 0 {
			want[ph][1]++
			continue
		}
		copies := 1
		if slow && i%13 == 0 {
			copies = 2
			want[ph][2]++
		}
		for range copies {
			if !received[p].Add(seq) {
				cons.Series.Duplicate(at)
			}
			cons.Series.Measured(at, lat+2000)
			cons.Series.Done(done, true)
		}
	}
	prod.WindowStart, prod.WindowEnd = t0, lastDone
	cons.WindowStart, cons.WindowEnd = t0, lastDone
	for p := range partitions {
		prod.Acked = append(prod.Acked, Delivery{Producer: 0, Partition: p, Total: acked[p].Total(), Intervals: acked[p].Intervals()})
		if failed[p].Distinct() > 0 {
			prod.Failed = append(prod.Failed, Delivery{Producer: 0, Partition: p, Total: failed[p].Total(), Intervals: failed[p].Intervals()})
		}
		cons.Received = append(cons.Received, Delivery{Producer: 0, Partition: p, Total: received[p].Total(), Intervals: received[p].Intervals()})
	}
	return []*Summary{prod, cons}, want
}

func checkCounts(t *testing.T, name string, ph *trial.Phase, want [3]int64) {
	t.Helper()
	if ph == nil {
		t.Fatalf("%s phase missing", name)
	}
	if got := [3]int64{ph.FailedRecords, ph.LostRecords, ph.DuplicatedRecords}; got != want {
		t.Errorf("%s: failed, lost, duplicated = %v, want %v", name, got, want)
	}
}

// TestPhasesSustainedFault: a fault from 10.5 s to 20.2 s slows acknowledgements to
// 50 ms, and they stay slow until 22 s. The phases are whole intervals, the sets
// are cut exactly, and recovery is timed from the fault's end.
func TestPhasesSustainedFault(t *testing.T) {
	sums, want := faultedTrial(t, 10.5, 22, 50_000, [2]int64{10, 21})
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	start, end := t0.Add(10500*time.Millisecond), t0.Add(20200*time.Millisecond)
	if err := r.SplitAtFault(start, end, trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}); err != nil {
		t.Fatal(err)
	}
	ph := r.Phases
	if ph.ResolutionSeconds != 1 || ph.Before.StartMillis != 0 || ph.Before.EndMillis != 10_000 || ph.During.EndMillis != 21_000 {
		t.Fatalf("phase bounds: resolution %d, before from %d ms to %d ms, during ends %d ms; want 1, 0 to 10000, 21000",
			ph.ResolutionSeconds, ph.Before.StartMillis, ph.Before.EndMillis, ph.During.EndMillis)
	}
	if ph.FaultStartMillis != 10_500 || ph.FaultEndMillis == nil || *ph.FaultEndMillis != 20_200 || ph.FaultEnd() != 20_200 {
		t.Fatalf("fault from %d ms to %v ms since the window began, want 10500 to 20200", ph.FaultStartMillis, derefMillis(ph.FaultEndMillis))
	}
	if ph.Before.WindowMillis != 10_000 {
		t.Errorf("before phase holds %d ms of the window, want 10000", ph.Before.WindowMillis)
	}
	checkCounts(t, "before", ph.Before, want[0])
	checkCounts(t, "during", ph.During, want[1])
	checkCounts(t, "after", ph.After, want[2])
	if want[1][0] == 0 || want[1][1] == 0 || want[1][2] == 0 || want[2][0] == 0 {
		t.Fatalf("the fixture plants no failures, losses or duplicates where it should: %v", want)
	}
	if ph.Before.AckMicros.P99 > 1010 || ph.During.AckMicros.P99 < 49_000 || ph.During.AckMicros.Max > 50_500 {
		t.Errorf("ack p99 before %d µs, during %d µs (max %d); want ≈1000 and ≈50000", ph.Before.AckMicros.P99, ph.During.AckMicros.P99, ph.During.AckMicros.Max)
	}
	if ph.Before.RecordsPerSecond != 1000 || ph.Before.OfferedRecordsPerSecond != 1000 {
		t.Errorf("before-phase throughput %d records/s (offered %d), want 1000", ph.Before.RecordsPerSecond, ph.Before.OfferedRecordsPerSecond)
	}
	// Records due in [20.2, 22) are still slow: 21 is out of the band, 22-24 in.
	if ph.RecoveryMillis == nil || *ph.RecoveryMillis != 1800 || ph.RecoveryFrom != trial.RecoveryFromEnd {
		t.Fatalf("recovery %v ms from %q (%s), want 1800 ms from the fault's end", derefMillis(ph.RecoveryMillis), ph.RecoveryFrom, ph.RecoveryNote)
	}
	// The first failure: the first record due at or after 10.5 s with i%10 == 0,
	// failing 50 ms after it was due.
	if ph.FirstErrorMillis == nil || *ph.FirstErrorMillis != 50 {
		t.Errorf("first error %v ms after the fault's start, want 50", derefMillis(ph.FirstErrorMillis))
	}
	var total [3]int64
	var records int64
	for _, p := range ph.Named() {
		records += p.Records
		total[0] += p.FailedRecords
		total[1] += p.LostRecords
		total[2] += p.DuplicatedRecords
	}
	if total != [3]int64{r.Failed, r.Lost, r.Duplicated} {
		t.Errorf("phases add up to %v, the trial has failed %d, lost %d, duplicated %d", total, r.Failed, r.Lost, r.Duplicated)
	}
	if records != r.Records {
		t.Errorf("phases hold %d records, the trial %d", records, r.Records)
	}
}

// TestPhasesKill: a kill at 10.5 s delays the acknowledgements of records due
// until 13 s by 200 ms. Recovery is timed from the kill, and the during phase lasts
// until it: the interval from 13 s has fast acknowledgements but still takes in
// the delayed ones (1,200 a second, outside ±10 %), so the trial is back at 14 s.
func TestPhasesKill(t *testing.T) {
	sums, want := faultedTrial(t, 10.5, 13, 200_000, [2]int64{10, 14})
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SplitAtFault(t0.Add(10500*time.Millisecond), time.Time{}, trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}); err != nil {
		t.Fatal(err)
	}
	ph := r.Phases
	if ph.RecoveryMillis == nil || *ph.RecoveryMillis != 3500 || ph.RecoveryFrom != trial.RecoveryFromKill || ph.FaultEndMillis != nil {
		t.Fatalf("recovery %v ms from %q (%s), end %v; want 3500 ms from the kill and no end", derefMillis(ph.RecoveryMillis), ph.RecoveryFrom, ph.RecoveryNote, derefMillis(ph.FaultEndMillis))
	}
	if ph.During.EndMillis != 14_000 || ph.FaultEnd() != 14_000 {
		t.Errorf("during ends %d ms after the start (the fault's effect %d ms), want 14000 (the recovery)", ph.During.EndMillis, ph.FaultEnd())
	}
	checkCounts(t, "during", ph.During, want[1])
	checkCounts(t, "after", ph.After, want[2])
}

// TestPhasesKillOnTheSecond: a kill reported on an interval's first instant
// (Chaos Mesh's injectedTime is whole seconds) that nothing measured noticed
// still has its interval as the during phase, and the trial is back at the next.
func TestPhasesKillOnTheSecond(t *testing.T) {
	sums, _ := faultedTrial(t, 30, 30, 1000, [2]int64{10, 11})
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SplitAtFault(t0.Add(10*time.Second), time.Time{}, trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}); err != nil {
		t.Fatal(err)
	}
	ph := r.Phases
	if ph.During == nil || ph.During.StartMillis != 10_000 || ph.During.EndMillis != 11_000 {
		t.Fatalf("during %+v: want the kill's interval, 10 s to 11 s", ph.During)
	}
	if ph.RecoveryMillis == nil || *ph.RecoveryMillis != 1000 || ph.Before == nil || ph.After == nil {
		t.Fatalf("recovery %v ms (%s), before %v, after %v: want 1000 ms, the next interval", derefMillis(ph.RecoveryMillis), ph.RecoveryNote, ph.Before != nil, ph.After != nil)
	}
}

// TestPhasesNotRecovered: a slowdown that lasts to the window's end is not a
// recovery, and says why.
func TestPhasesNotRecovered(t *testing.T) {
	sums, _ := faultedTrial(t, 10.5, 31, 50_000, [2]int64{10, 21})
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SplitAtFault(t0.Add(10500*time.Millisecond), t0.Add(20200*time.Millisecond), trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}); err != nil {
		t.Fatal(err)
	}
	ph := r.Phases
	if ph.RecoveryMillis != nil || ph.RecoveryNote == "" {
		t.Fatalf("recovery %v ms, note %q; want none, with a note", derefMillis(ph.RecoveryMillis), ph.RecoveryNote)
	}
}

func derefMillis(ms *int64) any {
	if ms == nil {
		return "none"
	}
	return *ms
}

// TestPhasesFaultOutlastsWindow: a timed fault still in effect when the window
// ended (removed after it) is not a kill: the during phase runs to the window's
// end, with no after phase and no recovery, and the note says why.
func TestPhasesFaultOutlastsWindow(t *testing.T) {
	sums, want := faultedTrial(t, 10.5, 31, 50_000, [2]int64{10, 40})
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SplitAtFault(t0.Add(10500*time.Millisecond), t0.Add(45*time.Second), trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}); err != nil {
		t.Fatal(err)
	}
	ph := r.Phases
	if ph.RecoveryFrom != trial.RecoveryFromEnd || ph.RecoveryMillis != nil || !strings.Contains(ph.RecoveryNote, "still in effect") {
		t.Fatalf("recovery %v ms from %q, note %q; want none from the fault's end, noting it outlasted the window", derefMillis(ph.RecoveryMillis), ph.RecoveryFrom, ph.RecoveryNote)
	}
	if ph.After != nil {
		t.Errorf("after phase %+v, want none", ph.After)
	}
	checkCounts(t, "before", ph.Before, want[0])
	checkCounts(t, "during", ph.During, want[1])
}

// TestPhasesJSON: a result's phases read back as written, and a report of an
// older version (absolute times, fractional rates) reads into the same model,
// its times counted from its first phase's start.
func TestPhasesJSON(t *testing.T) {
	sums, _ := faultedTrial(t, 10.5, 22, 50_000, [2]int64{10, 21})
	r, err := Merge(sums)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SplitAtFault(t0.Add(10500*time.Millisecond), t0.Add(20200*time.Millisecond), trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Phases, r.Phases) || back.Records != r.Records {
		t.Fatalf("read back %+v, wrote %+v", back.Phases, r.Phases)
	}
	old := `{"records": 30000, "phases": {"resolutionSeconds": 1, "faultStart": "2026-11-20T10:00:10.8Z", "faultEnd": "2026-11-20T10:00:20.5Z",
		"before": {"start": "2026-11-20T10:00:00.3Z", "end": "2026-11-20T10:00:10Z", "seconds": 9.7, "records": 9700, "recordsPerSecond": 1000.4,
			"offeredRecordsPerSecond": 1000.6, "ackMicros": {"count": 9700, "mean": 950.5, "p50": 900, "p99": 1000, "max": 1200}, "endToEndMicros": {"p50": 1500, "p99": 2000, "max": 2500},
			"failed": 0, "lost": 0, "duplicated": 0},
		"during": {"start": "2026-11-20T10:00:10Z", "end": "2026-11-20T10:00:21Z", "seconds": 11, "records": 7040, "recordsPerSecond": 640.2,
			"offeredRecordsPerSecond": 1000, "ackMicros": {"p50": 52000, "p99": 69000, "max": 90000}, "failed": 12, "lost": 3, "duplicated": 2},
		"firstErrorSeconds": 0.35, "band": {"throughputPercent": 10, "latencyPercent": 50, "intervals": 3},
		"recoverySeconds": 1.8, "recoveryFrom": "FaultEnd"}}`
	var legacy Result
	if err := json.Unmarshal([]byte(old), &legacy); err != nil {
		t.Fatalf("an older version's report: %v", err)
	}
	ph, end := legacy.Phases, int64(20_200)
	want := &trial.Phases{ResolutionSeconds: 1, FaultStartMillis: 10_500, FaultEndMillis: &end,
		Before: &trial.Phase{StartMillis: 0, EndMillis: 9700, WindowMillis: 9700, Records: 9700, RecordsPerSecond: 1000, OfferedRecordsPerSecond: 1001,
			AckMicros: trial.PhaseLatencyMicros{P50: 900, P99: 1000, Max: 1200}, EndToEndMicros: trial.PhaseLatencyMicros{P50: 1500, P99: 2000, Max: 2500}},
		During: &trial.Phase{StartMillis: 9700, EndMillis: 20_700, WindowMillis: 11_000, Records: 7040, RecordsPerSecond: 640, OfferedRecordsPerSecond: 1000,
			AckMicros: trial.PhaseLatencyMicros{P50: 52000, P99: 69000, Max: 90000}, FailedRecords: 12, LostRecords: 3, DuplicatedRecords: 2},
		FirstErrorMillis: ptr(int64(350)), RecoveryMillis: ptr(int64(1800)), RecoveryFrom: trial.RecoveryFromEnd,
		Band: trial.Recovery{ThroughputPercent: 10, LatencyPercent: 50, Intervals: 3}}
	if !reflect.DeepEqual(ph, want) || legacy.Records != 30000 {
		t.Fatalf("an older version's phases read as\n%+v\nwant\n%+v", ph, want)
	}
}

func ptr[T any](v T) *T { return &v }
