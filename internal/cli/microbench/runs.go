package microbench

import (
	"fmt"
	"math"
	"slices"

	"github.com/serdebench/serdebench/internal/stats"
)

// Cost is a case's in-process cost of one record (SER+DESER, and COMP+DECOMP with
// a payload compressor) over the runs: the median, its interval and that
// interval's confidence (stats.Median: the runs' range, and its level, below 6).
type Cost struct {
	Runs       int     `json:"runs"`
	MedianNs   float64 `json:"medianNs"`
	LowNs      float64 `json:"lowNs"`
	HighNs     float64 `json:"highNs"`
	Confidence float64 `json:"confidence"`
}

// Merge makes one result per case of runs, each run a measurement of the same cases
// in the same order: the operations' times are their medians over the runs and
// RunsNs keeps each run's cost, so ranks can say which differences the runs bear
// out. Sizes, allocations and counts are the first run's (they do not vary with
// the run in Go; in the JVM they vary little).
func Merge(runs [][]Result) ([]Result, error) {
	if len(runs) == 0 {
		return nil, nil
	}
	out := slices.Clone(runs[0])
	for i := range out {
		var ops [4][]Op // marshal, unmarshal, compress, decompress
		out[i].RunsNs = nil
		for k, run := range runs {
			if len(run) != len(out) || run[i].Key() != out[i].Key() {
				return nil, fmt.Errorf("run %d measured other cases than the first", k+1)
			}
			r := run[i]
			out[i].RunsNs = append(out[i].RunsNs, r.totalNs())
			ops[0], ops[1] = append(ops[0], r.Marshal), append(ops[1], r.Unmarshal)
			if r.Compress != nil {
				ops[2], ops[3] = append(ops[2], *r.Compress), append(ops[3], *r.Decompress)
			}
		}
		out[i].Marshal, out[i].Unmarshal = medianOp(ops[0]), medianOp(ops[1])
		if out[i].Compress != nil {
			c, d := medianOp(ops[2]), medianOp(ops[3])
			out[i].Compress, out[i].Decompress = &c, &d
		}
	}
	return out, nil
}

// medianOp is the first op with its times the median over ops, its counts summed.
func medianOp(ops []Op) Op {
	o := ops[0]
	ns, cpu := make([]float64, len(ops)), make([]float64, len(ops))
	o.Ops, o.WarmupOps, o.WarmupNanos = 0, 0, 0
	for i, p := range ops {
		ns[i], cpu[i] = p.NsPerOp, p.CPUNsPerOp
		o.Ops += p.Ops
		o.WarmupOps += p.WarmupOps
		o.WarmupNanos += p.WarmupNanos
	}
	o.NsPerOp, o.CPUNsPerOp = stats.Median(ns).Median, stats.Median(cpu).Median
	return o
}

// cost is r's Cost over its runs (nil when measured once).
func (r Result) cost() *Cost {
	if len(r.RunsNs) < 2 {
		return nil
	}
	e := stats.Median(r.RunsNs)
	return &Cost{Runs: e.N, MedianNs: e.Median, LowNs: e.Low, HighNs: e.High, Confidence: e.Confidence}
}

// Ranking says how sure the in-process ranks are when the cases ran more than once.
type Ranking struct {
	// Runs is the fewest runs of any case; Tests how many comparisons the Holm
	// correction covered (every pair of codecs of a group, over the whole table).
	Runs, Tests int
	// Enough says a difference can be significant at all with Runs each and
	// Tests comparisons; Needed is the runs that would take.
	Enough bool
	Needed int
}

// differs says, per row, whether its end-to-end rank lies outside its in-process
// one: a rank shared by n rows spans MicroRank to MicroRank+n−1, any of which the
// runs allow.
func differs(rows []Row, groups [][]int) []bool {
	out := make([]bool, len(rows))
	for _, g := range groups {
		for _, i := range g {
			n := 0
			for _, j := range g {
				if rows[j].MicroRank == rows[i].MicroRank {
					n++
				}
			}
			out[i] = rows[i].E2ERank < rows[i].MicroRank || rows[i].E2ERank > rows[i].MicroRank+n-1
		}
	}
	return out
}

// rankingOf says how sure the ranks of rows, grouped as Join ranks them, are.
func rankingOf(rows []Row, groups [][]int) Ranking {
	runs, tests := math.MaxInt, 0
	for _, g := range groups {
		tests += len(g) * (len(g) - 1) / 2
		for _, i := range g {
			runs = min(runs, len(rows[i].RunsNs))
		}
	}
	if runs == math.MaxInt {
		runs = 0
	}
	return Ranking{Runs: runs, Tests: tests, Enough: tests == 0 || stats.MinP(runs, runs)*float64(tests) < stats.Alpha,
		Needed: stats.RepetitionsFor(tests)}
}

// rankByRuns ranks each group's rows (indexes into rows) by their runs
// (stats.Ranks: a row's rank is 1 + the rows of its group measurably cheaper,
// Holm over every pair in the table), so rows the runs cannot tell apart share a
// rank.
func rankByRuns(rows []Row, groups [][]int) {
	samples := make([][][]float64, len(groups))
	for g, idx := range groups {
		for _, i := range idx {
			samples[g] = append(samples[g], rows[i].RunsNs)
		}
	}
	for g, places := range stats.Ranks(samples) {
		for k, p := range places {
			rows[groups[g][k]].MicroRank, rows[groups[g][k]].MicroTie = p.Rank, p.Tie
		}
	}
}
