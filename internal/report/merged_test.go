package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/workers/summary"
)

// TestMergedBesideMedian: a repeated trial's row carries the p99 of all its
// repetitions' records (their histograms merged, exactly) beside the median of
// their p99s, the table prints it in p99 MERGED, and the statistics keep it; rows
// without histograms say n/a.
func TestMergedBesideMedian(t *testing.T) {
	var rows []Row
	all := summary.NewLatency()
	for k, slow := range []int64{1, 1, 20} { // one repetition with a slow tail
		e2e := summary.NewLatency()
		for i := range int64(1000) {
			v := 1000 + i
			if i >= 980 {
				v *= slow
			}
			e2e.Record(v)
			all.Record(v)
		}
		rows = append(rows, Row{Name: fmt.Sprintf("t000-json-512b-r%d", k+1), Config: "t000-json-512b", Repetition: k + 1, Runs: 1,
			RecordsPerSecond: 100, P99: e2e.Quantile(99), Latency: map[string]*summary.Histogram{summary.EndToEndMicros: e2e}})
	}
	agg := Aggregate(rows)
	if len(agg) != 1 || agg[0].Merged == nil {
		t.Fatalf("aggregate %+v", agg)
	}
	m := agg[0].Merged
	if m.Runs != 3 || m.EndToEndMicros.Count != 3000 || m.EndToEndMicros.P99 != all.Quantile(99) {
		t.Fatalf("merged %+v, want 3 runs, 3000 values and p99 %d", m, all.Quantile(99))
	}
	// The median of the p99s does not see the slow tail; the merged p99 does.
	if agg[0].P99 >= m.EndToEndMicros.P99 {
		t.Fatalf("median of p99s %d, merged p99 %d", agg[0].P99, m.EndToEndMicros.P99)
	}
	st := Statistics(rows)
	if len(st) != 1 || st[0].Merged == nil || st[0].Merged.EndToEndMicros.P99 != m.EndToEndMicros.P99 {
		t.Fatalf("statistics %+v", st)
	}
	var b bytes.Buffer
	if err := WideTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "p99 MERGED µs") || !strings.Contains(out, fmt.Sprint(m.EndToEndMicros.P99)) {
		t.Fatalf("table lacks the merged p99 %d:\n%s", m.EndToEndMicros.P99, out)
	}
	for i := range rows {
		rows[i].Latency = nil
	}
	b.Reset()
	if err := WideTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	if Aggregate(rows)[0].Merged != nil || !strings.Contains(b.String(), "n/a") {
		t.Fatalf("without histograms: merged %+v\n%s", Aggregate(rows)[0].Merged, b.String())
	}
}
