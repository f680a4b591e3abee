//go:build calibration

// Package calibration checks serdebench's latencies against a known injected delay
// (make calibrate; docs/measurement.md, "Calibration"). It runs
// hack/calibrate/run.sh, which needs root: a network namespace, a veth and NFQUEUE
// rules, all removed again on every exit path.
package calibration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	serdebenchv1 "github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/workers/summary"
)

// delaysMs are the injected one-way delays the model is checked at (beside D=0):
// each round trip grows by 2*D. 10 ms leaves every client spare request slots;
// 40 ms (80 ms round trip) fills librdkafka's, which then queues records.
// hack/calibrate/run.sh's CALIB_DELAYS runs the same.
var delaysMs = []int{10, 40}

// saramaMaxDelayMs is the largest delay sarama with 16 KiB batches runs at: at
// 80 ms round trip it fell to 126 rec/s and took three minutes to drain (one
// produce request in flight), which its 20 ms round trip already shows (502
// rec/s). Its 128 KiB variant runs at every delay.
const saramaMaxDelayMs = 10

// toleranceMs is how far a measured p50 shift may miss its prediction.
const toleranceMs = 2.0

type trialOut struct {
	Trials []struct {
		Result    summary.Result     `json:"result"`
		Summaries []*summary.Summary `json:"summaries"`
	} `json:"trials"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// runRig runs the calibration script, bounded: on timeout the script's process
// group gets SIGTERM, on which netns.sh tears everything down.
func runRig(t *testing.T, root, out string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "hack/calibrate/run.sh"))
	cmd.Env = append(os.Environ(), "CALIB_DIR="+out, fmt.Sprintf("CALIB_SARAMA_MAX_DELAY_MS=%d", saramaMaxDelayMs))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	logFile, err := os.Create(filepath.Join(out, "rig.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = logFile.Close() }()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Run(); err != nil {
		tail, _ := os.ReadFile(filepath.Join(out, "rig.log"))
		t.Fatalf("hack/calibrate/run.sh: %v\n%s", err, lastLines(string(tail), 40))
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

func load(t *testing.T, path string) (summary.Result, *summary.Histogram, *summary.Histogram) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var o trialOut
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(o.Trials) != 1 {
		t.Fatalf("%s: %d trials, want 1", path, len(o.Trials))
	}
	ack, fetches := summary.NewLatency(), summary.NewLatency()
	for _, s := range o.Trials[0].Summaries {
		if h := s.Histograms[summary.AckLatencyMicros]; s.Role == summary.RoleProducer && h != nil {
			ack.Merge(h)
		}
		if h := s.Histograms[summary.FetchIntervalMicros]; s.Role == summary.RoleConsumer && h != nil {
			fetches.Merge(h)
		}
	}
	return o.Trials[0].Result, ack, fetches
}

// targetRate is the open loop's rate, records/s, from the experiment the rig ran
// (hack/calibrate/experiment.yaml; every client's copy has the same rate).
func targetRate(t *testing.T, out string) float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "experiment-franz-go.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var x serdebenchv1.SerializationExperiment
	if err := yaml.UnmarshalStrict(b, &x); err != nil {
		t.Fatalf("experiment-franz-go.yaml: %v", err)
	}
	if x.Spec.Rate.RecordsPerSecond <= 0 {
		t.Fatalf("experiment-franz-go.yaml: no open-loop rate (spec.rate.recordsPerSecond)")
	}
	return float64(x.Spec.Rate.RecordsPerSecond)
}

// predictE2E is the model's end-to-end median in µs: a record's acknowledgement
// latency (its distribution, ack), minus the return trip and plus the delivery trip
// (equal: they cancel), plus its wait at the broker for the next fetch, plus gap,
// the rest (measured with no delay, where the fetch waits for the record instead:
// long poll). Records arrive evenly and fetches are a renewal process, so a record
// lands in a fetch interval with probability proportional to its length and then
// waits uniformly over it: the wait's density is P(T > w) / E[T] (the residual life
// of the fetch intervals T, measured by the consumer).
func predictE2E(ack, fetches *summary.Histogram, gapUs float64) float64 {
	const step = 50.0 // µs
	if fetches.Count() == 0 || fetches.Mean() <= 0 || ack.Count() == 0 {
		return math.NaN()
	}
	var bars [][3]float64
	fetches.Buckets(func(from, to, n int64) { bars = append(bars, [3]float64{float64(from), float64(to), float64(n)}) })
	nT, meanT := float64(fetches.Count()), fetches.Mean()
	// waitCDF[i] = P(W <= i*step)
	var waitCDF []float64
	acc := 0.0
	for u := 0.0; ; u += step {
		surv := 0.0 // P(T > u)
		for _, b := range bars {
			if mid := (b[0] + b[1]) / 2; mid > u {
				surv += b[2]
			}
		}
		surv /= nT
		waitCDF = append(waitCDF, math.Min(1, acc))
		if surv == 0 {
			break
		}
		acc += surv * step / meanT
	}
	wait := func(w float64) float64 {
		if w <= 0 {
			return 0
		}
		i := int(w / step)
		if i >= len(waitCDF) {
			return 1
		}
		return waitCDF[i]
	}
	total := float64(ack.Count())
	cdf := func(y float64) float64 {
		var p float64
		ack.Buckets(func(from, to, n int64) {
			p += float64(n) * wait(y-(float64(from)+float64(to))/2-gapUs)
		})
		return p / total
	}
	lo, hi := 0.0, float64(ack.Max()+fetches.Max())+gapUs+1
	for hi-lo > 10 {
		if mid := (lo + hi) / 2; cdf(mid) < 0.5 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// java holds a Java tool's latencies in ms.
type java struct{ p50, p99 float64 }

var (
	ppSteady = regexp.MustCompile(`steady state records sent.* ([0-9]+) ms 50th, [0-9]+ ms 95th, ([0-9]+) ms 99th`)
	e2eLine  = regexp.MustCompile(`Percentiles: 50th = ([0-9]+), 99th = ([0-9]+)`)
)

func parseJava(t *testing.T, path string, re *regexp.Regexp) java {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			p50, _ := strconv.ParseFloat(m[1], 64)
			p99, _ := strconv.ParseFloat(m[2], 64)
			return java{p50, p99}
		}
	}
	t.Fatalf("%s: no latency line (%s)", path, re)
	return java{}
}

func ms(us int64) float64 { return float64(us) / 1000 }

// TestCalibration: a known delay of D each way must move each latency by what the
// model in docs/measurement.md predicts.
func TestCalibration(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the calibration needs root (network namespace, veth, iptables NFQUEUE): run make calibrate as root")
	}
	root := repoRoot(t)
	out := filepath.Join(root, ".state/calibrate/out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// CALIB_REUSE=1 checks the last run's outputs again (for working on the model).
	if os.Getenv("CALIB_REUSE") != "1" {
		runRig(t, root, out)
	}

	var table strings.Builder
	for _, d := range delaysMs {
		checkDelay(t, out, d, &table)
	}
	checkFaults(t, out, &table)
	if err := os.WriteFile(filepath.Join(out, "table.md"), []byte(table.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("calibration (D ms each way at %v, against D=0):\n%s", delaysMs, table.String())
}

// engineLateness checks that the delay engine applied the delay it was set to:
// every packet released, none dropped, and its mean lateness (how much later than
// due it released a packet, both directions together) within toleranceMs. A
// client's request latency may exceed the round trip (TCP), but then not because
// the injected delay was longer than set. The table reports it.
func engineLateness(t *testing.T, out string, delayMs int, table *strings.Builder) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("run-d%d.txt", delayMs)))
	if err != nil {
		t.Fatal(err)
	}
	stats := regexp.MustCompile(`^# nfqdelay (host|ns): STATS .*packets=(\d+) released=(\d+) lost=(\d+) enobufs=(\d+) late_us mean=(\d+) p50=(\d+) p99=(\d+)`)
	var sum float64
	var seen []string
	for _, line := range strings.Split(string(raw), "\n") {
		m := stats.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n := make([]float64, len(m))
		for i := 2; i < len(m); i++ {
			n[i], _ = strconv.ParseFloat(m[i], 64)
		}
		if n[2] != n[3] || n[4] != 0 || n[5] != 0 {
			t.Errorf("D=%d: the delay engine (%s) handled %.0f packets, released %.0f, lost %.0f, the kernel dropped %.0f: the delay was not what was set",
				delayMs, m[1], n[2], n[3], n[4], n[5])
		}
		sum += n[6] / 1000
		seen = append(seen, fmt.Sprintf("%s mean %.2f, p99 %.2f", m[1], n[6]/1000, n[8]/1000))
	}
	if len(seen) != 2 {
		t.Fatalf("D=%d: %d delay engine STATS lines in run-d%d.txt, want the host's and the namespace's", delayMs, len(seen), delayMs)
	}
	fmt.Fprintf(table, "| delay engine lateness, ms | | %s | | both ways together at most %.0f |\n", strings.Join(seen, "; "), toleranceMs)
	if sum > toleranceMs {
		t.Errorf("D=%d: the delay engine released packets %.2f ms late on average (both ways), beyond %.0f ms: the delay was longer than set", delayMs, sum, toleranceMs)
	}
}

// checkDelay checks each client's latencies at D ms each way against D=0 and
// appends them to table. franz-go and librdkafka are held to the model or to a
// warned limit: with request slots to spare the ack moves by the round trip;
// a client whose requests in flight reached their cap holds records back, must
// say it was saturated, and its ack moves by at least the round trip. Any client
// whose queue time grew by more than the tolerance must say so: saturated, or its
// rate slipped by enough to explain the growth. franz-go's end-to-end
// median must also follow the fetch-wait model. sarama, which keeps one request
// per partition in flight, is held to its warnings.
func checkDelay(t *testing.T, out string, delayMs int, table *strings.Builder) {
	t.Helper()
	fmt.Fprintf(table, "\n| p50 / p99, ms | D=0 | D=%d | p50 shift | expected |\n|---|---|---|---|---|\n", delayMs)
	row := func(name string, p0, q0, p1, q1 float64, expect string) float64 {
		fmt.Fprintf(table, "| %s | %.1f / %.1f | %.1f / %.1f | %+.1f | %s |\n", name, p0, q0, p1, q1, p1-p0, expect)
		return p1 - p0
	}
	rtt := 2.0 * float64(delayMs)
	engineLateness(t, out, delayMs, table)
	largest := delayMs == slices.Max(delaysMs)
	rate := targetRate(t, out)
	// keptRate: the open loop held its rate (what a client with room to spare does).
	keptRate := func(r summary.Result) bool { return r.RecordsPerSecond >= 0.97*rate }
	// keptOrSaid: sarama's documented limit: it keeps the rate, or its result says
	// the rate slipped.
	keptOrSaid := func(what string, r summary.Result) {
		if !keptRate(r) && !summary.Warned(r.Warnings, summary.SlippedWarning) {
			t.Errorf("%s at D=%d: %.0f rec/s, and its result does not say the rate slipped; warnings: %q", what, delayMs, r.RecordsPerSecond, r.Warnings)
		}
	}
	for _, client := range []string{"franz-go", "librdkafka", "sarama"} {
		if client == "sarama" && delayMs > saramaMaxDelayMs {
			fmt.Fprintf(table, "| sarama (16 KiB batches) | | | | not run beyond D=%d: it cannot keep the rate there (see D=%d) |\n", saramaMaxDelayMs, saramaMaxDelayMs)
			continue
		}
		r0, _, _ := load(t, filepath.Join(out, client+"-d0.json"))
		r1, ack1, fetch1 := load(t, filepath.Join(out, fmt.Sprintf("%s-d%d.json", client, delayMs)))
		for d, r := range map[int]summary.Result{0: r0, delayMs: r1} {
			if r.Lost != 0 || r.Delivered != r.Sent {
				t.Errorf("%s D=%d: sent %d, delivered %d, lost %d", client, d, r.Sent, r.Delivered, r.Lost)
			}
			// Open loop: the rate holds even when the client queues (sarama
			// cannot keep up with a 16 KiB batch.size once the round trip is long;
			// its row shows by how much).
			switch {
			case client == "sarama" && d > 0:
				keptOrSaid("sarama", r)
			case !keptRate(r):
				t.Errorf("%s D=%d: %.0f rec/s: the workload must keep its rate", client, d, r.RecordsPerSecond)
			}
		}
		fmt.Fprintf(table, "| %s throughput, rec/s | %.0f | %.0f | | %.0f |\n", client, r0.RecordsPerSecond, r1.RecordsPerSecond, rate)
		var q0, q1, rq0, rq1 float64 // mean record queue time and request latency in the client, ms
		if r0.Client != nil && r1.Client != nil {
			q0, q1 = r0.Client.RecordQueueTimeAvgMicros/1e3, r1.Client.RecordQueueTimeAvgMicros/1e3
			rq0, rq1 = r0.Client.RequestLatencyAvgMicros/1e3, r1.Client.RequestLatencyAvgMicros/1e3
		}
		warned := summary.Warned(r1.Warnings, summary.SaturatedWarning)
		if client == "sarama" {
			row(client+" ack", ms(r0.Ack.P50), ms(r0.Ack.P99), ms(r1.Ack.P50), ms(r1.Ack.P99), "reported (sarama cannot pass: see its warning)")
			row(client+" end-to-end", ms(r0.EndToEnd.P50), ms(r0.EndToEnd.P99), ms(r1.EndToEnd.P50), ms(r1.EndToEnd.P99), "reported")
			if !slices.Contains(r1.Warnings, summary.SaramaInFlightWarning) {
				t.Errorf("sarama's result lacks the warning that it cannot keep more than one request per partition in flight; warnings: %q", r1.Warnings)
			}
			if ack := ms(r1.Ack.P50) - ms(r0.Ack.P50); (largest || delayMs == saramaMaxDelayMs) && ack <= rtt+toleranceMs {
				t.Errorf("sarama's ack p50 moved %+.1f ms at D=%d: within one round trip, so docs/producer-settings.md and its warning are wrong now", ack, delayMs)
			}
			continue
		}
		// Unwarned, the client had request slots to spare: the ack moves by the
		// round trip. Warned, it held records back, and its pipeline, not the
		// network, set the rest: the ack moves by at least the round trip, and the
		// warning is the documented limit. No upper bound is claimed for it: the
		// queue time is the client's mean ack less its mean request latency (per
		// request, not per record), and requests queued at the broker behind each
		// other add to both, so no model here predicts the excess; the table
		// reports how much of it the queue's growth accounts for.
		// Above, the client's own request latency at D (its instrument, not
		// ours; a mean over requests): a record that did not queue longer waits
		// for its request and no more, and a request can take longer than the
		// round trip (TCP holding it behind its congestion window while a dozen
		// are in flight, the delay engine's per-packet cost). The table says by
		// how much it did.
		lo, hi := rtt-toleranceMs, max(rtt, rq1)+toleranceMs
		how := fmt.Sprintf("%+.0f to %+.1f (one round trip −%.0f; at most the client's request latency, %.1f ms, +%.0f; queue %.1f → %.1f ms)",
			lo, hi, toleranceMs, rq1, toleranceMs, q0, q1)
		if warned {
			hi = math.Inf(1)
			how = fmt.Sprintf("at least %+.0f (warned saturated; queue %.1f → %.1f ms, request latency %.1f → %.1f ms)", lo, q0, q1, rq0, rq1)
		}
		ack := row(client+" ack", ms(r0.Ack.P50), ms(r0.Ack.P99), ms(r1.Ack.P50), ms(r1.Ack.P99), how)
		if ack < lo || ack > hi {
			t.Errorf("%s ack p50 moved %+.1f ms at D=%d, want %+.1f to %+.1f (round trip %.0f, queue time %.1f → %.1f ms, warned saturated: %v)",
				client, ack, delayMs, lo, hi, rtt, q0, q1, warned)
		}
		// A client that held records back noticeably more than with no delay set
		// the latency itself: its result must say so. Either it was saturated,
		// or its producer fell behind its schedule (the warning says the client
		// or the machine set the numbers). Records it sent late then go out in
		// bursts, which queue behind each other for at most the span they were
		// late over: so the slip explains a growth of up to its send delay's
		// p99, no more.
		slip := summary.Warned(r1.Warnings, summary.SlippedWarning)
		if grown := q1 - q0; grown > toleranceMs && !warned && (!slip || grown > ms(r1.SendDelay.P99)+toleranceMs) {
			t.Errorf("%s at D=%d queued records %.1f ms longer than at D=0 (%.1f ms), and its result says neither that it was saturated nor that its rate slipped by that much (send delay p99 %.1f ms); warnings: %q",
				client, delayMs, grown, q1, ms(r1.SendDelay.P99), r1.Warnings)
		}
		e2e := ms(r1.EndToEnd.P50) - ms(r0.EndToEnd.P50)
		switch client {
		case "franz-go":
			// One fetch per round trip: an interval is a round trip plus the
			// fetch's turnaround, which grows with load and which the end-to-end
			// bound below allows; two round trips mean something held the poll
			// (docs/measurement.md, "Calibration").
			fetch := ms(r1.FetchInterval.P50)
			if r1.FetchInterval.Count == 0 {
				t.Errorf("franz-go at D=%d: no fetch intervals measured, so the end-to-end model cannot be checked", delayMs)
				continue
			}
			if fetch < rtt || fetch >= 2*rtt {
				t.Errorf("franz-go fetch interval p50 at D=%d is %.1f ms (%d samples), want one round trip (%.0f ms) plus its turnaround, below two round trips",
					delayMs, fetch, r1.FetchInterval.Count, rtt)
			}
			// With records always waiting, a record waits for the next fetch, uniformly
			// over a fetch interval; with no delay the fetch is already waiting for it
			// (long poll), which leaves the gap measured at D=0.
			gap := float64(r0.EndToEnd.P50 - r0.Ack.P50)
			predicted := predictE2E(ack1, fetch1, gap) / 1000
			want := predicted - ms(r0.EndToEnd.P50)
			// A fetch response's trip beyond its one-way delay (a 230 KB response
			// through the delay engine and TCP) is part of the fetch's turnaround,
			// which the consumer measures: the fetch interval less the round trip.
			// The model leaves it out, so it may add up to that turnaround.
			turnaround := max(0, fetch-rtt)
			row(client+" end-to-end", ms(r0.EndToEnd.P50), ms(r0.EndToEnd.P99), ms(r1.EndToEnd.P50), ms(r1.EndToEnd.P99),
				fmt.Sprintf("%+.1f to %+.1f (ack distribution + wait for the next fetch, −%.0f / +%.0f and up to the fetch's turnaround, %.1f: interval p50 %.1f ms)",
					want-toleranceMs, want+toleranceMs+turnaround, toleranceMs, toleranceMs, turnaround, fetch))
			if e2e < want-toleranceMs || e2e > want+toleranceMs+turnaround {
				t.Errorf("franz-go end-to-end p50 moved %+.1f ms at D=%d, the model predicts %+.1f to %+.1f (%+.1f, −%.0f / +%.0f and up to the fetch's turnaround, %.1f ms)",
					e2e, delayMs, want-toleranceMs, want+toleranceMs+turnaround, want, toleranceMs, toleranceMs, turnaround)
			}
		case "librdkafka":
			// Its consumer's fetches are inside librdkafka (no fetch interval), so
			// end-to-end is bounded below, and reported.
			row(client+" end-to-end", ms(r0.EndToEnd.P50), ms(r0.EndToEnd.P99), ms(r1.EndToEnd.P50), ms(r1.EndToEnd.P99),
				fmt.Sprintf("reported (at least %+.0f: one way to the broker, one way to the consumer)", rtt))
			if e2e < rtt-toleranceMs {
				t.Errorf("librdkafka end-to-end p50 moved %+.1f ms at D=%d, less than the %.0f ms more a record must travel", e2e, delayMs, rtt)
			}
		}
	}
	// sarama's consumer, with a producer that keeps up: before its completion checks
	// and commits left the fetch connection, each fetch cost about two round trips.
	// Its heartbeats (2/s) and commits (1/s) still share that connection.
	s0, _, _ := load(t, filepath.Join(out, "sarama-128k-d0.json"))
	s1, _, _ := load(t, filepath.Join(out, fmt.Sprintf("sarama-128k-d%d.json", delayMs)))
	fmt.Fprintf(table, "| sarama, 128 KiB batches, throughput, rec/s | %.0f | %.0f | | %.0f, or a warning that the rate slipped |\n", s0.RecordsPerSecond, s1.RecordsPerSecond, rate)
	row("sarama, 128 KiB batches, ack", ms(s0.Ack.P50), ms(s0.Ack.P99), ms(s1.Ack.P50), ms(s1.Ack.P99), "reported (one request per partition in flight)")
	row("sarama, 128 KiB batches, end-to-end", ms(s0.EndToEnd.P50), ms(s0.EndToEnd.P99), ms(s1.EndToEnd.P50), ms(s1.EndToEnd.P99), "reported")
	excess := ms(s1.EndToEnd.P50-s1.Ack.P50) - ms(s0.EndToEnd.P50-s0.Ack.P50)
	fmt.Fprintf(table, "| sarama, 128 KiB batches: (e2e − ack) p50 | %.1f | %.1f | %+.1f | reported: %+d with one fetch per round trip; %+d before its checks left the fetch connection |\n",
		ms(s0.EndToEnd.P50-s0.Ack.P50), ms(s1.EndToEnd.P50-s1.Ack.P50), excess, delayMs, 2*delayMs)
	// Reported, not asserted: measured +29 to +46 over runs at D=25, so sarama's
	// consumer cannot meet the model either; its warning and
	// docs/producer-settings.md say so.
	// It keeps one produce request in flight: at 80 ms round trip that carries
	// about 126 records per 84 ms, below the 2,000 a second asked. Then its
	// result must say the rate slipped (the documented limit).
	keptOrSaid("sarama with 128 KiB batches", s1)

	pp0 := parseJava(t, filepath.Join(out, "java-pp-d0.txt"), ppSteady)
	pp1 := parseJava(t, filepath.Join(out, fmt.Sprintf("java-pp-d%d.txt", delayMs)), ppSteady)
	pp := row("Java ProducerPerformance ack (steady, sticky partitioner)", pp0.p50, pp0.p99, pp1.p50, pp1.p99, fmt.Sprintf("reported (at least %+.0f)", rtt-1))
	// The rig checked the delay with TCP connect times; the Java client must see at
	// least that much too.
	if pp < rtt-1 {
		t.Errorf("Java ProducerPerformance p50 moved %+.0f ms at D=%d, less than the added round trip (%.0f): the injected delay is not what it claims", pp, delayMs, rtt)
	}
	ee0 := parseJava(t, filepath.Join(out, "java-e2e-d0.txt"), e2eLine)
	ee1 := parseJava(t, filepath.Join(out, fmt.Sprintf("java-e2e-d%d.txt", delayMs)), e2eLine)
	row("Java EndToEndLatency (sync send + poll)", ee0.p50, ee0.p99, ee1.p50, ee1.p99, fmt.Sprintf("reported (~%+.0f: two round trips)", 2*rtt))
}
