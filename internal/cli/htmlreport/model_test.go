package htmlreport

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
)

// TestFromResult: a SerializationResult's percentiles become the latency curve
// (absent optional percentiles left out), its intervals the series over time, and
// the charts count one point per trial and size.
func TestFromResult(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	res := &v1alpha1.SerializationResult{ObjectMeta: metav1.ObjectMeta{Name: "nightly-1"},
		Environment: v1alpha1.Environment{KafkaRelease: "4.3.1", NodeNames: []string{"node-a"}},
		Trials: []v1alpha1.TrialResult{
			{Name: "t000-json-1176b", Codec: "json", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: 40000,
				EndToEndMicros: v1alpha1.LatencyMicros{Count: 100, P50: 900, P90: 1500, P99: 4000, P999: 9000, Max: 12000},
				Intervals: []v1alpha1.Interval{{StartTime: metav1.NewTime(start), RecordsPerSecond: 39000},
					{StartTime: metav1.NewTime(start.Add(5 * time.Second)), RecordsPerSecond: 41000}}},
			{Name: "t001-protobuf-1176b", Codec: "protobuf", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: 150000},
		}}
	run := FromResult(res)
	if len(run.Rows) != 2 || len(run.Trials) != 2 {
		t.Fatalf("run %+v", run)
	}
	want := []Percentile{{"p50", 900}, {"p90", 1500}, {"p99", 4000}, {"p99.9", 9000}, {"max", 12000}}
	if got := run.Trials[0].Latency; len(got) != len(want) || got[4] != want[4] || got[0] != want[0] {
		t.Fatalf("latency curve %v, want %v", got, want)
	}
	if got := run.Trials[0].Throughput; len(got) != 2 || got[1].Seconds != 5 || got[1].RecordsPerSecond != 41000 {
		t.Fatalf("series %v", got)
	}
	charts := Charts([]Run{run})
	if charts[0].ID != "pareto" || charts[1].ID != "throughput" || charts[1].Points != 2 || charts[6].ID != "latency" || charts[6].Points != 5 {
		t.Fatalf("charts %+v", charts)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []Run{run}, start); err != nil {
		t.Fatal(err)
	}
	// The page opens with the recommendation, before any chart.
	if rec, chart := strings.Index(buf.String(), "<h2>Recommendation: "), strings.Index(buf.String(), `class="chart"`); rec < 0 || rec > chart ||
		!strings.Contains(buf.String(), "<strong>business-record 1176 B</strong>") {
		t.Errorf("the recommendation at %d, the first chart at %d", rec, chart)
	}
	for _, s := range []string{"node-a", "json", "Apache ECharts 6.1.0", `"throughput": {"grid"`, `"data":[40000,150000]`} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if err := Write(&buf, nil, start); err == nil {
		t.Fatal("no runs: no error")
	}
}

// TestFaultShaded: a faulted trial's window is shaded on both charts over time,
// from its injection to its recovery in the intervals' seconds, and the page's
// table lists its phases.
func TestFaultShaded(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	at := func(s float64) metav1.Time { return metav1.NewTime(start.Add(time.Duration(s * float64(time.Second)))) }
	injected, recovered := at(10), at(20)
	var ivs []v1alpha1.Interval
	for s := range 30 {
		ivs = append(ivs, v1alpha1.Interval{StartTime: at(float64(s)), RecordsPerSecond: 1000, AckP99Micros: 900, EndToEndP99Micros: 2000})
	}
	during := &trial.Phase{StartMillis: 10_000, EndMillis: 21_000, RecordsPerSecond: 700, FailedRecords: 12, LostRecords: 3}
	rec, end := int64(1800), int64(20_000)
	res := &v1alpha1.SerializationResult{ObjectMeta: metav1.ObjectMeta{Name: "iov"}, Trials: []v1alpha1.TrialResult{{
		Name: "t001-protobuf-256b-loss-5", Codec: "protobuf", SizeBytes: 256, Intervals: ivs,
		Fault: &v1alpha1.FaultStatus{Name: "loss-5", InjectedTime: &injected, RecoveredTime: &recovered},
		Phases: &trial.Phases{ResolutionSeconds: 1, FaultStartMillis: 10_000, FaultEndMillis: &end, Before: &trial.Phase{StartMillis: 0, EndMillis: 10_000, RecordsPerSecond: 1000},
			During: during, After: &trial.Phase{StartMillis: 21_000, EndMillis: 30_000, RecordsPerSecond: 1000}, RecoveryMillis: &rec, RecoveryFrom: trial.RecoveryFromEnd},
	}}}
	run := FromResult(res)
	if f := run.Trials[0].Fault; f == nil || f.Name != "loss-5" || f.From != 10 || f.To != 20 {
		t.Fatalf("fault shade %+v, want loss-5 from 10 s to 20 s", f)
	}
	for _, c := range Charts([]Run{run}) {
		if c.ID != "over-time" && c.ID != "p99-over-time" {
			continue
		}
		series := c.Option["series"].([]map[string]any)
		area, ok := series[0]["markArea"].(map[string]any)
		if !ok {
			t.Fatalf("chart %s: no shaded fault window", c.ID)
		}
		if d := area["data"].([][2]map[string]any); d[0][0]["xAxis"] != 10.0 || d[0][1]["xAxis"] != 20.0 || d[0][0]["name"] != "loss-5" {
			t.Errorf("chart %s: shaded %v", c.ID, d)
		}
		if c.Points != 30 {
			t.Errorf("chart %s: %d points, want 30", c.ID, c.Points)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, []Run{run}, start); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "p99-over-time") {
		t.Error("page lacks the p99 chart")
	}
}

// TestShadeCases: a timed fault is shaded to its recorded end, clipped to the
// series; a kill to the end of its during phase (the recovery); a kill in a
// result whose phases lack their times (an older version's) is an instant.
func TestShadeCases(t *testing.T) {
	origin := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return origin.Add(time.Duration(s * float64(time.Second))) }
	ms := func(v int64) *int64 { return &v }
	removed, late := at(20), at(75)
	kill := &trial.Phases{FaultStartMillis: 9_700, During: &trial.Phase{StartMillis: 9_000, EndMillis: 14_000}, RecoveryFrom: trial.RecoveryFromKill}
	for _, c := range []struct {
		name     string
		end      *time.Time
		phases   *trial.Phases
		from, to float64
	}{
		{"timed", &removed, &trial.Phases{FaultStartMillis: 9_700, FaultEndMillis: ms(19_700)}, 10, 20},
		{"outlasting the window", &late, &trial.Phases{FaultStartMillis: 9_700, FaultEndMillis: ms(74_700)}, 10, 30},
		{"kill", nil, kill, 10, 14.3},
		{"kill, older result", nil, &trial.Phases{During: &trial.Phase{}}, 10, 10},
		{"no phases", &removed, nil, 10, 20},
	} {
		s := shade("f", at(10), c.end, origin, 30, c.phases)
		if s.From != c.from || math.Abs(s.To-c.to) > 1e-9 {
			t.Errorf("%s: shaded %.3f to %.3f s, want %.1f to %.1f", c.name, s.From, s.To, c.from, c.to)
		}
	}
}

// TestComparisonShowsTests: with enough runs for a verdict, the page's comparison
// table prints each judged metric's test beside its verdict — what it was tested
// on, the tested change with its one-sided bound and confidence, and the streak's
// — and labels the two-sided interval descriptive.
func TestComparisonShowsTests(t *testing.T) {
	var runs []Run
	for i, rate := range []int64{150000, 147000, 153000, 149000, 151000, 120000, 121000} {
		// The drop came with a client upgrade: the page says so beside the verdict.
		clients := "4.3.1"
		if i >= 5 {
			clients = "4.4.0"
		}
		res := &v1alpha1.SerializationResult{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("nightly-%d", i)},
			Environment: v1alpha1.Environment{Software: []v1alpha1.Software{{Name: "kafka-clients", Version: clients}}},
			Trials: []v1alpha1.TrialResult{
				{Name: "t000-json-1176b", Codec: "json", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: 40000 + int64(i%3)*400},
				{Name: "t001-protobuf-1176b", Codec: "protobuf", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: rate},
			}}
		runs = append(runs, FromResult(res))
	}
	var buf bytes.Buffer
	if err := Write(&buf, runs, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, s := range []string{"(descriptive)", "<th class=\"text\">tested on</th>", "<td class=\"text\">control</td>", "Regressed",
		`<p class="caption changed">changed: kafka-clients: 4.3.1 → 4.4.0 at nightly-5</p>`} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	// The regressed row carries both tests, each bound on the worse side.
	_, row, found := strings.Cut(page, `<tr class="regressed">`)
	row, _, _ = strings.Cut(row, "</tr>")
	if !found || strings.Count(row, "(≤ -") != 2 || !strings.Contains(row, ", p 0.") {
		t.Errorf("regressed row %s", row)
	}
}

// TestComparisonShowsImproved: a trial faster beyond the threshold on two runs
// in a row is Improved; its row is marked, and beside the verdict stands the
// improvement's own test, its bound on the better side (html/template writes +
// as &#43;).
func TestComparisonShowsImproved(t *testing.T) {
	var runs []Run
	for i, rate := range []int64{150000, 147000, 153000, 149000, 151000, 187000, 188000} {
		res := &v1alpha1.SerializationResult{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("nightly-%d", i)},
			Trials: []v1alpha1.TrialResult{
				{Name: "t000-json-1176b", Codec: "json", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: 40000 + int64(i%3)*400},
				{Name: "t001-protobuf-1176b", Codec: "protobuf", Schema: "business-record", SizeBytes: 1176, RecordsPerSecond: rate},
			}}
		runs = append(runs, FromResult(res))
	}
	var buf bytes.Buffer
	if err := Write(&buf, runs, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	_, row, found := strings.Cut(buf.String(), `<tr class="improved">`)
	row, _, _ = strings.Cut(row, "</tr>")
	if !found || !strings.Contains(row, "t001-protobuf-1176b") || !strings.Contains(row, "(≥ &#43;") || !strings.Contains(row, ">Improved<") {
		t.Errorf("improved row %s", row)
	}
}
