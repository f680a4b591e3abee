// Command order says which of a study's orderings survive a rerun (an A/A check:
// the same experiment run again, nothing changed). For each run file (serdebench
// run -o json, with repetitions) it ranks the codecs of every group of trials that
// differ only in codec, by a figure's repetitions (internal/stats.Ranks:
// Mann-Whitney, Holm over each run's table), then prints each pair's verdict per
// run: "<" and ">" told apart, "=" not. A pair told apart in one run and not in
// another is marked "unstable"; one whose order turns over, "REVERSED".
//
//	order [-metric serializeNanosPerRecord,deserializeNanosPerRecord] RUN.json...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/stats"
)

// row is one codec's repetitions of one metric in one group of one run.
type row struct {
	codec  string
	values []float64
}

// table is one run's groups for one metric: group label → rows.
type table map[string][]row

func main() {
	metrics := flag.String("metric", "serializeNanosPerRecord,deserializeNanosPerRecord", "the metrics (a trial result's field names) to rank by, comma-separated (smaller first)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: order [-metric NAME,...] RUN.json...")
		os.Exit(2)
	}
	var runs []report.Report
	for _, f := range flag.Args() {
		r, err := load(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "order:", err)
			os.Exit(1)
		}
		runs = append(runs, r)
	}
	for _, m := range strings.Split(*metrics, ",") {
		tables := make([]table, len(runs))
		for i, r := range runs {
			t, err := tableOf(r, m)
			if err != nil {
				fmt.Fprintf(os.Stderr, "order: %s: %v\n", flag.Arg(i), err)
				os.Exit(1)
			}
			tables[i] = t
		}
		if err := sameShape(tables); err != nil {
			fmt.Fprintf(os.Stderr, "order: %v: compare reruns of one experiment\n", err)
			os.Exit(1)
		}
		print(m, tables)
	}
}

func load(path string) (report.Report, error) {
	var r report.Report
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Trials) == 0 {
		return r, fmt.Errorf("%s has no trials", path)
	}
	return r, nil
}

// tableOf groups a run's repeated trials by what the report's table labels them
// with besides the codec (payload size, runtimes, settings and fault), each with
// its repetitions' values of metric in the metric's unit.
func tableOf(r report.Report, metric string) (table, error) {
	m, ok := report.MetricNamed(metric)
	if !ok {
		return nil, fmt.Errorf("no metric %s", metric)
	}
	out := table{}
	for _, reps := range report.Groups(report.LocalRows(r.Trials)) {
		first := reps[0]
		g := fmt.Sprintf("%d B, %s, %s", first.SizeBytes, first.Runtime, first.Settings)
		if first.Fault != "" {
			g += " fault=" + first.Fault
		}
		out[g] = append(out[g], row{codec: first.Codec, values: report.Values(m, reps)})
	}
	for _, rows := range out {
		slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.codec, b.codec) })
	}
	return out, nil
}

// sameShape says how a run's groups or codecs differ from the first run's: verdicts
// pair codecs by position, and each run's Holm family must be the same size.
func sameShape(tables []table) error {
	for i, t := range tables[1:] {
		if len(t) != len(tables[0]) {
			return fmt.Errorf("run %d has %d groups of trials, run 1 has %d", i+2, len(t), len(tables[0]))
		}
		for g, rows := range tables[0] {
			codecs := func(rs []row) []string {
				var out []string
				for _, r := range rs {
					out = append(out, r.codec)
				}
				return out
			}
			if a, b := codecs(rows), codecs(t[g]); !slices.Equal(a, b) {
				return fmt.Errorf("group %q: run 1 has codecs %v, run %d %v", g, a, i+2, b)
			}
		}
	}
	return nil
}

// print shows each run's ranks of every group, then every pair's verdicts.
func print(metric string, tables []table) {
	var groups []string
	for g := range tables[0] {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	places := make([]map[string][]stats.Place, len(tables))
	orders := make([]map[string][][]int, len(tables))
	for i, t := range tables {
		var samples [][][]float64
		for _, g := range groups {
			var s [][]float64
			for _, r := range t[g] {
				s = append(s, r.values)
			}
			samples = append(samples, s)
		}
		places[i], orders[i] = map[string][]stats.Place{}, map[string][][]int{}
		os := stats.Orders(samples)
		for k, p := range stats.Ranks(samples) {
			places[i][groups[k]], orders[i][groups[k]] = p, os[k]
		}
	}
	fmt.Printf("%s: median [interval, its confidence] and rank per run (Mann-Whitney, Holm over each run's table)\n", metric)
	for _, g := range groups {
		fmt.Printf("  %s\n", g)
		for k, r := range tables[0][g] {
			fmt.Printf("    %-20s", r.codec)
			for i, t := range tables {
				e := stats.Median(t[g][k].values)
				rank := fmt.Sprint(places[i][g][k].Rank)
				if places[i][g][k].Tie {
					rank += "="
				}
				fmt.Printf("  %-32s", fmt.Sprintf("%.0f [%.0f–%.0f, %.0f%%] %s", e.Median, e.Low, e.High, 100*e.Confidence, rank))
			}
			fmt.Println()
		}
		rows := tables[0][g]
		for a := range rows {
			for b := a + 1; b < len(rows); b++ {
				var vs []string
				for i := range tables {
					vs = append(vs, verdict(orders[i][g], a, b))
				}
				mark := ""
				switch {
				case slices.Contains(vs, "<") && slices.Contains(vs, ">"):
					mark = "  REVERSED"
				case slices.ContainsFunc(vs, func(v string) bool { return v != vs[0] }):
					mark = "  unstable"
				}
				fmt.Printf("    %s vs %s: %s%s\n", rows[a].codec, rows[b].codec, strings.Join(vs, " "), mark)
			}
		}
	}
}

// verdict is a against b as Orders told them.
func verdict(o [][]int, a, b int) string {
	return map[int]string{-1: "<", 0: "=", 1: ">"}[o[a][b]]
}
