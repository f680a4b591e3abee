// Package report prints trial results as a table, JSON or CSV.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/netem"
	"github.com/serdebench/serdebench/internal/stats"
	"github.com/serdebench/serdebench/workers/summary"
)

// Environment records what is needed to reproduce a run.
type Environment struct {
	// BrokerRelease is the Kafka release: --broker-version, else franz-go's guess
	// from the API versions; BrokerAPIVersions the brokers' Produce and Fetch API
	// versions.
	BrokerRelease     string   `json:"brokerRelease"`
	BrokerAPIVersions string   `json:"brokerAPIVersions"`
	Brokers           []string `json:"brokers"`
	WorkerVersion     string   `json:"workerVersion"`
	GoVersion         string   `json:"goVersion"`
	CPUs              int      `json:"cpus"`
	OS                string   `json:"os"`
	Arch              string   `json:"arch"`
	StartedAt         string   `json:"startedAt"`
	FinishedAt        string   `json:"finishedAt"`
	// Software and Machines are the workers' runtimes, client libraries and
	// machine, as a SerializationResult records them (this host's: one machine).
	Software []v1alpha1.Software `json:"software,omitempty"`
	Machines []v1alpha1.Machine  `json:"machines,omitempty"`
}

// Report is the JSON document of a local run.
type Report struct {
	Experiment  string        `json:"experiment"`
	Environment Environment   `json:"environment"`
	Spec        any           `json:"spec"`
	Trials      []TrialResult `json:"trials"`
	// Statistics are the repeated trials' figures over their repetitions, as in
	// a SerializationResult.
	Statistics []v1alpha1.TrialStatistics `json:"statistics,omitempty"`
	// Stopping is where spec.repeatUntil stands, as in a SerializationResult.
	Stopping *v1alpha1.Stopping `json:"stopping,omitempty"`
}

var columns = []string{"codec", "size_B", "settings", "serialized_B", "rec_per_s", "MB_per_s", "ser_us", "deser_us",
	"ser_share_pct", "deser_share_pct", "e2e_p50_us", "e2e_p99_us", "e2e_p999_us", "e2e_max_us", "lost", "duplicated",
	"compressed_B", "compress_us", "decompress_us",
	// Added later, at the end: readers by position keep working.
	"e2e_mean_us", "runs", "rec_per_s_lo", "rec_per_s_hi", "e2e_p99_us_lo", "e2e_p99_us_hi", "ci_confidence_pct",
	"cpu_us_per_rec", "rec_per_cpu_s", "peak_rss_MB", "peak_heap_MB", "broker_cpu_us_per_rec", "cpu_scope",
	"header_B", "registry_ser_lookup_ns", "registry_deser_lookup_ns", "registry_requests"}

// Row is one trial of the table, from a local run or from a SerializationResult.
type Row struct {
	// Name is the trial's; Config the name its repetitions share and Repetition
	// which one it is (0 without repetitions). An aggregated row (Aggregate) is
	// named by its Config and Runs counts its repetitions.
	Name, Config, Codec, Settings string
	// Given is the part of Settings a team's traffic gives rather than it chooses
	// (trial.Settings.Given): a recommendation ranks rows that share it.
	Given string
	// Runtime is the workers' runtimes (trial.Settings.Runtimes: "go", "jvm→go").
	Runtime          string
	Repetition, Runs int
	// Stopped says spec.repeatUntil's rule chose how many repetitions ran: every
	// interval then states stats.StoppedConfidence (see Stopped).
	Stopped                                     bool
	SizeBytes                                   int32
	SerializedBytes, RecordsPerSecond, MBPerSec float64
	// HeaderBytes is a record's mean serdebench header size (0: not reported).
	HeaderBytes                              float64
	SerMicros, DeserMicros, SerPct, DeserPct float64
	P50, P99, P999, Max, Lost, Duplicated    int64
	// E2EMean is the mean end-to-end latency (µs), AckP50, AckP99 and AckMean the
	// acknowledgement latency's; Failed the sends that failed.
	E2EMean, AckMean float64
	AckP50, AckP99   int64
	Failed           int64
	// WorkerCPUMicros is the workers' CPU time per record (0: not measured),
	// BrokerCPUMicros the broker's, RecordsPerCPUSecond records per second of the
	// workers' CPU, PeakRSSMB and PeakHeapMB one worker process's peaks (10^6 B);
	// UsageScope says whose CPU it is (workers, or one shared process).
	WorkerCPUMicros, BrokerCPUMicros, RecordsPerCPUSecond float64
	PeakRSSMB, PeakHeapMB                                 float64
	UsageScope                                            string
	// Client are the clients' internals (nil: not reported).
	Client *summary.ClientInternals
	// Probe is the trial's machine probe (nil: not measured).
	Probe *summary.Probe
	// Registry is a registry codec's schema registry cost (nil: none).
	Registry *summary.RegistryCost
	// Transactions are a transactional producer's transactions (nil: none).
	Transactions *summary.Transactions
	// Stalls are the partitions' consumption stalls (nil: none).
	Stalls *summary.Stalls
	// Share are a share group's deliveries (nil: consumer groups).
	Share *summary.Share
	// Estimates are an aggregated row's figures over its repetitions, by metric
	// name (nil for one run); Shown names the repetition whose phases, rate search
	// and series it carries (the one of median throughput).
	Estimates map[string]stats.Estimate
	Shown     string
	// CompBytes, CompMicros and DecompMicros are payload compression's mean value
	// size and times (0 without it).
	CompBytes, CompMicros, DecompMicros float64
	// Schema is the payload schema (source:<format> for the user's own records),
	// PayloadCompression the trial's payload compressor; Source says the records are
	// the user's own (SizeBytes is then their mean JSON size).
	Schema, PayloadCompression string
	Source                     bool
	// Fault is the fault scenario the trial ran under ("" for none), Phases the
	// trial split at it.
	Fault  string
	Phases *trial.Phases
	// OpenLoop says producers sent at a fixed target rate, so records per second
	// measure the target, not the codec (false for a rate search).
	OpenLoop bool
	// Reference says the table compares every other trial with this one
	// (spec.compare.baseline).
	Reference bool
	// MaxSustained is a rate search's maximum sustained rate (0 without one).
	MaxSustained int64
	Warnings     []string
	// Search sums up a rate search's outcome (empty without one).
	Search string
	// Latency are a local run's merged end-to-end and acknowledgement
	// histograms, by summary's names (nil from a result): what Merged merges.
	Latency map[string]*summary.Histogram
	// Merged are an aggregated row's percentiles over every repetition's records
	// (Merged; from a result, its statistics'), nil when unknown.
	Merged *v1alpha1.MergedLatency
}

// searchLine sums up a rate search: the maximum, and the first step that was not
// sustained and why.
func searchLine(max int64, stopped string, steps int, firstFailed int, reason string) string {
	out := fmt.Sprintf("max sustained %d rec/s over %d steps", max, steps)
	if firstFailed >= 0 {
		out += fmt.Sprintf("; step %d not sustained: %s", firstFailed, reason)
	}
	if stopped != "" {
		out += "; " + stopped
	}
	return out
}

// LocalRows are the rows of a local run's results.
func LocalRows(trials []TrialResult) []Row {
	rows := make([]Row, 0, len(trials))
	for _, t := range trials {
		r := t.Result
		size := t.Trial.SizeBytes
		if t.Trial.Source != nil {
			size = int32(r.PayloadBytesPerRecord + 0.5) // the samples' mean JSON size
		}
		rows = append(rows, Row{Name: t.Trial.Name, Config: t.Trial.Config, Repetition: int(t.Trial.Repetition), Runs: 1,
			Codec: string(t.Trial.Codec), Settings: t.Trial.Settings.Describe(), Given: t.Trial.Settings.Given(), Runtime: t.Trial.Settings.Runtimes(),
			E2EMean: r.EndToEnd.Mean, AckMean: r.Ack.Mean, AckP50: r.Ack.P50, AckP99: r.Ack.P99, Failed: r.Failed,
			SizeBytes: size, SerializedBytes: r.SerializedBytesPerRecord, HeaderBytes: r.HeaderBytesPerRecord, RecordsPerSecond: r.RecordsPerSecond,
			MBPerSec: r.SerializedMBPerSecond, SerMicros: r.SerializeMicrosPerRecord, DeserMicros: r.DeserializeMicrosPerRecord,
			SerPct: r.SerializeSharePercent, DeserPct: r.DeserializeSharePercent,
			P50: r.EndToEnd.P50, P99: r.EndToEnd.P99, P999: r.EndToEnd.P999, Max: r.EndToEnd.Max,
			Lost: r.Lost, Duplicated: r.Duplicated, Warnings: r.Warnings,
			CompBytes: r.CompressedBytesPerRecord, CompMicros: r.CompressMicrosPerRecord, DecompMicros: r.DecompressMicrosPerRecord,
			Schema: t.Trial.PayloadSchema(), PayloadCompression: string(t.Trial.Settings.PayloadCompression), Source: t.Trial.Source != nil,
			OpenLoop: t.Trial.Settings.RecordsPerSecond > 0 && r.Search == nil, Reference: t.Trial.Reference})
		if f := t.Trial.Fault; f != nil {
			rows[len(rows)-1].Fault = f.Name
			rows[len(rows)-1].Phases = r.Phases
		}
		rows[len(rows)-1].Client = r.Client
		rows[len(rows)-1].Probe = r.Probe
		rows[len(rows)-1].Registry = r.Registry
		rows[len(rows)-1].Transactions = r.Transactions
		rows[len(rows)-1].Stalls = r.Stalls
		rows[len(rows)-1].Share = r.Share
		if h := r.Latency(summary.EndToEndMicros); h != nil {
			rows[len(rows)-1].Latency = map[string]*summary.Histogram{summary.EndToEndMicros: h, summary.AckLatencyMicros: r.Latency(summary.AckLatencyMicros)}
		}
		if u := r.Usage; u != nil {
			row := &rows[len(rows)-1]
			row.WorkerCPUMicros, row.BrokerCPUMicros, row.RecordsPerCPUSecond, row.UsageScope = u.WorkerCPUMicrosPerRecord,
				u.BrokerCPUMicrosPerRecord, u.RecordsPerCPUSecond, u.Scope
			rss, heap := u.Peaks()
			row.PeakRSSMB, row.PeakHeapMB = float64(rss)/1e6, float64(heap)/1e6
		}
		if sr := r.Search; sr != nil {
			failed, reason := -1, ""
			for _, st := range sr.Steps {
				if !st.Sustained {
					failed, reason = st.Index, st.Reason
					break
				}
			}
			rows[len(rows)-1].Search = searchLine(sr.MaxSustainedRecordsPerSecond, sr.Stopped, len(sr.Steps), failed, reason)
			rows[len(rows)-1].MaxSustained = sr.MaxSustainedRecordsPerSecond
		}
	}
	return rows
}

// ResultRows are the rows of an operator's SerializationResult (its integer fields,
// converted back to the table's units).
func ResultRows(res *v1alpha1.SerializationResult) []Row {
	rows := make([]Row, 0, len(res.Trials))
	for _, t := range res.Trials {
		rows = append(rows, Row{Name: t.Name, Config: t.Config, Repetition: int(t.Repetition), Runs: 1, Stopped: res.Experiment.Spec.RepeatUntil != nil,
			Codec: string(t.Codec), Settings: t.Settings.Describe(), Given: t.Settings.Given(), Runtime: t.Settings.Runtimes(),
			E2EMean: float64(t.EndToEndMicros.Mean), AckMean: float64(t.AckMicros.Mean), AckP50: t.AckMicros.P50, AckP99: t.AckMicros.P99,
			Failed:    t.FailedRecords,
			SizeBytes: t.SizeBytes, SerializedBytes: float64(t.SerializedBytesPerRecord), HeaderBytes: float64(t.HeaderBytesPerRecord),
			RecordsPerSecond: float64(t.RecordsPerSecond),
			MBPerSec:         float64(t.SerializedBytesPerSecond) / 1e6, SerMicros: float64(t.SerializeNanosPerRecord) / 1e3,
			DeserMicros: float64(t.DeserializeNanosPerRecord) / 1e3, SerPct: float64(t.SerializeSharePermille) / 10,
			DeserPct: float64(t.DeserializeSharePermille) / 10,
			P50:      t.EndToEndMicros.P50, P99: t.EndToEndMicros.P99, P999: t.EndToEndMicros.P999, Max: t.EndToEndMicros.Max,
			Lost: t.LostRecords, Duplicated: t.DuplicatedRecords, Warnings: t.Warnings,
			CompBytes: float64(t.CompressedBytesPerRecord), CompMicros: float64(t.CompressNanosPerRecord) / 1e3,
			DecompMicros: float64(t.DecompressNanosPerRecord) / 1e3,
			Schema:       t.Schema, PayloadCompression: string(t.Settings.PayloadCompression), Source: strings.HasPrefix(t.Schema, trial.SourceSchemaPrefix),
			OpenLoop: t.Settings.RecordsPerSecond > 0 && t.Search == nil, Reference: t.Reference})
		if f := t.Fault; f != nil {
			rows[len(rows)-1].Fault = f.Name
			rows[len(rows)-1].Phases = t.Phases
		}
		if t.Resources != nil {
			rows[len(rows)-1].setResources(t.Resources)
		}
		rows[len(rows)-1].Client = internalsOf(t.Client)
		if p := t.Probe; p != nil {
			rows[len(rows)-1].Probe = &summary.Probe{CPUNanosPerOp: p.CPUNanosPerOp, FsyncMicros: p.FsyncMicros, ConnectMicros: p.ConnectMicros}
		}
		rows[len(rows)-1].Transactions = transactionsOf(t.Transactions)
		rows[len(rows)-1].Stalls = stallsOf(t.Stalls)
		rows[len(rows)-1].Share = shareOf(t.Share)
		if g := t.Registry; g != nil {
			rows[len(rows)-1].Registry = &summary.RegistryCost{Requests: g.Requests, RequestMillis: float64(g.RequestMicros) / 1e3,
				SerializeLookupNanosPerRecord: float64(g.SerializeLookupNanosPerRecord), DeserializeLookupNanosPerRecord: float64(g.DeserializeLookupNanosPerRecord)}
		}
		if sr := t.Search; sr != nil {
			failed, reason, steps := -1, "", 0
			for _, st := range sr.Steps {
				steps = max(steps, int(st.Index)+1)
				if !st.Sustained && failed < 0 {
					failed, reason = int(st.Index), st.Reason
				}
			}
			rows[len(rows)-1].Search = searchLine(sr.MaxSustainedRecordsPerSecond, sr.Stopped, steps, failed, reason)
			rows[len(rows)-1].MaxSustained = sr.MaxSustainedRecordsPerSecond
		}
	}
	for _, st := range res.Statistics {
		if st.Merged == nil {
			continue
		}
		for i := range rows {
			if ConfigOf(rows[i]) == st.Name {
				rows[i].Merged = st.Merged
			}
		}
	}
	return rows
}

// internalsOf reads a result's client internals back into numbers.
func internalsOf(c *v1alpha1.ClientInternals) *summary.ClientInternals {
	if c == nil {
		return nil
	}
	d := func(s string) float64 {
		v, _ := strconv.ParseFloat(s, 64)
		return v
	}
	return &summary.ClientInternals{BatchSizeAvgBytes: d(c.BatchSizeAvgBytes), BatchRecordsAvg: d(c.BatchRecordsAvg),
		RecordsPerRequestAvg: d(c.RecordsPerRequestAvg), ProduceRequests: c.ProduceRequests, CompressionRateAvg: d(c.CompressionRateAvg),
		RequestLatencyAvgMicros: float64(c.RequestLatencyAvgMicros), RequestLatencyMaxMicros: c.RequestLatencyMaxMicros,
		RecordQueueTimeAvgMicros: float64(c.RecordQueueTimeAvgMicros), RequestsInFlightAvg: d(c.RequestsInFlightAvg),
		RequestsInFlightMax: c.RequestsInFlightMax, BufferedBytesMax: c.BufferedBytesMax, BufferedRecordsMax: c.BufferedRecordsMax,
		FetchRequestRate: d(c.FetchRequestRate), FetchSizeAvgBytes: float64(c.FetchSizeAvgBytes), RecordsPerFetchAvg: d(c.RecordsPerFetchAvg)}
}

// InternalsTable writes the trials' client internals by the Java client's names
// (docs/measurement.md), when they have them: what explains their batching.
func InternalsTable(w io.Writer, rows []Row) error {
	has := false
	for _, r := range rows {
		has = has || r.Client != nil
	}
	if !has {
		return nil
	}
	fmt.Fprintln(w, "\nClient internals (whole run, warmup included; Java client names):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CODEC\tSIZE B\tSETTINGS\tbatch-size-avg B\trecords/batch\trecords-per-request-avg\trecord-queue-time-avg ms\trequest-latency-avg ms\tin-flight avg\tcompression-rate-avg\tbuffered max B\tfetch-rate /s\tfetch-size-avg B\trecords/fetch\t")
	for _, r := range rows {
		c := r.Client
		if c == nil {
			continue
		}
		settings := r.settingsLabel()
		rate := "-"
		if c.CompressionRateAvg > 0 {
			rate = fmt.Sprintf("%.3f", c.CompressionRateAvg)
		}
		// A client that cannot report its buffer (sarama) leaves it 0: not available.
		buffered := "n/a"
		if c.BufferedBytesMax > 0 {
			buffered = strconv.FormatInt(c.BufferedBytesMax, 10)
		}
		// No fetch seen: a share group's share fetches, which franz-go's fetch
		// hooks do not report.
		fetchRate, fetchSize, perFetch := "n/a", "n/a", "n/a"
		if c.FetchRequestRate > 0 {
			fetchRate, fetchSize, perFetch = fmt.Sprintf("%.1f", c.FetchRequestRate), fmt.Sprintf("%.0f", c.FetchSizeAvgBytes), fmt.Sprintf("%.2f", c.RecordsPerFetchAvg)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%.2f\t%.2f\t%.3f\t%.3f\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n", r.Codec, r.SizeBytes, settings,
			c.BatchSizeAvgBytes, c.BatchRecordsAvg, c.RecordsPerRequestAvg, c.RecordQueueTimeAvgMicros/1e3, c.RequestLatencyAvgMicros/1e3,
			c.RequestsInFlightAvg, rate, buffered, fetchRate, fetchSize, perFetch)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "record-queue-time-avg is estimated: mean acknowledgement latency from the actual send less request-latency-avg. n/a: the client cannot report it (sarama's buffer, a share group's fetches). A repeated trial shows its repetition of median records/s.")
	return nil
}

// RegistryTable writes the registry codecs' schema registry cost, when there
// is one: the requests their clients sent and what each record's header took
// beside its (de)serialization.
func RegistryTable(w io.Writer, rows []Row) error {
	if !slices.ContainsFunc(rows, func(r Row) bool { return r.Registry != nil }) {
		return nil
	}
	fmt.Fprintln(w, "\nSchema registry (beside SER and DESER; the clients cache ids as Confluent's serializers do):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CODEC\tSIZE B\tSETTINGS\trequests\trequest ms\tproducer header ns/rec\tconsumer header ns/rec\t")
	for _, r := range rows {
		if g := r.Registry; g != nil {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%.1f\t%.0f\t%.0f\t\n", r.Codec, r.SizeBytes, r.Settings, g.Requests, g.RequestMillis,
				g.SerializeLookupNanosPerRecord, g.DeserializeLookupNanosPerRecord)
		}
	}
	return tw.Flush()
}

// setResources takes a trial's resource usage into the table's units.
func (r *Row) setResources(u *v1alpha1.ResourceUsage) {
	r.WorkerCPUMicros, r.BrokerCPUMicros = float64(u.WorkerCPUNanosPerRecord)/1e3, float64(u.BrokerCPUNanosPerRecord)/1e3
	r.RecordsPerCPUSecond, r.UsageScope = float64(u.RecordsPerCPUSecond), u.Scope
	r.PeakRSSMB, r.PeakHeapMB = float64(u.PeakRSSBytes)/1e6, float64(u.PeakHeapBytes)/1e6
}

// Columns are the table's column names, units in the names (CSV header and HTML).
func Columns() []string { return slices.Clone(columns) }

// settingsLabel is the row's settings as the tables show them: its label,
// and its fault's name if any.
func (r Row) settingsLabel() string {
	if r.Fault != "" {
		return r.Settings + " fault=" + r.Fault
	}
	return r.Settings
}

// Cells are the row's values in Columns' order; an aggregated row's intervals
// are those of its throughput and end-to-end p99 (empty for one run).
func (r Row) Cells() []string {
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	settings := r.settingsLabel()
	cells := []string{r.Codec, strconv.Itoa(int(r.SizeBytes)), settings,
		f(r.SerializedBytes, 0), f(r.RecordsPerSecond, 0), f(r.MBPerSec, 2),
		f(r.SerMicros, 2), f(r.DeserMicros, 2), f(r.SerPct, 1), f(r.DeserPct, 1),
		i(r.P50), i(r.P99), i(r.P999), i(r.Max), i(r.Lost), i(r.Duplicated),
		f(r.CompBytes, 0), f(r.CompMicros, 2), f(r.DecompMicros, 2), f(r.E2EMean, 0), strconv.Itoa(max(r.Runs, 1))}
	rps, p99 := r.Estimates["recordsPerSecond"], r.Estimates["endToEndMicros.p99"]
	if rps.N < 2 {
		cells = append(cells, "", "", "", "", "")
	} else {
		cells = append(cells, f(rps.Low, 0), f(rps.High, 0), f(p99.Low, 0), f(p99.High, 0), f(100*rps.Confidence, 1))
	}
	cells = append(cells, r.usageCells()...)
	hdr := ""
	if r.HeaderBytes > 0 {
		hdr = f(r.HeaderBytes, 0)
	}
	cells = append(cells, hdr)
	if g := r.Registry; g != nil {
		return append(cells, f(g.SerializeLookupNanosPerRecord, 0), f(g.DeserializeLookupNanosPerRecord, 0), i(g.Requests))
	}
	return append(cells, "", "", "")
}

// usageCells are the resource usage columns (empty when not measured).
func (r Row) usageCells() []string {
	if r.UsageScope == "" {
		return []string{"", "", "", "", "", ""}
	}
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	broker := ""
	if r.BrokerCPUMicros > 0 {
		broker = f(r.BrokerCPUMicros, 2)
	}
	return []string{f(r.WorkerCPUMicros, 2), f(r.RecordsPerCPUSecond, 0), f(r.PeakRSSMB, 1), f(r.PeakHeapMB, 1), broker, r.UsageScope}
}

// WideTable writes every column (-o wide), one row per trial with units in the
// headers: a repeated trial's median over its repetitions, with the intervals of
// its throughput and p99 and its throughput against the baseline trial's; then
// the clients' internals. The payload compression columns appear when a trial
// compressed its values.
func WideTable(w io.Writer, runs []Row) error {
	rows := Aggregate(runs)
	compressed, repeated, used, broker, headers := false, false, false, false, false
	for _, r := range rows {
		// Headers are worth a column once they are a tenth of some value.
		headers = headers || (r.HeaderBytes > 0 && r.HeaderBytes*10 >= r.SerializedBytes)
		compressed = compressed || r.CompBytes > 0
		repeated = repeated || r.Runs > 1
		used = used || r.UsageScope != ""
		broker = broker || r.BrokerCPUMicros > 0
	}
	header := "CODEC\tSIZE B\tSETTINGS\tSER B\t"
	if headers {
		header += "HDR B\t"
	}
	header += "REC/S\tMB/S\tSER µs\tDESER µs\tSER %\tDESER %\tE2E mean µs\tp50 µs\tp99 µs\tp99.9 µs\tmax µs\tLOST\tDUP\t"
	if compressed {
		header += "COMP B\tCOMP µs\tDECOMP µs\t"
	}
	if used {
		header += "CPU µs/REC\tREC/CPU-s\tRSS MB\tHEAP MB\t"
		if broker {
			header += "BROKER µs/REC\t"
		}
	}
	if repeated {
		header += "RUNS\tREC/S CI\tp99 CI µs\tCI %\tp99 MERGED µs\tREC/S vs BASELINE\t"
	}
	versus, tests := VersusReference(runs, Metrics[0])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		cells := r.Cells()
		// The table shows the mean beside the percentiles (the CSV has it last).
		base := slices.Clone(cells[:4])
		if headers {
			base = append(base, cells[slices.Index(columns, "header_B")])
		}
		base = append(append(append(base, cells[4:10]...), cells[19]), cells[10:16]...)
		if compressed {
			base = append(base, cells[16:19]...)
		}
		for _, c := range base {
			fmt.Fprint(tw, c, "\t")
		}
		if used {
			u := r.usageCells()
			if !broker {
				u = u[:4]
			} else {
				u = u[:5]
			}
			for _, c := range u {
				fmt.Fprint(tw, c, "\t")
			}
		}
		if repeated {
			ci := "-\t-\t-\t"
			if c := cells[20:]; c[1] != "" {
				ci = fmt.Sprintf("%s–%s\t%s–%s\t%s\t", c[1], c[2], c[3], c[4], c[5])
			}
			merged := "n/a"
			if m := r.Merged; m != nil && r.Runs > 1 {
				merged = strconv.FormatInt(m.EndToEndMicros.P99, 10)
			} else if r.Runs <= 1 {
				merged = "-"
			}
			ci += merged + "\t"
			vs := "-" // nothing to compare with
			if tests > 0 {
				vs = versus[ConfigOf(r)].String()
			}
			fmt.Fprintf(tw, "%s\t%s%s\t", cells[20], ci, vs)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSER B: mean encoded value size. REC/S, MB/S: acknowledged records and encoded bytes per second over the producers' measured window (10^6 B).")
	if headers {
		fmt.Fprintln(w, "HDR B: mean size of a record's serdebench headers, keys and values (payload.headers), sent beside its SER B.")
	}
	fmt.Fprintln(w, "SER/DESER µs: mean Marshal/Unmarshal time per record; SER %/DESER %: share of the producers'/consumers' window spent in them.")
	fmt.Fprintln(w, runtimeScope())
	if compressed {
		fmt.Fprintln(w, "COMP B: mean value size after payload compression, as sent; COMP/DECOMP µs: mean time to compress/decompress one value (not in SER/DESER µs).")
	}
	fmt.Fprintln(w, "E2E: receive time minus intended send time (includes serialization, payload compression and batching, not decompression or deserialization), from merged histograms; mean beside the percentiles.")
	if used {
		scopes := map[string]bool{}
		for _, r := range rows {
			scopes[r.UsageScope] = true
		}
		fmt.Fprintln(w, "CPU µs/REC: the workers' CPU time (user + system, producers and consumers) per measured record over the producers' window; REC/CPU-s its inverse;")
		fmt.Fprint(w, "RSS/HEAP MB: the peak resident set and Go heap of one worker process (10^6 B)")
		if scopes[summary.ScopeProcess] {
			fmt.Fprint(w, "; here every worker ran in serdebench's own process, measured as a whole (the runner's work included)")
		}
		fmt.Fprintln(w, ".")
		if broker {
			fmt.Fprintln(w, "BROKER µs/REC: the local broker process's CPU time per measured record over the same window.")
		}
	}
	if repeated {
		fmt.Fprintln(w, "Repeated trials: every figure is the median over RUNS repetitions (LOST and DUP their total; p99 the median of the repetitions' p99s;")
		fmt.Fprintln(w, "p99 MERGED the p99 of all their records together, from their histograms merged: one slow repetition weighs in, n/a where not kept). CI: the")
		fmt.Fprintln(w, "interval that holds the true median with CI % confidence (order statistics, no assumption on the distribution; 95 % needs 6 repetitions).")
		if anyStopped(rows) {
			fmt.Fprintln(w, stoppedNote)
		}
		fmt.Fprintf(w, "REC/S vs BASELINE: the change from the baseline trial (spec.compare.baseline), the Hodges-Lehmann estimate on logarithms with its interval at\n")
		fmt.Fprintf(w, "the confidence shown; a Mann-Whitney U test per trial, Holm-corrected over the %d tests together: a change where p < %.2f, ~ where not (not told apart),\n", tests, stats.Alpha)
		fmt.Fprintln(w, "needs ≥ N reps where no result could reach it. These intervals speak of this run; runs on other days differ more (docs/measurement.md).")
	}
	for _, r := range rows {
		if r.Search != "" {
			fmt.Fprintf(w, "rate search: %s: %s\n", r.Name, r.Search)
		}
	}
	if err := PhaseTable(w, rows); err != nil {
		return err
	}
	if err := InternalsTable(w, rows); err != nil {
		return err
	}
	if err := RegistryTable(w, rows); err != nil {
		return err
	}
	if err := TransactionsTable(w, rows); err != nil {
		return err
	}
	if err := StallsTable(w, rows); err != nil {
		return err
	}
	if err := ShareTable(w, rows); err != nil {
		return err
	}
	writeWarnings(w, rows)
	return nil
}

// CommonWarnings are the warnings every one of several rows has, in the first
// row's order: said once for the experiment instead of once per trial.
func CommonWarnings(rows []Row) []string {
	if len(rows) < 2 {
		return nil
	}
	var common []string
	for _, warn := range rows[0].Warnings {
		all := true
		for _, r := range rows[1:] {
			all = all && slices.Contains(r.Warnings, warn)
		}
		if all && !slices.Contains(common, warn) {
			common = append(common, warn)
		}
	}
	return common
}

// CSV writes the table's columns as CSV: one line per trial, repetitions
// aggregated as in the table.
func CSV(w io.Writer, runs []Row) error {
	rows := Aggregate(runs)
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = r.Cells()
	}
	return WriteCSV(w, columns, cells)
}

// WriteCSV writes a header and rows as CSV.
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// JSON writes v (a Report, a result, microbenchmark rows) as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// TrialResult is one trial's outcome in a local run (internal/cli/runner).
type TrialResult struct {
	Trial  trial.Trial     `json:"trial"`
	Topic  string          `json:"topic"`
	Result *summary.Result `json:"result"`
	// Fault is the trial's fault as the local rig applied it.
	Fault     *LocalFault        `json:"fault,omitempty"`
	Summaries []*summary.Summary `json:"summaries,omitempty"`
}

// LocalFault is a fault as `serdebench run` applied it: when, and what the rig's
// engine did to the broker's packets meanwhile, or what happened to the broker.
type LocalFault struct {
	Name string `json:"name"`
	// Impairment is what the engine applied, in netem's terms (network faults).
	Impairment string `json:"impairment,omitempty"`
	// Action is what was done to the broker: kill, failure or container-kill
	// (pod faults).
	Action string `json:"action,omitempty"`
	// Due is when it was planned. Applied is when its rule went in, or when the
	// broker's kill or stop was asked for; Removed when the rule went out, or when
	// a failed broker's restart was (a kill acts once: none).
	Due     time.Time `json:"due"`
	Applied time.Time `json:"applied"`
	Removed time.Time `json:"removed,omitzero"`
	// Down is when the kill or stop had ended the broker's process, and Ready
	// when the broker served again (pod faults).
	Down  time.Time `json:"down,omitzero"`
	Ready time.Time `json:"ready,omitzero"`
	// Rig counts the packets the engine held, dropped and released (network
	// faults).
	Rig *netem.Stats `json:"rig,omitempty"`
}

// runtimeScope is the footnote that says what of a row carries over to another
// language: the runtimes and their clients come from trial.Runtimes.
func runtimeScope() string {
	var by []string
	for _, r := range trial.Runtimes {
		clients := make([]string, len(r.Clients))
		for i, c := range r.Clients {
			clients[i] = string(c)
		}
		by = append(by, fmt.Sprintf("%s for %s", r.Runtime, strings.Join(clients, ", ")))
	}
	return "Codec times and worker CPU are the libraries' of the runtime that ran the trial (" + strings.Join(by, "; ") +
		") and hold for producers in that language; record sizes, batching and the broker's work carry over to any."
}

// BrokerCPU says where a result's broker CPU came from, or why it was not read
// ("" when the result says nothing: a local broker's process, or no broker pods).
func BrokerCPU(b *v1alpha1.BrokerCPU) string {
	switch {
	case b == nil:
		return ""
	case b.NotRead != "":
		return "not read: " + b.NotRead
	}
	return fmt.Sprintf("pods %s/%s from cAdvisor, its samples up to %d s apart", b.Namespace, strings.Join(b.Pods, ", "), b.ResolutionSeconds)
}
