package microbench

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/report"
)

// Row is a microbenchmark beside the end-to-end trial with the same codec, payload
// and payload compressor (E2E nil: none given). Ranks are 1 for the best codec
// among the rows of the same payload, compressor and producer settings: in process
// the cheapest; end to end the fastest in a closed loop, the lowest p50 latency at
// a target rate.
//
// With several runs of each case (Result.RunsNs) the in-process rank is 1 + the
// codecs measurably cheaper (rankByRuns): codecs the runs cannot tell apart share
// a rank (MicroTie), and MicroCost is the cost's median with its interval.
type Row struct {
	Result
	E2E       *report.Row `json:"e2e,omitempty"`
	MicroCost *Cost       `json:"microCost,omitempty"`
	MicroRank int         `json:"microRank"`
	MicroTie  bool        `json:"microTie,omitempty"`
	E2ERank   int         `json:"e2eRank,omitempty"`
}

// totalNs is the in-process cost of one record: encode, decode and their payload
// compression.
func (r Result) totalNs() float64 {
	n := r.Marshal.NsPerOp + r.Unmarshal.NsPerOp
	if r.Compress != nil {
		n += r.Compress.NsPerOp + r.Decompress.NsPerOp
	}
	return n
}

// Join pairs results with end-to-end rows (from serdebench run -o json or a
// SerializationResult) and ranks each group both ways. Without e2e rows, each
// result is one row, ranked among its payload and compressor.
func Join(results []Result, e2e []report.Row) []Row {
	var rows []Row
	if len(e2e) == 0 {
		for _, r := range results {
			rows = append(rows, Row{Result: r})
		}
	} else {
		byKey := map[string]Result{}
		for _, r := range results {
			byKey[r.Key()] = r
		}
		for i := range e2e {
			e := e2e[i]
			size := e.SizeBytes
			if e.Source {
				size = 0
			}
			if r, ok := byKey[Key(e.Codec, e.Runtime, e.Schema, size, e.PayloadCompression)]; ok {
				rows = append(rows, Row{Result: r, E2E: &e})
			}
		}
	}
	groups := groupsOf(rows)
	runs := len(rows) > 0
	for i := range rows {
		rows[i].MicroCost = rows[i].cost()
		runs = runs && rows[i].MicroCost != nil
	}
	if runs {
		rankByRuns(rows, groups)
	}
	for _, idx := range groups {
		if !runs {
			micro := append([]int(nil), idx...)
			sort.SliceStable(micro, func(a, b int) bool { return rows[micro[a]].totalNs() < rows[micro[b]].totalNs() })
			for rank, i := range micro {
				rows[i].MicroRank = rank + 1
			}
		}
		if rows[idx[0]].E2E == nil {
			continue
		}
		// In a closed loop the codec sets the pace: rank by records per second. At a
		// target rate every codec reaches it: rank by end-to-end p50 instead. A rate
		// search ranks by the highest rate sustained.
		e2e := append([]int(nil), idx...)
		better := func(a, b *report.Row) bool { return a.RecordsPerSecond > b.RecordsPerSecond }
		switch first := rows[idx[0]].E2E; {
		case first.Search != "":
			better = func(a, b *report.Row) bool { return a.MaxSustained > b.MaxSustained }
		case first.OpenLoop:
			better = func(a, b *report.Row) bool { return a.P50 < b.P50 }
		}
		sort.SliceStable(e2e, func(a, b int) bool { return better(rows[e2e[a]].E2E, rows[e2e[b]].E2E) })
		for rank, i := range e2e {
			rows[i].E2ERank = rank + 1
		}
	}
	return rows
}

// groupsOf are the rows ranked together (indexes into rows, in their order): the
// same runtime, payload and compressor, and end-to-end producer settings. A
// runtime's rows are read beside another's, not ranked with them.
func groupsOf(rows []Row) [][]int {
	var keys []string
	byKey := map[string][]int{}
	for i, r := range rows {
		g := fmt.Sprintf("%s/%s/%d/%s", r.Runtime, r.Schema, r.SizeBytes, r.PayloadCompression)
		if r.E2E != nil {
			g += "/" + r.E2E.Settings
		}
		if _, ok := byKey[g]; !ok {
			keys = append(keys, g)
		}
		byKey[g] = append(byKey[g], i)
	}
	out := make([][]int, len(keys))
	for k, g := range keys {
		out[k] = byKey[g]
	}
	return out
}

var columns = []string{"codec", "runtime", "schema", "size_B", "payload_compression", "encoded_B", "marshal_ns", "marshal_alloc_B", "marshal_allocs",
	"unmarshal_ns", "unmarshal_alloc_B", "unmarshal_allocs", "marshal_cpu_ns", "marshal_peak_heap_growth_B",
	"unmarshal_cpu_ns", "unmarshal_peak_heap_growth_B", "compressed_B", "compress_ns", "decompress_ns",
	"micro_ns", "micro_ns_low", "micro_ns_high", "micro_confidence", "micro_runs", "micro_rank", "micro_tie",
	"e2e_settings", "e2e_rec_per_s", "e2e_cpu_us_per_rec", "e2e_rank"}

// cells are the row's CSV cells in three parts: the operations', the in-process
// cost and rank's (micro_ns to micro_tie), and the end-to-end trial's.
func (r Row) cells() (ops, micro, e2e []string) {
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	// Allocations and the heap's peak are counted in Go only.
	goOnly := func(rt string, v int64) string {
		if rt != string(trial.RuntimeGo) {
			return "-"
		}
		return i(v)
	}
	ser, deser := r.runtimes()
	ops = []string{r.Codec, r.Runtime, r.Schema, i(int64(r.SizeBytes)), r.PayloadCompression, f(r.EncodedBytes, 0),
		f(r.Marshal.NsPerOp, 0), i(r.Marshal.BytesPerOp), goOnly(ser, r.Marshal.AllocsPerOp),
		f(r.Unmarshal.NsPerOp, 0), i(r.Unmarshal.BytesPerOp), goOnly(deser, r.Unmarshal.AllocsPerOp),
		f(r.Marshal.CPUNsPerOp, 0), goOnly(ser, r.Marshal.PeakHeapGrowthBytes), f(r.Unmarshal.CPUNsPerOp, 0), goOnly(deser, r.Unmarshal.PeakHeapGrowthBytes)}
	if r.Compress != nil {
		ops = append(ops, f(r.CompressedBytes, 0), f(r.Compress.NsPerOp, 0), f(r.Decompress.NsPerOp, 0))
	} else {
		ops = append(ops, "-", "-", "-")
	}
	if c := r.MicroCost; c != nil {
		micro = []string{f(c.MedianNs, 0), f(c.LowNs, 0), f(c.HighNs, 0), f(c.Confidence, 3), strconv.Itoa(c.Runs)}
	} else {
		micro = []string{f(r.totalNs(), 0), "-", "-", "-", "1"}
	}
	micro = append(micro, strconv.Itoa(r.MicroRank), strconv.FormatBool(r.MicroTie))
	e2e = []string{"-", "-", "-", "-"}
	if r.E2E != nil {
		cpu := "-"
		if r.E2E.UsageScope != "" {
			cpu = f(r.E2E.WorkerCPUMicros, 1)
		}
		e2e = []string{r.E2E.Settings, f(r.E2E.RecordsPerSecond, 0), cpu, strconv.Itoa(r.E2ERank)}
	}
	return ops, micro, e2e
}

// runtimes are where Marshal and Unmarshal ran (Runtime "jvm→go": jvm, go).
func (r Row) runtimes() (ser, deser string) {
	ser, deser, found := strings.Cut(r.Runtime, "→")
	if !found {
		deser = ser
	}
	return ser, deser
}

// Table writes the rows with units in the headers; end-to-end columns appear when
// rows have them, and a mark where the two rankings disagree.
func Table(w io.Writer, rows []Row) error {
	withE2E := len(rows) > 0 && rows[0].E2E != nil
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	h := "CODEC\tRUNTIME\tSCHEMA\tSIZE B\tPAYLOAD COMP\tENC B\tSER ns\tSER alloc B\tSER allocs\tDESER ns\tDESER alloc B\tDESER allocs\t" +
		"SER CPU ns\tSER HEAP+ B\tDESER CPU ns\tDESER HEAP+ B\tCOMP B\tCOMP ns\tDECOMP ns\tMICRO ns\tMICRO RANK\t"
	if withE2E {
		h += "E2E SETTINGS\tE2E REC/S\tE2E CPU µs/REC\tE2E RANK\t\t"
	}
	fmt.Fprintln(tw, h)
	groups := groupsOf(rows)
	differ := differs(rows, groups)
	for k, r := range rows {
		ops, micro, e2e := r.cells()
		// The in-process cost and rank as two cells: "median [low–high] confidence"
		// and the rank, "=" when shared.
		cost, rank := micro[0], micro[5]
		if c := r.MicroCost; c != nil {
			cost = fmt.Sprintf("%.0f [%.0f–%.0f] %.0f%%", c.MedianNs, c.LowNs, c.HighNs, 100*c.Confidence)
		}
		if r.MicroTie {
			rank += "="
		}
		cells := slices.Concat(ops, []string{cost, rank})
		if withE2E {
			mark := ""
			if differ[k] {
				mark = "≠"
			}
			cells = append(append(cells, e2e...), mark)
		}
		for _, c := range cells {
			fmt.Fprint(tw, c, "\t")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nIn process, no Kafka: per record, mean over the pool the first producer sends. ns: time; alloc B, allocs: heap allocated per call.")
	fmt.Fprintln(w, "CPU ns: the process's CPU time per call (above ns when the garbage collector runs on other cores); HEAP+ B: the Go heap's peak rise above")
	fmt.Fprintln(w, "its level after a collection while the calls ran (sampled every 100 ms; garbage not yet collected included, as in a process's peak).")
	fmt.Fprintln(w, "RUNTIME: where SER and DESER ran (jvm→go: SER in the JVM worker, DESER in Go). In the JVM: times after the JIT's warm-up (calls")
	fmt.Fprintln(w, "run untimed first: warmupOps in -o json), alloc B the calling thread's; allocs and HEAP+ are not counted (-).")
	fmt.Fprintln(w, "MICRO ns: SER+DESER(+COMP+DECOMP) ns per record; with --runs, the median of the runs' sums [interval] and the interval's")
	fmt.Fprintln(w, "confidence (SER ns, DESER ns and the others are then each their own median, so they need not add up to it).")
	fmt.Fprintln(w, "MICRO RANK: by MICRO ns among the codecs of the same runtime, payload and compressor.")
	rk := rankingOf(rows, groups)
	if rk.Runs > 1 {
		fmt.Fprintf(w, "With %d runs each: 1 + the codecs measurably cheaper (Mann-Whitney over the runs, Holm-corrected over the table's %d comparisons);\n", rk.Runs, rk.Tests)
		fmt.Fprintln(w, "= marks a rank shared with codecs the runs cannot tell apart. Every JVM run is a new JVM; Go's repeat in this process.")
		if !rk.Enough {
			fmt.Fprintf(w, "WARNING: with %d runs and %d comparisons no difference can be significant: every rank is shared. Use --runs %d or more.\n", rk.Runs, rk.Tests, rk.Needed)
		}
	} else if slices.ContainsFunc(rows, func(r Row) bool { return r.Runtime != string(trial.RuntimeGo) }) {
		// Five runs of config/samples/sike-jvm.yaml, nothing changed, put three
		// different codecs first among the JVM's.
		fmt.Fprintln(w, "WARNING: a JVM row's rank is one JVM's: its compiled code, and so the order of close codecs, changes from one JVM to the")
		fmt.Fprintln(w, "next. Rank JVM codecs on several runs (--runs), not on one.")
	}
	if withE2E {
		fmt.Fprintln(w, "E2E RANK: among the same, under the same producer settings, by end-to-end records per second (closed loop), end-to-end p50")
		fmt.Fprintln(w, "latency (at a target rate, which every codec reaches) or the maximum sustained rate (rate search); ≠ marks where the two rankings differ (an E2E rank outside a shared MICRO RANK's span).")
		fmt.Fprintln(w, "E2E CPU µs/REC: the end-to-end trial's workers' CPU time per record (serialization, the Kafka client and the rest).")
	}
	return nil
}

// CSV writes every column (end-to-end ones "-" when absent).
func CSV(w io.Writer, rows []Row) error {
	cells := make([][]string, len(rows))
	for i, r := range rows {
		ops, micro, e2e := r.cells()
		cells[i] = slices.Concat(ops, micro, e2e)
	}
	return report.WriteCSV(w, columns, cells)
}
