package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	if charts[0].ID != "throughput" || charts[0].Points != 2 || charts[4].ID != "latency" || charts[4].Points != 5 {
		t.Fatalf("charts %+v", charts)
	}
	var buf bytes.Buffer
	if err := Write(&buf, []Run{run}, start); err != nil {
		t.Fatal(err)
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
