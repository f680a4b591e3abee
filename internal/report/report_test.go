package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/serdebench/serdebench/api/v1alpha1"
)

// TestSearchLine: a result's rate search is summed up under the table, naming the
// maximum, the first step not sustained and why, and why the search stopped.
func TestSearchLine(t *testing.T) {
	res := &v1alpha1.SerializationResult{Trials: []v1alpha1.TrialResult{{Name: "t000-protobuf-1176b", Codec: "protobuf",
		Search: &v1alpha1.SearchResult{MaxSustainedRecordsPerSecond: 56955, Stopped: "producer 0 fell a whole step behind",
			Steps: []v1alpha1.SearchStep{{Index: 5, Sustained: true}, {Index: 6, Sustained: true},
				{Index: 7, Reason: "end-to-end p99 51199 µs above 50000 µs"}}}}}}
	var out bytes.Buffer
	if err := Table(&out, ResultRows(res)); err != nil {
		t.Fatal(err)
	}
	want := "rate search: t000-protobuf-1176b: max sustained 56955 rec/s over 8 steps; step 7 not sustained: " +
		"end-to-end p99 51199 µs above 50000 µs; producer 0 fell a whole step behind"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("table:\n%s\nwant the line %q", out.String(), want)
	}
	// Without a search, no such line.
	out.Reset()
	res.Trials[0].Search = nil
	if err := Table(&out, ResultRows(res)); err != nil || strings.Contains(out.String(), "rate search") {
		t.Fatalf("a trial without a search printed one (err %v):\n%s", err, out.String())
	}
}
