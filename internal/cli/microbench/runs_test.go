package microbench

import (
	"strings"
	"testing"
)

// TestRanksShareWhereRunsOverlap: over several runs a codec ranks behind only the
// codecs measurably cheaper than it. Two whose runs interleave share rank 1; one
// every run of which costs more than theirs ranks 3; with too few runs for any
// difference to be significant after the correction, all share rank 1 and the
// table says how many runs it would take.
func TestRanksShareWhereRunsOverlap(t *testing.T) {
	result := func(codec string, runs ...float64) Result {
		return Result{Codec: codec, Runtime: "jvm", Schema: "s", SizeBytes: 100, PayloadCompression: "none", RunsNs: runs,
			Marshal: Op{NsPerOp: runs[0] / 2}, Unmarshal: Op{NsPerOp: runs[0] / 2}}
	}
	rows := Join([]Result{
		result("a", 100, 102, 99, 101, 103, 98),
		result("b", 101, 100, 104, 97, 102, 99),
		result("c", 150, 160, 155, 149, 158, 151),
	}, nil)
	for i, want := range []struct {
		rank int
		tie  bool
	}{{1, true}, {1, true}, {3, false}} {
		if r := rows[i]; r.MicroRank != want.rank || r.MicroTie != want.tie || r.MicroCost == nil || r.MicroCost.Runs != 6 {
			t.Errorf("%s: rank %d tie %v cost %+v, want rank %d tie %v over 6 runs", r.Codec, r.MicroRank, r.MicroTie, r.MicroCost, want.rank, want.tie)
		}
	}
	if c := rows[2].MicroCost; c.MedianNs != 153 || c.LowNs != 149 || c.HighNs != 160 {
		t.Errorf("c's cost %+v: want the median 153 in the runs' range [149, 160]", c)
	}
	var b strings.Builder
	if err := Table(&b, rows); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "1=") || strings.Contains(out, "no difference can be significant") {
		t.Errorf("table: want shared ranks marked and no warning:\n%s", out)
	}

	few := Join([]Result{result("a", 100, 101, 99), result("c", 150, 160, 155)}, nil)
	if few[0].MicroRank != 1 || few[1].MicroRank != 1 || !few[1].MicroTie {
		t.Errorf("3 runs each: ranks %d, %d: want both 1 (no difference can be significant)", few[0].MicroRank, few[1].MicroRank)
	}
	b.Reset()
	if err := Table(&b, few); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Use --runs 4 or more") {
		t.Errorf("table with 3 runs: want the runs it would take:\n%s", b.String())
	}
}

// TestMerge: a merged result's times are the medians over the runs, its RunsNs each
// run's cost; runs of other cases are refused.
func TestMerge(t *testing.T) {
	run := func(ser, deser float64) []Result {
		return []Result{{Codec: "a", Runtime: "go", Schema: "s", SizeBytes: 100, PayloadCompression: "none",
			Marshal: Op{NsPerOp: ser, Ops: 10}, Unmarshal: Op{NsPerOp: deser, Ops: 10}}}
	}
	got, err := Merge([][]Result{run(10, 30), run(12, 20), run(50, 25)})
	if err != nil {
		t.Fatal(err)
	}
	r := got[0]
	if r.Marshal.NsPerOp != 12 || r.Unmarshal.NsPerOp != 25 || r.Marshal.Ops != 30 || len(r.RunsNs) != 3 || r.RunsNs[2] != 75 {
		t.Errorf("merged %+v: want marshal 12 ns, unmarshal 25 ns, 30 ops, runs [40 32 75]", r)
	}
	other := run(1, 1)
	other[0].Codec = "b"
	if _, err := Merge([][]Result{run(10, 30), other}); err == nil {
		t.Error("runs of other cases merged")
	}
}

// TestDiffersWithinATie: codecs sharing in-process rank 1 three ways may come in
// any order end to end, the fourth only fourth; codecs ranked apart differ when
// their end-to-end ranks are others.
func TestDiffersWithinATie(t *testing.T) {
	rows := []Row{{MicroRank: 1, E2ERank: 3}, {MicroRank: 1, E2ERank: 1}, {MicroRank: 1, E2ERank: 2}, {MicroRank: 4, E2ERank: 4}, {MicroRank: 1, E2ERank: 2}, {MicroRank: 2, E2ERank: 1}}
	got := differs(rows, [][]int{{0, 1, 2, 3}, {4, 5}})
	want := []bool{false, false, false, false, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d (micro %d, e2e %d): differs %v, want %v", i, rows[i].MicroRank, rows[i].E2ERank, got[i], want[i])
		}
	}
}
