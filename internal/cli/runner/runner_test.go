package runner_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/api/v1alpha1"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/report"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
	"github.com/serdebench/serdebench/internal/testing/registrytest"
	"github.com/serdebench/serdebench/workers/codec"
	"github.com/serdebench/serdebench/workers/compress"
)

func spec(codecs ...trial.Codec) v1alpha1.ExperimentSpec {
	records := int64(3000)
	return v1alpha1.ExperimentSpec{
		Codecs:    codecs,
		Payload:   v1alpha1.PayloadSpec{Schema: "business-record", SizesBytes: []int32{1176}},
		Records:   &records,
		Warmup:    trial.Warmup{Records: 200},
		Consumers: 2,
		Producer:  v1alpha1.ProducerSettings{Compression: trial.CompressionSnappy, Acks: trial.AcksLeader},
		PoolSize:  64,
	}
}

// TestEveryCodecEndToEnd sends through the real broker with every codec the workers
// know and checks complete delivery: nothing lost, nothing duplicated, every measured
// record counted.
func TestEveryCodecEndToEnd(t *testing.T) {
	brokers, reg := kafkatest.Brokers(t), registrytest.URL(t)
	var all []trial.Codec
	for _, n := range codec.Names() {
		all = append(all, trial.Codec(n))
	}
	trials, err := plan.Expand(spec(all...))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		t.Run(string(tr.Codec), func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, SchemaRegistry: reg, Experiment: "it-codecs", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			if r.Lost != 0 || r.Duplicated != 0 || r.Errors != 0 {
				t.Fatalf("lost %d, duplicated %d, errors %d; warnings %v", r.Lost, r.Duplicated, r.Errors, r.Warnings)
			}
			if want := tr.Records + tr.Warmup.Records; r.Sent != want || r.Delivered != want {
				t.Fatalf("sent %d, delivered %d, want %d", r.Sent, r.Delivered, want)
			}
			if r.Records != tr.Records || r.EndToEnd.Count != tr.Records || r.Deserialize.Count != tr.Records {
				t.Fatalf("measured %d acked, %d e2e, %d decoded; want %d each (warmup excluded)", r.Records, r.EndToEnd.Count, r.Deserialize.Count, tr.Records)
			}
			if r.EndToEnd.P50 <= 0 || r.EndToEnd.Max < r.EndToEnd.P99 || r.RecordsPerSecond <= 0 || r.SerializeMicrosPerRecord <= 0 {
				t.Fatalf("implausible result %+v", r)
			}
			// A registry codec's producers register once each; its consumers look
			// the writer's id up and check it is their schema's, once each: every
			// later record is a cache hit.
			switch rc := r.Registry; {
			case !tr.Codec.UsesRegistry() && rc != nil:
				t.Fatalf("registry cost %+v without a registry codec", rc)
			case !tr.Codec.UsesRegistry():
			case rc == nil:
				t.Fatal("a registry codec reported no registry cost")
			case rc.Requests != int64(tr.Producers)+2*int64(tr.Consumers) || rc.RequestMillis <= 0:
				t.Fatalf("%d requests (%.1f ms), want %d", rc.Requests, rc.RequestMillis, tr.Producers+2*tr.Consumers)
			case rc.SerializeLookupNanosPerRecord <= 0 || rc.DeserializeLookupNanosPerRecord <= 0:
				t.Fatalf("lookup times per record %+v", rc)
			default:
				t.Logf("registry: %d requests, %.1f ms; per record %.0f ns serializing, %.0f ns deserializing (codec %.0f ns, %.0f ns)",
					rc.Requests, rc.RequestMillis, rc.SerializeLookupNanosPerRecord, rc.DeserializeLookupNanosPerRecord,
					1000*r.SerializeMicrosPerRecord, 1000*r.DeserializeMicrosPerRecord)
			}
		})
	}
}

// TestFixedRate runs an open loop at a target rate: the measured window is the
// records' schedule (5 s) plus at most the slowest acknowledgement, so the rate
// reported is the target's, less only what the last ack took. That holds on a
// loaded machine too: a stall there lengthens the slowest ack as well.
func TestFixedRate(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("protobuf")
	records := int64(10000)
	s.Records = &records
	s.Rate.RecordsPerSecond = 2000
	s.Producer.LingerMs = ptr(int32(5))
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Experiment: "it-rate", TrialTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Result
	schedule := float64(records-1) / 2000 // first to last intended send
	slowest := float64(r.Ack.Max)*1.001/1e6 + 0.001
	if r.WindowSeconds < schedule || r.WindowSeconds > schedule+slowest {
		t.Fatalf("measured window %.3f s, want the %.3f s schedule plus at most the slowest ack (%.3f s)", r.WindowSeconds, schedule, slowest)
	}
	if want := float64(records) / r.WindowSeconds; math.Abs(r.RecordsPerSecond-want) > 1e-6*want {
		t.Fatalf("measured %.1f rec/s, but %d records over %.3f s is %.1f", r.RecordsPerSecond, records, r.WindowSeconds, want)
	}
	if r.SendDelay.Count != records || r.Lost != 0 {
		t.Fatalf("send delay count %d, lost %d", r.SendDelay.Count, r.Lost)
	}
	t.Logf("rate %.1f rec/s, send delay p50 %d µs p99 %d µs, e2e p50 %d µs p99 %d µs",
		r.RecordsPerSecond, r.SendDelay.P50, r.SendDelay.P99, r.EndToEnd.P50, r.EndToEnd.P99)
}

// TestConsumedEqualsEndOffsets: everything the consumers received, plus the end
// records, is exactly what the broker holds.
func TestConsumedEqualsEndOffsets(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("avro")
	s.Producers = 2
	s.Consumers = 3
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	tr := trials[0]
	res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-offsets", KeepTopics: true, TrialTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := runner.DeleteTopic(brokers, res.Topic); err != nil {
			t.Error(err)
		}
	}()
	checkEndOffsets(t, brokers, res)
	r := res.Result
	if want := 2 * (tr.Records + tr.Warmup.Records); r.Sent != want || r.Delivered != want || r.Lost != 0 {
		t.Fatalf("sent %d delivered %d lost %d, want %d", r.Sent, r.Delivered, r.Lost, want)
	}
	if r.Producers != 2 || r.Consumers != 3 {
		t.Fatalf("%d producers, %d consumers in the merge", r.Producers, r.Consumers)
	}
}

func ptr[T any](v T) *T { return &v }

// checkEndOffsets: what a kept topic's consumers received, duplicates and every
// producer's end record per partition included, is exactly what the broker holds.
func checkEndOffsets(t *testing.T, brokers []string, res *report.TrialResult) {
	t.Helper()
	client, err := sarama.NewClient(brokers, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	tr := res.Trial
	var end int64
	for p := range tr.Partitions {
		off, err := client.GetOffset(res.Topic, p, sarama.OffsetNewest)
		if err != nil {
			t.Fatal(err)
		}
		end += off
	}
	r := res.Result
	markers := int64(tr.Producers * tr.Partitions)
	if got := r.Delivered + r.Duplicated + markers; got != end {
		t.Fatalf("consumed %d records (+%d end records), broker end offsets sum to %d", r.Delivered+r.Duplicated, markers, end)
	}
}

// TestSingleModeDurationWindow: single-message mode with a time-based warmup and
// window. Every measured record is acknowledged before the next is sent, the window
// lasts as long as asked, and warmup records are excluded but delivered.
func TestSingleModeDurationWindow(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("msgpack")
	s.Records = nil
	s.DurationSeconds = ptr(int32(2))
	s.Warmup = trial.Warmup{DurationSeconds: 1}
	s.Mode = trial.ModeSingle
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.RunTrial(context.Background(), trials[0], runner.Options{Brokers: brokers, Experiment: "it-single", TrialTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Result
	var warmup int64
	for _, sum := range res.Summaries {
		if sum.Role == "producer" {
			warmup = sum.WarmupRecords
		}
	}
	if r.Lost != 0 || r.Duplicated != 0 || r.Records == 0 || warmup == 0 || r.Sent != r.Records+warmup {
		t.Fatalf("records %d warmup %d sent %d lost %d duplicated %d", r.Records, warmup, r.Sent, r.Lost, r.Duplicated)
	}
	// The last record is sent within the 2 s and the window ends with its ack.
	if r.WindowSeconds < 1.9 || r.WindowSeconds > 2+float64(r.Ack.Max)*1.001/1e6+0.001 {
		t.Fatalf("window %.3f s, want 2 s plus at most the slowest ack (%d µs)", r.WindowSeconds, r.Ack.Max)
	}
	// One record in flight: the ack rate is bounded by the round trip, so the mean
	// ack latency times the rate cannot exceed one second per second (plus slack).
	if busy := r.Ack.Mean / 1e6 * r.RecordsPerSecond; busy > 1.05 {
		t.Fatalf("%.2f records in flight on average in single mode", busy)
	}
	t.Logf("single mode: %.0f rec/s, ack p50 %d µs, e2e p50 %d µs", r.RecordsPerSecond, r.Ack.P50, r.EndToEnd.P50)
}

// TestEveryPayloadCompressionEndToEnd compresses each value with every payload
// compressor through the real broker: complete delivery, every measured value
// compressed and decompressed once, and JSON values smaller on the wire.
func TestEveryPayloadCompressionEndToEnd(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	// Counts and sizes, not rates: 600 records (xz takes ~10 ms each here) span
	// every partition.
	s := spec("json")
	s.Records, s.Warmup = ptr(int64(600)), trial.Warmup{Records: 50}
	s.Matrix = &v1alpha1.Matrix{}
	for _, n := range compress.Names()[1:] {
		s.Matrix.PayloadCompression = append(s.Matrix.PayloadCompression, trial.PayloadCompression(n))
	}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		t.Run(string(tr.Settings.PayloadCompression), func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-compress", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			if want := tr.Records + tr.Warmup.Records; r.Lost != 0 || r.Errors != 0 || r.Delivered != want {
				t.Fatalf("lost %d, errors %d, delivered %d of %d; warnings %v", r.Lost, r.Errors, r.Delivered, want, r.Warnings)
			}
			if r.Compress.Count != tr.Records || r.Decompress.Count != tr.Records || r.Deserialize.Count != tr.Records {
				t.Fatalf("compressed %d, decompressed %d, decoded %d; want %d each", r.Compress.Count, r.Decompress.Count, r.Deserialize.Count, tr.Records)
			}
			if r.CompressedBytesPerRecord <= 0 || r.CompressedBytesPerRecord >= r.SerializedBytesPerRecord {
				t.Fatalf("JSON of %.0f B compressed to %.0f B", r.SerializedBytesPerRecord, r.CompressedBytesPerRecord)
			}
			if r.CompressMicrosPerRecord <= 0 || r.DecompressMicrosPerRecord <= 0 {
				t.Fatalf("compress %.2f µs, decompress %.2f µs", r.CompressMicrosPerRecord, r.DecompressMicrosPerRecord)
			}
			t.Logf("%s: %.0f B → %.0f B, compress %.2f µs, decompress %.2f µs, %.0f rec/s", tr.Settings.PayloadCompression,
				r.SerializedBytesPerRecord, r.CompressedBytesPerRecord, r.CompressMicrosPerRecord, r.DecompressMicrosPerRecord, r.RecordsPerSecond)
		})
	}
}

// TestPayloadSourceEndToEnd sends a user's own records (the .proto and orders of
// config/samples/own-schema) through the real broker with the codecs that work from
// the schema at run time: every record delivered and decoded.
func TestPayloadSourceEndToEnd(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	s := spec("protobuf", "msgpack", "cbor")
	s.Payload = v1alpha1.PayloadSpec{Source: &v1alpha1.PayloadSource{Format: "protobuf", Message: "Order",
		SchemaPath: "../../../config/samples/own-schema/order.proto", SamplesPath: "../../../config/samples/own-schema/orders.jsonl"}}
	trials, err := plan.Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trials {
		t.Run(string(tr.Codec), func(t *testing.T) {
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-source", TrialTimeout: 2 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Result
			if want := tr.Records + tr.Warmup.Records; r.Lost != 0 || r.Errors != 0 || r.Delivered != want || r.Deserialize.Count != tr.Records {
				t.Fatalf("lost %d, errors %d, delivered %d of %d, decoded %d; warnings %v", r.Lost, r.Errors, r.Delivered, want, r.Deserialize.Count, r.Warnings)
			}
			// The orders' compact JSON averages 222 B.
			if r.PayloadBytesPerRecord < 200 || r.PayloadBytesPerRecord > 240 || r.SerializedBytesPerRecord >= r.PayloadBytesPerRecord {
				t.Fatalf("payload %.0f B, serialized %.0f B", r.PayloadBytesPerRecord, r.SerializedBytesPerRecord)
			}
		})
	}
}
