package microbench

import (
	"strings"
	"testing"

	"github.com/serdebench/serdebench/internal/report"
)

// TestRanks: in a closed loop the end-to-end rank follows records per second; at a
// target rate, which every codec reaches, it follows p50 latency. The in-process rank
// follows the summed cost.
func TestRanks(t *testing.T) {
	results := []Result{
		{Codec: "a", Schema: "s", SizeBytes: 100, PayloadCompression: "none", Marshal: Op{NsPerOp: 10}, Unmarshal: Op{NsPerOp: 10}},
		{Codec: "b", Schema: "s", SizeBytes: 100, PayloadCompression: "none", Marshal: Op{NsPerOp: 5}, Unmarshal: Op{NsPerOp: 30}},
	}
	closed := Join(results, []report.Row{
		{Codec: "a", Schema: "s", SizeBytes: 100, RecordsPerSecond: 900, P50: 50},
		{Codec: "b", Schema: "s", SizeBytes: 100, RecordsPerSecond: 1000, P50: 90},
	})
	if closed[0].MicroRank != 1 || closed[1].MicroRank != 2 || closed[0].E2ERank != 2 || closed[1].E2ERank != 1 {
		t.Fatalf("closed loop ranks %+v", closed)
	}
	open := Join(results, []report.Row{
		{Codec: "a", Schema: "s", SizeBytes: 100, RecordsPerSecond: 500, P50: 50, OpenLoop: true},
		{Codec: "b", Schema: "s", SizeBytes: 100, RecordsPerSecond: 501, P50: 90, OpenLoop: true},
	})
	if open[0].E2ERank != 1 || open[1].E2ERank != 2 {
		t.Fatalf("open loop ranks %+v", open)
	}
	search := Join(results, []report.Row{
		{Codec: "a", Schema: "s", SizeBytes: 100, P50: 50, Search: "max sustained 8000 rec/s", MaxSustained: 8000},
		{Codec: "b", Schema: "s", SizeBytes: 100, P50: 90, Search: "max sustained 9000 rec/s", MaxSustained: 9000},
	})
	if search[0].E2ERank != 2 || search[1].E2ERank != 1 {
		t.Fatalf("rate search ranks %+v", search)
	}
}

// TestTableWarnsOfJVMRanks: a table with a JVM row says its ranks are one JVM's; one
// of Go rows only does not.
func TestTableWarnsOfJVMRanks(t *testing.T) {
	for _, c := range []struct {
		runtime string
		warns   bool
	}{{"go", false}, {"jvm", true}, {"jvm→go", true}} {
		var b strings.Builder
		if err := Table(&b, Join([]Result{{Codec: "a", Runtime: c.runtime, Schema: "s", SizeBytes: 100, PayloadCompression: "none"}}, nil)); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "a JVM row's rank is one JVM's"); got != c.warns {
			t.Errorf("runtime %s: warning %v, want %v", c.runtime, got, c.warns)
		}
	}
}
