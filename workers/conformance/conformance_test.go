package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	osexec "os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/workers/metrics"
	"github.com/serdebench/serdebench/workers/protocol"
	"github.com/serdebench/serdebench/workers/summary"
)

// trialRun is one trial's workers: producers of one runtime, consumers of another.
type trialRun struct {
	producer, consumer runtime
	codec              trial.Codec
}

// TestTrial runs whole trials, two producers and two consumers on three partitions,
// with producers and consumers of one runtime and of two (the bytes one runtime
// writes, the other decodes): every worker exits 0 having measured its process's
// CPU, resident set and heap, the summaries merge, nothing
// acknowledged is lost, no consumer fails to decode, every histogram's count is
// its summary's records (the merge adds them exactly), and each producer's
// acknowledged sequence numbers on each partition are exactly what a read-back of
// the topic finds.
func TestTrial(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	goRT, jvm := runtimes[0], runtimes[1]
	// Both ways across runtimes once each, and a JVM-only serializer: the wire table
	// (TestWire) checks every codec both ways without a broker.
	runs := []trialRun{{goRT, goRT, trial.CodecJSON}, {jvm, jvm, trial.CodecKryo}, {jvm, goRT, trial.CodecThriftCompact}, {goRT, jvm, trial.CodecCBOR}}
	for _, r := range runs {
		t.Run(fmt.Sprintf("%s-to-%s/%s", r.producer.name, r.consumer.name, r.codec), func(t *testing.T) {
			tr := newTrial(t, r.producer.client, r.codec, 2, 2, 1000, 3)
			if r.consumer.client != r.producer.client {
				tr.Settings.ConsumerClient = r.consumer.client // consumer.client, as the planner sets it
				if err := tr.RuntimeUnsupported(); err != nil {
					t.Fatal(err)
				}
			}
			topic := newTopic(t, brokers, tr)
			base := protocol.Worker{Bootstrap: brokers, Topic: topic, Group: topic + ".consumers", Experiment: "conformance", ExperimentUID: "u1"}
			var procs []*proc
			for i := range tr.Consumers {
				w := base
				w.Role, w.ID = protocol.RoleConsumer, protocol.ConsumerName(int(i))
				procs = append(procs, start(t, r.consumer, w, tr))
			}
			for i := range tr.Producers {
				w := base
				w.Role, w.ID, w.WaitForGroup, w.WaitTimeout = protocol.RoleProducer, protocol.ProducerID(int(i)), true, time.Minute
				procs = append(procs, start(t, r.producer, w, tr))
			}
			sums := waitAll(t, procs, 2*time.Minute)
			res, err := summary.Merge(sums)
			if err != nil {
				t.Fatal(err)
			}
			var produced, consumed, decodeErrors int64
			for _, s := range sums {
				rt := r.consumer
				if s.Role == protocol.RoleProducer {
					rt = r.producer
				}
				checkBuild(t, s, rt.client)
				// Producer 0, and it alone, measured its machine: every part of the probe.
				first := s.Role == protocol.RoleProducer && s.Worker == protocol.ProducerID(0)
				if p := s.Probe; first != (p != nil) || (p != nil && (p.CPUNanosPerOp <= 0 || p.FsyncMicros <= 0 || p.ConnectMicros <= 0)) {
					t.Errorf("%s %s: probe %+v, want every part from producer 0 and none from the others", s.Role, s.Worker, p)
				}
				// Each process measured itself over its window, as a pod's worker does.
				if u := s.Usage; u == nil || u.CPUSeconds <= 0 || u.PeakRSSBytes < 1<<20 || u.PeakHeapBytes <= 0 {
					t.Fatalf("%s %s: usage %+v, want its CPU, resident set and heap over its window", s.Role, s.Worker, u)
				}
				// A fresh JVM compiles in every window of seconds; a Go worker has no JIT.
				jit := s.Role == protocol.RoleProducer && r.producer.client.Runtime() == trial.RuntimeJVM ||
					s.Role == protocol.RoleConsumer && r.consumer.client.Runtime() == trial.RuntimeJVM
				if jit != (s.Usage.JITSeconds > 0) || s.Usage.JITSeconds < 0 {
					t.Errorf("%s %s: jitSeconds %g over a %.1f s window, want some exactly when it runs on the JVM", s.Role, s.Worker, s.Usage.JITSeconds, s.Usage.Seconds)
				}
				clientStats(t, s)
				seriesAndSegments(t, s)
				if s.Role == protocol.RoleProducer {
					produced += s.Records
					exact(t, s, summary.AckLatencyMicros, s.Records)
					exact(t, s, summary.SerializeNanos, s.Records)
				} else {
					consumed += s.Records
					decodeErrors += s.Errors
					exact(t, s, summary.EndToEndMicros, s.Records)
					exact(t, s, summary.DeserializeNanos, s.Records)
				}
			}
			if decodeErrors > 0 {
				t.Fatalf("consumers failed to decode %d records: %s", decodeErrors, res.Warnings)
			}
			if res.Lost != 0 || res.UnacknowledgedDelivered != 0 || produced == 0 {
				t.Fatalf("lost %d, delivered unacknowledged %d, produced %d", res.Lost, res.UnacknowledgedDelivered, produced)
			}
			if got := res.Latency(summary.AckLatencyMicros).Count(); got != produced {
				t.Fatalf("merged ack latency counts %d, producers measured %d", got, produced)
			}
			if got := res.Latency(summary.EndToEndMicros).Count(); got != consumed {
				t.Fatalf("merged end-to-end latency counts %d, consumers measured %d", got, consumed)
			}
			ivs, _ := res.IntervalsAtMost(summary.MaxIntervals)
			var perInterval int64
			for _, iv := range ivs {
				perInterval += iv.Records
			}
			if len(ivs) == 0 || perInterval != produced {
				t.Fatalf("%d intervals counting %d acknowledged records, producers measured %d", len(ivs), perInterval, produced)
			}
			log := kafkatest.ReadBack(t, brokers, topic, tr.Partitions, false)
			for _, s := range sums {
				if s.Role != protocol.RoleProducer {
					continue
				}
				id, _ := strconv.Atoi(s.Worker)
				for _, d := range s.Acked {
					got := log[kafkatest.Stream{Producer: id, Partition: int32(d.Partition)}]
					if diff := d.Intervals.Minus(got.Set).Size() + got.Set.Minus(d.Intervals).Size(); diff != 0 {
						t.Errorf("producer %d partition %d: acknowledged %v, the topic holds %v", id, d.Partition, d.Intervals, got.Set)
					}
				}
			}
			t.Logf("produced %d, consumed %d (sent %d, delivered %d, duplicated %d); ack p50 %d µs, e2e p50 %d µs",
				produced, consumed, res.Sent, res.Delivered, res.Duplicated, res.Ack.P50, res.EndToEnd.P50)
		})
	}
}

// clientStats checks a worker's client statistics (summary.ClientStats) against
// what it counted itself: every record it sent went in a batch of a produce request
// that got a response, and a consumer fetched at least what it measured.
func clientStats(t *testing.T, s *summary.Summary) {
	t.Helper()
	c := s.Client
	if c == nil {
		t.Fatalf("%s %s: no client statistics", s.Role, s.Worker)
	}
	if s.Role == protocol.RoleConsumer {
		if c.FetchRequests <= 0 || c.FetchRecords < s.Records+s.WarmupRecords || c.FetchBytes < s.SerializedBytes || c.FetchRequestRate <= 0 {
			t.Fatalf("consumer %s measured %d records (%d B of values): client %+v", s.Worker, s.Records+s.WarmupRecords, s.SerializedBytes, *c)
		}
		return
	}
	var sent int64
	for _, d := range s.Acked {
		sent += d.Intervals.Size()
	}
	if c.ProduceRequests <= 0 || c.Batches < c.ProduceRequests || c.BatchRecords < sent || c.BatchBytes < s.SerializedBytes ||
		c.RequestLatencyCount <= 0 || c.RequestLatencyMaxMicros <= 0 || c.RequestLatencySumMicros < c.RequestLatencyMaxMicros ||
		c.InFlightSamples <= 0 {
		t.Fatalf("producer %s sent %d records (%d B of values): client %+v", s.Worker, sent, s.SerializedBytes, *c)
	}
	// In-flight requests are sampled (every 100 ms; librdkafka every 200 ms), so
	// requests in flight for T in all meet about T / period samples: a short,
	// quiet trial's samples can all fall between requests (seen: 3.7 expected, none
	// met). Past 10 expected a miss has a chance near e^-10, and means the count is broken.
	if expected := float64(c.RequestLatencySumMicros) / 200_000; expected >= 10 && c.InFlightMax <= 0 {
		t.Fatalf("producer %s: no request in flight at any of %d samples, though its requests were in flight %.1f s in all: client %+v",
			s.Worker, c.InFlightSamples, float64(c.RequestLatencySumMicros)/1e6, *c)
	}
	t.Logf("%s %s: sent %d, client %+v", s.Role, s.Worker, sent, *c)
}

// seriesAndSegments checks a worker's series against its own counts: a producer's
// buckets hold every measured record it sent with its latency and every record
// acknowledged (warmup too), and its first sequence numbers name every partition it
// sent to; a consumer's hold every measured record received with its latency and
// every record's first receipt, measured ones apart, and its segments every record
// it received.
func seriesAndSegments(t *testing.T, s *summary.Summary) {
	t.Helper()
	if s.Series == nil || s.Series.WidthSeconds <= 0 || len(s.Series.Buckets) == 0 {
		t.Fatalf("%s %s: series %+v", s.Role, s.Worker, s.Series)
	}
	var records, latencies, done, doneMeasured, failures, duplicates int64
	partitions := map[int]bool{}
	for _, b := range s.Series.Buckets {
		records += b.Records
		done += b.Done
		doneMeasured += b.DoneMeasured
		failures += b.Failures
		duplicates += b.Duplicates
		if b.Latency != nil {
			latencies += b.Latency.Count()
		}
		for p := range b.FirstSeq {
			partitions[p] = true
		}
	}
	var distinct, total int64
	deliveries := s.Received
	if s.Role == protocol.RoleProducer {
		deliveries = s.Acked
	}
	for _, d := range deliveries {
		distinct += d.Intervals.Size()
		total += d.Total
	}
	want := fmt.Sprintf("records %d, warmup %d, distinct %d", s.Records, s.WarmupRecords, distinct)
	if s.Role == protocol.RoleProducer {
		for _, d := range s.Acked {
			if !partitions[d.Partition] {
				t.Errorf("producer %s: no bucket's first sequence numbers name partition %d", s.Worker, d.Partition)
			}
		}
		if records != s.Records+failures || latencies != s.Records || done != s.Records+s.WarmupRecords || doneMeasured != s.Records {
			t.Fatalf("producer %s: series counts %d records, %d latencies, %d done (%d measured); %s", s.Worker, records, latencies, done, doneMeasured, want)
		}
		return
	}
	// A measured record's first receipt is measured, its copies are not.
	if records != s.Records || latencies != s.Records || done != distinct || doneMeasured != s.Records-duplicates {
		t.Fatalf("consumer %s: series counts %d records, %d latencies, %d done (%d measured); %s", s.Worker, records, latencies, done, doneMeasured, want)
	}
	var segmented int64
	for _, g := range s.Segments {
		segmented += g.Records
		if g.Last.Before(g.First) || g.Records <= 0 {
			t.Errorf("consumer %s: segment %+v", s.Worker, g)
		}
	}
	if segmented != total {
		t.Fatalf("consumer %s: %d segments hold %d records, it received %d", s.Worker, len(s.Segments), segmented, total)
	}
}

// waitAll waits for every process to exit 0 and returns their summaries; otherwise
// it stops the rest and fails with each one's exit and log.
func waitAll(t *testing.T, procs []*proc, timeout time.Duration) []*summary.Summary {
	t.Helper()
	deadline := time.Now().Add(timeout)
	failed := false
	for pending := len(procs); pending > 0 && !failed; {
		pending = 0
		for _, p := range procs {
			select {
			case <-p.done:
				failed = failed || p.cmd.ProcessState.ExitCode() != protocol.ExitOK
			default:
				pending++
			}
		}
		if pending > 0 && time.Now().After(deadline) {
			failed = true
		}
		time.Sleep(50 * time.Millisecond)
	}
	if failed {
		var b strings.Builder
		for _, p := range procs {
			select {
			case <-p.done:
			default:
				_ = p.cmd.Process.Kill()
				<-p.done
			}
			fmt.Fprintf(&b, "\n%s exited %d; stderr:\n%s\n", strings.Join(roleAndID(p.cmd.Args), " "), p.cmd.ProcessState.ExitCode(), tail(p.stderr.String()))
		}
		t.Fatalf("a worker failed or did not exit within %s:%s", timeout, b.String())
	}
	sums := make([]*summary.Summary, len(procs))
	for i, p := range procs {
		sums[i] = p.summary()
	}
	return sums
}

// roleAndID are a worker's --role and --id arguments.
func roleAndID(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "--role=") || strings.HasPrefix(a, "--id=") {
			out = append(out, a)
		}
	}
	return out
}

// exact fails unless summary s's histogram name counts want values.
func exact(t *testing.T, s *summary.Summary, name string, want int64) {
	t.Helper()
	h := s.Histograms[name]
	if h == nil {
		t.Fatalf("%s %s: no histogram %s", s.Role, s.Worker, name)
	}
	if h.Count() != want {
		t.Fatalf("%s %s: histogram %s counts %d, records %d", s.Role, s.Worker, name, h.Count(), want)
	}
}

// TestStartGate: a producer behind the start gate says it is not ready, then ready,
// sends nothing before the start it is given, keeps the first start, refuses a
// malformed one, serves its wall clock, and begins its window at the start.
func TestStartGate(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, rt := range runtimes {
		t.Run(rt.name, func(t *testing.T) {
			tr := newTrial(t, trial.DefaultClient, trial.CodecJSON, 1, 0, 500, 2)
			topic := newTopic(t, brokers, tr)
			p := start(t, rt, protocol.Worker{Role: protocol.RoleProducer, ID: "0", Bootstrap: brokers, Topic: topic, Group: topic + ".consumers",
				StartGate: true, WaitTimeout: time.Minute}, tr)
			base := "http://" + p.metrics
			if code := waitStatus(t, base+"/readyz", http.StatusOK, time.Minute); code != http.StatusOK {
				t.Fatalf("/readyz: %d, never 200", code)
			}
			for i := 0; i < 5; i++ {
				before := time.Now().UnixNano()
				body := get(t, base+"/clock")
				after := time.Now().UnixNano()
				c, err := strconv.ParseInt(body, 10, 64)
				if err != nil {
					t.Fatalf("/clock: %q: %v", body, err)
				}
				// The same machine's clock: within the request, give or take a millisecond.
				if c < before-int64(time.Millisecond) || c > after+int64(time.Millisecond) {
					t.Fatalf("/clock %d outside the request's [%d, %d]", c, before, after)
				}
			}
			time.Sleep(500 * time.Millisecond)
			for part, end := range kafkatest.EndOffsets(t, brokers, topic, tr.Partitions) {
				if end != 0 {
					t.Fatalf("partition %d holds %d records before the start", part, end)
				}
			}
			if code := put(t, base+"/start?at=soon"); code != http.StatusBadRequest {
				t.Fatalf("PUT /start?at=soon: %d, want 400", code)
			}
			at := time.Now().Add(1500 * time.Millisecond)
			if code := put(t, base+"/start?at="+strconv.FormatInt(at.UnixNano(), 10)); code != http.StatusNoContent {
				t.Fatalf("PUT /start: %d, want 204", code)
			}
			if code := put(t, base+"/start?at="+strconv.FormatInt(at.Add(time.Second).UnixNano(), 10)); code != http.StatusNoContent {
				t.Fatalf("a second PUT /start: %d, want 204 (ignored)", code)
			}
			if code := p.wait(time.Minute); code != protocol.ExitOK {
				t.Fatalf("exit %d\nstderr:\n%s", code, tail(p.stderr.String()))
			}
			s := p.summary()
			if !s.StartAt.Equal(at) {
				t.Fatalf("startAt %s, the start given %s (the first start wins)", s.StartAt, at)
			}
			if s.WindowStart.Before(at) || s.WindowStart.After(at.Add(time.Second)) {
				t.Fatalf("window began %s, the start was %s (warmup 100 records at 500/s: 200 ms after)", s.WindowStart, at)
			}
		})
	}
}

// TestInterrupted: a consumer whose trial never completes stops at its timeout,
// prints its summary marked interrupted and exits 3.
func TestInterrupted(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, rt := range runtimes {
		t.Run(rt.name, func(t *testing.T) {
			tr := newTrial(t, trial.DefaultClient, trial.CodecJSON, 1, 1, 500, 2)
			topic := newTopic(t, brokers, tr)
			began := time.Now()
			p := start(t, rt, protocol.Worker{Role: protocol.RoleConsumer, ID: "c0", Bootstrap: brokers, Topic: topic, Group: topic + ".consumers",
				Timeout: 4 * time.Second}, tr)
			if code := p.wait(time.Minute); code != protocol.ExitInterrupted {
				t.Fatalf("exit %d at its timeout, want %d\nstderr:\n%s", code, protocol.ExitInterrupted, tail(p.stderr.String()))
			}
			if s := p.summary(); !s.Interrupted || s.Records != 0 {
				t.Fatalf("summary: interrupted %v, records %d", s.Interrupted, s.Records)
			}
			t.Logf("exited %s after it started (timeout 4 s)", time.Since(began).Round(time.Millisecond))
		})
	}
}

// TestSIGTERM: a producer stopped mid-trial serves the contract's metrics with the
// run's labels, its client's statistics among them (the Go workers' names, no more
// than its summary says at the end, produce requests already sent), exits 3
// within seconds of SIGTERM (drain 2 s), and prints its partial summary marked
// interrupted, its histograms counting its records.
func TestSIGTERM(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	for _, rt := range runtimes {
		t.Run(rt.name, func(t *testing.T) {
			tr := newTrial(t, trial.DefaultClient, trial.CodecProtobuf, 1, 1, 2000, 600)
			topic := newTopic(t, brokers, tr)
			p := start(t, rt, protocol.Worker{Role: protocol.RoleProducer, ID: "0", Bootstrap: brokers, Topic: topic, Group: topic + ".consumers",
				Experiment: "conformance", ExperimentUID: "u1"}, tr)
			want := model.LabelSet{"experiment": "conformance", "experiment_uid": "u1", "topic": model.LabelValue(topic),
				"group": model.LabelValue(topic + ".consumers"), "trial": model.LabelValue(tr.Name), "codec": "protobuf", "role": "producer", "worker": "0"}
			deadline := time.Now().Add(time.Minute)
			client := map[string]float64{}
			for {
				fams := scrape(t, "http://"+p.metrics+"/metrics")
				if v, ok := value(fams["serdebench_records_total"], want); ok && v > 0 {
					for _, name := range []string{"serdebench_warmup_records_total", "serdebench_serialized_bytes_total", "serdebench_codec_seconds_total",
						"serdebench_errors_total", "serdebench_latency_seconds", "serdebench_done"} {
						if _, ok := value(fams[name], want); !ok {
							t.Fatalf("/metrics: no %s with the labels %v", name, want)
						}
					}
					for _, c := range metrics.ClientCounters {
						name := "serdebench_" + c.Name
						if fams[name].GetType() != dto.MetricType_COUNTER {
							t.Fatalf("/metrics: %s is %v, want a counter", name, fams[name].GetType())
						}
						client[name], ok = value(fams[name], want)
						if !ok {
							t.Fatalf("/metrics: no %s with the labels %v", name, want)
						}
					}
					if _, ok := value(fams[metrics.ClientRequestLatency], want); !ok || fams[metrics.ClientRequestLatency].GetType() != dto.MetricType_SUMMARY {
						t.Fatalf("/metrics: %s is %v, want a summary with the labels %v", metrics.ClientRequestLatency, fams[metrics.ClientRequestLatency].GetType(), want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no measured records in /metrics within a minute\nstderr:\n%s", tail(p.stderr.String()))
				}
				time.Sleep(200 * time.Millisecond)
			}
			p.signal(syscall.SIGTERM)
			signalled := time.Now()
			if code := p.wait(15 * time.Second); code != protocol.ExitInterrupted {
				t.Fatalf("exit %d after SIGTERM, want %d\nstderr:\n%s", code, protocol.ExitInterrupted, tail(p.stderr.String()))
			}
			s := p.summary()
			if !s.Interrupted || s.Records == 0 {
				t.Fatalf("summary: interrupted %v, records %d", s.Interrupted, s.Records)
			}
			exact(t, s, summary.AckLatencyMicros, s.Records)
			if s.Client == nil || client["serdebench_client_produce_requests_total"] <= 0 {
				t.Fatalf("client statistics: scraped %v, summary %+v", client, s.Client)
			}
			for _, c := range metrics.ClientCounters {
				if name := "serdebench_" + c.Name; client[name] > c.Value(s.Client) {
					t.Errorf("%s scraped %g mid-trial, the summary's is %g", name, client[name], c.Value(s.Client))
				}
			}
			t.Logf("exited %s after SIGTERM with %d records", time.Since(signalled).Round(time.Millisecond), s.Records)
		})
	}
}

// TestUsage: arguments a worker does not know, a trial that is not JSON, a trial of
// another runtime's client (a consumer's: consumer.client) and a registry codec
// without a registry exit with the usage code: a worker never runs a client other
// than the one named. The JVM worker's registry codecs need Apicurio Registry's API
// (docs/formats.md, "Schema registry"): a registry URL without it is a usage error
// there too.
func TestUsage(t *testing.T) {
	for i, rt := range runtimes {
		other := runtimes[(i+1)%len(runtimes)]
		t.Run(rt.name, func(t *testing.T) {
			tr := newTrial(t, trial.DefaultClient, trial.CodecJSON, 1, 1, 500, 2)
			tr.Settings.Client = rt.client
			mine, _ := json.Marshal(tr)
			tr.Settings.Client = other.client
			theirs, _ := json.Marshal(tr)
			tr.Settings.Client, tr.Settings.ConsumerClient = rt.client, other.client // producers of this runtime, consumers of the other
			theirConsumers, _ := json.Marshal(tr)
			tr.Settings.Client, tr.Settings.ConsumerClient, tr.Codec = rt.client, "", trial.CodecAvroRegistry
			registryCodec, _ := json.Marshal(tr)
			type usage struct {
				args []string
				says string // what the refusal names ("": any usage error)
			}
			cases := map[string]usage{
				"unknown flag":                      {args: []string{"--role=producer", "--topic=t", "--group=g", "--trial=" + string(mine), "--no-such-flag=1"}},
				"trial not JSON":                    {args: []string{"--role=producer", "--topic=t", "--group=g", "--trial={not json"}},
				"no role":                           {args: []string{"--topic=t", "--group=g", "--trial=" + string(mine)}},
				"another runtime's client":          {args: []string{"--role=producer", "--topic=t", "--group=g", "--trial=" + string(theirs)}},
				"another runtime's consumer client": {args: []string{"--role=consumer", "--topic=t", "--group=g", "--trial=" + string(theirConsumers)}},
				"a registry codec, no registry":     {args: []string{"--role=producer", "--topic=t", "--group=g", "--trial=" + string(registryCodec)}, says: "--schema-registry"},
			}
			if rt.client == clientJava {
				cases["a registry without Apicurio's API"] = usage{args: []string{"--role=consumer", "--topic=t", "--group=g", "--trial=" + string(registryCodec),
					"--schema-registry=http://127.0.0.1:1/confluent"}, says: "/apis/ccompat/"}
			}
			for name, c := range cases {
				argv := rt.build(t)
				cmd := osexec.Command(argv[0], append(argv[1:], c.args...)...)
				out, _ := cmd.CombinedOutput()
				if code := cmd.ProcessState.ExitCode(); code != protocol.ExitUsage || !strings.Contains(string(out), c.says) {
					t.Errorf("%s: exit %d, want %d naming %q\n%s", name, code, protocol.ExitUsage, c.says, tail(string(out)))
				}
			}
		})
	}
}

func waitStatus(t *testing.T, url string, want int, timeout time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	code := 0
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			_ = resp.Body.Close()
			if code = resp.StatusCode; code == want {
				return code
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return code
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

func put(t *testing.T, url string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// scrape is /metrics parsed (nil when it does not answer yet).
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return nil
	}
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return fams
}

// value is the value of fam's series with the labels want (a histogram's or
// summary's count).
func value(fam *dto.MetricFamily, want model.LabelSet) (float64, bool) {
	if fam == nil {
		return 0, false
	}
	for _, m := range fam.GetMetric() {
		got := model.LabelSet{}
		for _, l := range m.GetLabel() {
			got[model.LabelName(l.GetName())] = model.LabelValue(l.GetValue())
		}
		if !got.Equal(want) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		case m.Summary != nil:
			return float64(m.GetSummary().GetSampleCount()), true
		}
	}
	return 0, false
}

// TestStickyPartitions: with the sticky partitioner every runtime's producer sends
// the same records to the same partitions (the Java client's rule, applied by the
// worker on manual partitions): protobuf's bytes are the same in both, so the
// acknowledged sequence numbers per partition must be too, and stickiness must
// show (whole batches' worth per partition, not one record each).
func TestStickyPartitions(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	perPartition := map[string][]int64{}
	for _, rt := range runtimes {
		tr := newTrial(t, trial.DefaultClient, trial.CodecProtobuf, 1, 0, 0, 1)
		tr.Records, tr.DurationSeconds = 3000, 0
		tr.Settings.Partitioner, tr.Settings.BatchSizeBytes = trial.PartitionerSticky, 16384
		tr.Repetition = 2 // the draws' seed counts the repetition, in both runtimes alike
		topic := newTopic(t, brokers, tr)
		p := start(t, rt, protocol.Worker{Role: protocol.RoleProducer, ID: "0", Bootstrap: brokers, Topic: topic, Group: topic + ".consumers",
			Experiment: "conformance", ExperimentUID: "u1"}, tr)
		s := waitAll(t, []*proc{p}, time.Minute)[0]
		counts := make([]int64, tr.Partitions)
		for _, d := range s.Acked {
			counts[d.Partition] += d.Intervals.Size()
		}
		if !strings.HasPrefix(s.ClientSettings["partitioner"], "sticky") {
			t.Fatalf("%s: partitioner %q", rt.name, s.ClientSettings["partitioner"])
		}
		perPartition[rt.name] = counts
	}
	goCounts, jvmCounts := perPartition[runtimes[0].name], perPartition[runtimes[1].name]
	if !slices.Equal(goCounts, jvmCounts) {
		t.Fatalf("records per partition: go %v, jvm %v", goCounts, jvmCounts)
	}
	// Round-robin per record would leave the partitions at most one record apart;
	// runs of about batch.size bytes each (protobuf's ~330 B: ~50-100 records) do not.
	if slices.Max(goCounts)-slices.Min(goCounts) <= 1 {
		t.Fatalf("records per partition %v: round-robin's, not sticky runs", goCounts)
	}
	t.Logf("records per partition, both runtimes: %v", goCounts)
}

// checkBuild: the summary names the runtime and the client library the worker ran,
// at the versions the build resolved (go.mod's for the Go clients, as `go list -m`
// says; KAFKA_CLIENT_VERSION for kafka-clients), and the machine's kernel.
func checkBuild(t *testing.T, s *summary.Summary, c trial.Client) {
	t.Helper()
	b := s.Build
	uname, err := osexec.Command("uname", "-r").Output()
	if err != nil {
		t.Fatal(err)
	}
	if b == nil || b.Kernel != strings.TrimSpace(string(uname)) || b.RuntimeVersion == "" {
		t.Fatalf("%s %s: build %+v, want the runtime, client and this machine's kernel", s.Role, s.Worker, b)
	}
	var lang, client, version string
	switch c {
	case trial.ClientJava:
		lang, client, version = "java", "kafka-clients", os.Getenv("KAFKA_CLIENT_VERSION")
	case trial.ClientFranz, trial.ClientSarama:
		module := map[trial.Client]string{trial.ClientFranz: "github.com/twmb/franz-go", trial.ClientSarama: "github.com/IBM/sarama"}[c]
		out, err := osexec.Command("go", "list", "-m", "-f", "{{.Version}}", module).Output()
		if err != nil {
			t.Fatal(err)
		}
		lang, client, version = "go", map[trial.Client]string{trial.ClientFranz: "franz-go", trial.ClientSarama: "sarama"}[c], strings.TrimSpace(string(out))
	default:
		return // librdkafka: its own version, checked in workers/run
	}
	if version == "" {
		t.Fatal("KAFKA_CLIENT_VERSION is not set: make test exports it")
	}
	if b.Runtime != lang || b.Client != client || b.ClientVersion != version {
		t.Errorf("%s %s: build %+v, want %s with %s %s", s.Role, s.Worker, b, lang, client, version)
	}
}
