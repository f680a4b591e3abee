// Package report prints trial results as a table, JSON or CSV.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/serdebench/serdebench/internal/runner"
)

// Environment records what is needed to reproduce a run.
type Environment struct {
	BrokerVersion string   `json:"brokerVersion"`
	Brokers       []string `json:"brokers"`
	WorkerVersion string   `json:"workerVersion"`
	GoVersion     string   `json:"goVersion"`
	CPUs          int      `json:"cpus"`
	OS            string   `json:"os"`
	Arch          string   `json:"arch"`
	StartedAt     string   `json:"startedAt"`
	FinishedAt    string   `json:"finishedAt"`
}

// Report is the JSON document of a local run.
type Report struct {
	Experiment  string               `json:"experiment"`
	Environment Environment          `json:"environment"`
	Spec        any                  `json:"spec"`
	Trials      []runner.TrialResult `json:"trials"`
}

var columns = []string{"codec", "size_B", "settings", "serialized_B", "rec_per_s", "MB_per_s", "ser_us", "deser_us",
	"ser_share_pct", "deser_share_pct", "e2e_p50_us", "e2e_p99_us", "e2e_p999_us", "e2e_max_us", "lost", "duplicated"}

func row(t runner.TrialResult) []string {
	r := t.Result
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []string{string(t.Trial.Codec), strconv.Itoa(int(t.Trial.SizeBytes)), t.Trial.Settings.Describe(),
		f(r.SerializedBytesPerRecord, 0), f(r.RecordsPerSecond, 0), f(r.SerializedMBPerSecond, 2),
		f(r.SerializeMicrosPerRecord, 2), f(r.DeserializeMicrosPerRecord, 2), f(r.SerializeSharePercent, 1), f(r.DeserializeSharePercent, 1),
		i(r.EndToEnd.P50), i(r.EndToEnd.P99), i(r.EndToEnd.P999), i(r.EndToEnd.Max), i(r.Lost), i(r.Duplicated)}
}

// Table writes one row per trial with units in the headers.
func Table(w io.Writer, trials []runner.TrialResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CODEC\tSIZE B\tSETTINGS\tSER B\tREC/S\tMB/S\tSER µs\tDESER µs\tSER %\tDESER %\tE2E p50 µs\tp99 µs\tp99.9 µs\tmax µs\tLOST\tDUP\t")
	for _, t := range trials {
		for _, c := range row(t) {
			fmt.Fprint(tw, c, "\t")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSER B: mean encoded value size. REC/S, MB/S: acknowledged records and encoded bytes per second over the producers' measured window (10^6 B).")
	fmt.Fprintln(w, "SER/DESER µs: mean Marshal/Unmarshal time per record; SER %/DESER %: share of the producers'/consumers' window spent in them.")
	fmt.Fprintln(w, "E2E: receive time minus intended send time (includes serialization and batching, not deserialization), from merged histograms.")
	for _, t := range trials {
		for _, warn := range t.Result.Warnings {
			fmt.Fprintf(w, "warning: %s: %s\n", t.Trial.Name, warn)
		}
	}
	return nil
}

// CSV writes the table's columns as CSV.
func CSV(w io.Writer, trials []runner.TrialResult) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(columns); err != nil {
		return err
	}
	for _, t := range trials {
		if err := cw.Write(row(t)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// JSON writes the whole report.
func JSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
