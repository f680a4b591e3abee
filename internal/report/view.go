package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/mitchellh/go-wordwrap"
)

// Width is what the default table fits in: a terminal's columns. WideTable has
// every column.
const Width = 120

// Marks say which rows a recommendation picked, by config name: Best for a
// choice it could make, Ahead for one that is inconclusive.
type Marks map[string]Mark

// Mark is a row's place in its choice.
type Mark string

// The marks in the table's first column.
const (
	Best  Mark = "*"
	Ahead Mark = "?"
)

// column is one column of the default table: its header, its cell, and its
// priority (until the table fits Width, the column of the highest priority
// number, the least telling, is dropped first; 0 is never dropped).
type column struct {
	header   string
	priority int
	cell     func(Row) string
}

// Table writes the table for people: the settings every trial shares said once
// above it, the rest per row; latencies in ms; each payload's recommended row
// marked; as many columns as fit Width, the most telling first (WideTable has
// all); plain footnotes for what is shown.
func Table(w io.Writer, runs []Row, marks Marks) error {
	rows := byChoice(Aggregate(runs))
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no trials")
		return err
	}
	common := commonSettings(rows)
	if common != "" {
		fmt.Fprintf(w, "Every trial: %s\n", common)
	}
	cols := viewColumns(rows, runs, common, marks)
	var dropped []string
	for {
		var b bytes.Buffer
		if err := writeColumns(&b, rows, cols); err != nil {
			return err
		}
		if tableWidth(b.String()) <= Width || !slices.ContainsFunc(cols, func(c column) bool { return c.priority > 0 }) {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			break
		}
		lowest := 0
		for i, c := range cols {
			if c.priority > cols[lowest].priority {
				lowest = i
			}
		}
		dropped = append(dropped, strings.TrimSpace(cols[lowest].header))
		cols = slices.Delete(cols, lowest, lowest+1)
	}
	fmt.Fprintln(w)
	var notes bytes.Buffer
	viewFootnotes(&notes, cols, marks)
	if anyStopped(rows) && slices.ContainsFunc(cols, func(c column) bool { return c.header == "REC/S CI" }) {
		fmt.Fprintln(&notes, stoppedNote)
	}
	if len(dropped) > 0 {
		fmt.Fprintf(&notes, "Left out to fit %d columns: %s; -o wide shows every column and the clients' internals.\n", Width, strings.Join(dropped, ", "))
	} else {
		fmt.Fprintln(&notes, "-o wide shows every column and the clients' internals.")
	}
	for _, l := range strings.SplitAfter(notes.String(), "\n") {
		fmt.Fprint(w, Wrap(l))
	}
	for _, r := range rows {
		if r.Search != "" {
			fmt.Fprintf(w, "rate search: %s: %s\n", r.Name, r.Search)
		}
	}
	// The tables under it name the settings as the table does.
	own := slices.Clone(rows)
	for i := range own {
		own[i].Settings, own[i].Fault = trimSettings(own[i].settingsLabel(), common), ""
	}
	for _, t := range []func(io.Writer, []Row) error{PhaseTable, TransactionsTable, StallsTable, ShareTable} {
		if err := t(w, own); err != nil {
			return err
		}
	}
	var warns bytes.Buffer
	writeWarnings(&warns, rows)
	for _, l := range strings.SplitAfter(warns.String(), "\n") {
		fmt.Fprint(w, Wrap(l))
	}
	return nil
}

// Wrap breaks a line of words to fit Width, its continuation lines indented two
// more than it (blank lines before it are kept).
func Wrap(line string) string {
	body := strings.TrimLeft(line, "\n")
	lead := line[:len(line)-len(body)]
	body, nl := strings.CutSuffix(body, "\n")
	text := strings.TrimLeft(body, " ")
	indent := body[:len(body)-len(text)]
	out := lead + indent + strings.ReplaceAll(wordwrap.WrapString(text, uint(Width-len(indent)-2)), "\n", "\n"+indent+"  ")
	if nl {
		out += "\n"
	}
	return out
}

// GivenOf names what a row's trial shares with the trials it is ranked against
// (the recommendation's choice): its payload (schema and size), its fault and
// its given settings (Row.Given).
func GivenOf(r Row) string {
	// The user's own records: their mean size is measured, trial by trial, so
	// the schema alone names them.
	parts := []string{r.Schema}
	if !r.Source {
		parts[0] = strings.TrimSpace(fmt.Sprintf("%s %d B", r.Schema, r.SizeBytes))
	}
	if r.Fault != "" {
		parts = append(parts, "fault "+r.Fault)
	}
	if r.Given != "" {
		parts = append(parts, r.Given)
	}
	return strings.Join(parts, ", ")
}

// byChoice puts the rows of one choice (GivenOf) together, in the order the
// choices first appear, each choice's rows in their order.
func byChoice(rows []Row) []Row {
	first := map[string]int{}
	for i, r := range rows {
		if _, ok := first[GivenOf(r)]; !ok {
			first[GivenOf(r)] = i
		}
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b Row) int { return first[GivenOf(a)] - first[GivenOf(b)] })
	return out
}

// viewColumns are the default table's columns for rows: those that say
// something here (settings that vary, sizes after compression, CPU where
// measured, losses where any, repetitions where any).
func viewColumns(rows, runs []Row, common string, marks Marks) []column {
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	var cols []column
	if len(marks) > 0 {
		cols = append(cols, column{"", 0, func(r Row) string { return string(marks[ConfigOf(r)]) }})
	}
	cols = append(cols, column{"CODEC", 0, func(r Row) string { return r.Codec }},
		column{"SIZE B", 0, func(r Row) string { return strconv.Itoa(int(r.SizeBytes)) }})
	if slices.ContainsFunc(rows, func(r Row) bool { return strings.TrimSpace(trimSettings(r.settingsLabel(), common)) != "" }) {
		cols = append(cols, column{"SETTINGS", 0, func(r Row) string { return trimSettings(r.settingsLabel(), common) }})
	}
	cols = append(cols, column{"SER B", 1, func(r Row) string { return f(r.SerializedBytes, 0) }})
	if slices.ContainsFunc(rows, func(r Row) bool { return r.CompBytes > 0 }) {
		cols = append(cols, column{"COMP B", 4, func(r Row) string { return f(r.CompBytes, 0) }})
	}
	cols = append(cols,
		column{"REC/S", 0, func(r Row) string { return f(r.RecordsPerSecond, 0) }},
		column{"MB/S", 6, func(r Row) string { return f(r.MBPerSec, 1) }},
		column{"SER µs", 3, func(r Row) string { return f(r.SerMicros, 2) }},
		column{"DESER µs", 5, func(r Row) string { return f(r.DeserMicros, 2) }},
		column{"p50 ms", 2, func(r Row) string { return Millis(r.P50) }},
		column{"p99 ms", 1, func(r Row) string { return Millis(r.P99) }})
	if slices.ContainsFunc(rows, func(r Row) bool { return r.UsageScope != "" }) {
		cols = append(cols, column{"CPU µs/REC", 4, func(r Row) string {
			if r.UsageScope == "" {
				return ""
			}
			return f(r.WorkerCPUMicros, 1)
		}})
	}
	if slices.ContainsFunc(rows, func(r Row) bool { return r.Lost > 0 || r.Duplicated > 0 }) {
		cols = append(cols, column{"LOST", 0, func(r Row) string { return strconv.FormatInt(r.Lost, 10) }},
			column{"DUP", 0, func(r Row) string { return strconv.FormatInt(r.Duplicated, 10) }})
	}
	if slices.ContainsFunc(rows, func(r Row) bool { return r.Runs > 1 }) {
		versus, tests := VersusReference(runs, Metrics[0])
		cols = append(cols, column{"RUNS", 0, func(r Row) string { return strconv.Itoa(max(r.Runs, 1)) }},
			column{"REC/S CI", 2, func(r Row) string {
				if e := r.Estimates["recordsPerSecond"]; e.N >= 2 {
					return f(e.Low, 0) + "–" + f(e.High, 0) + " " + f(100*e.Confidence, 0) + "%"
				}
				return "-"
			}},
			column{"REC/S vs BASELINE", 3, func(r Row) string {
				if tests == 0 {
					return "-"
				}
				return versus[ConfigOf(r)].String()
			}})
	}
	return cols
}

// writeColumns writes the header and one line per row, cells aligned right.
func writeColumns(w io.Writer, rows []Row, cols []column) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, c := range cols {
		fmt.Fprint(tw, c.header, "\t")
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		for _, c := range cols {
			fmt.Fprint(tw, c.cell(r), "\t")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// tableWidth is the widest line's width in characters, trailing blanks aside.
func tableWidth(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(strings.TrimRight(l, " ")))
	}
	return n
}

// viewFootnotes say, in plain words, what the shown columns measure.
func viewFootnotes(w io.Writer, cols []column, marks Marks) {
	has := func(h string) bool { return slices.ContainsFunc(cols, func(c column) bool { return c.header == h }) }
	if len(marks) > 0 {
		fmt.Fprintln(w, "*: the recommended trial for its payload; ?: ahead so far, but too few repetitions to tell (recommendation below).")
	}
	fmt.Fprintln(w, "SER B: mean encoded value size. REC/S: acknowledged records per second over the measured window (warmup excluded).")
	if has("SER µs") {
		fmt.Fprintln(w, "SER µs, DESER µs: mean time to encode, decode one value.")
	}
	fmt.Fprintln(w, "p50, p99 ms: end-to-end latency, from when a record was due to be sent until a consumer had it, over every record (merged histograms).")
	if has("CPU µs/REC") {
		fmt.Fprintln(w, "CPU µs/REC: the workers' CPU time per record, producers and consumers together.")
	}
	if !has("LOST") {
		fmt.Fprintln(w, "No record was lost or duplicated.")
	}
	if has("RUNS") {
		fmt.Fprintln(w, "Repeated trials show the median over RUNS repetitions; REC/S CI the interval that holds the true median with the confidence shown;")
		fmt.Fprintln(w, "vs BASELINE: the change from the baseline trial with its interval, ~ where a corrected test cannot tell them apart.")
	}
	fmt.Fprintln(w, runtimeScope())
}

// writeWarnings says the warnings every trial has once, then each trial's own.
func writeWarnings(w io.Writer, rows []Row) {
	common := CommonWarnings(rows)
	for _, warn := range common {
		fmt.Fprintf(w, "warning (all %d trials): %s\n", len(rows), warn)
	}
	for _, r := range rows {
		for _, warn := range r.Warnings {
			if !slices.Contains(common, warn) {
				fmt.Fprintf(w, "warning: %s: %s\n", r.Name, warn)
			}
		}
	}
}

// commonSettings are the label parts every row's settings share, in the first
// row's order (one row's whole label).
func commonSettings(rows []Row) string {
	if len(rows) < 2 {
		return rows[0].settingsLabel()
	}
	var out []string
	for _, p := range strings.Fields(rows[0].settingsLabel()) {
		if !slices.ContainsFunc(rows[1:], func(r Row) bool { return !slices.Contains(strings.Fields(r.settingsLabel()), p) }) {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// trimSettings is a label without the parts in common.
func trimSettings(label, common string) string {
	shared := strings.Fields(common)
	return strings.Join(slices.DeleteFunc(strings.Fields(label), func(p string) bool { return slices.Contains(shared, p) }), " ")
}

// Millis is a latency in µs as ms with three significant digits (at least the
// whole milliseconds).
func Millis(micros int64) string {
	ms := float64(micros) / 1e3
	switch {
	case ms >= 100:
		return strconv.FormatFloat(ms, 'f', 0, 64)
	case ms >= 10:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return strconv.FormatFloat(ms, 'f', 2, 64)
}
