package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/serdebench/serdebench/api/trial"
	"github.com/serdebench/serdebench/internal/cli/runner"
	"github.com/serdebench/serdebench/internal/plan"
	"github.com/serdebench/serdebench/internal/testing/jvmtest"
	"github.com/serdebench/serdebench/internal/testing/kafkatest"
)

// TestClientInternals checks each client's own statistics against what the broker
// saw: the records of every batch the broker acknowledged are every record sent
// (warmup and end markers included), records per request × requests is that
// count, and the batches' bytes as sent are the topic's size on the broker's disk
// — exactly: the broker stores a batch as the producer wrote it. The consumers
// fetched every record at least once.
func TestClientInternals(t *testing.T) {
	brokers := kafkatest.Brokers(t)
	jvm := jvmtest.Worker(t)
	for _, client := range trial.Clients {
		t.Run(string(client), func(t *testing.T) {
			s := spec("protobuf")
			records := int64(20000)
			s.Records, s.Client = &records, client
			s.Producer.Compression, s.Producer.LingerMs = trial.CompressionLZ4, ptr(int32(5))
			trials, err := plan.Expand(s)
			if err != nil {
				t.Fatal(err)
			}
			tr := trials[0]
			res, err := runner.RunTrial(context.Background(), tr, runner.Options{Brokers: brokers, Experiment: "it-internals", KeepTopics: true, TrialTimeout: 2 * time.Minute,
				Workers: map[trial.Runtime][]string{trial.RuntimeJVM: jvm}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = runner.DeleteTopic(brokers, res.Topic) }()
			r, in := res.Result, res.Result.Client
			if in == nil {
				t.Fatal("no client internals")
			}
			p := in.Producer
			t.Logf("%s: %d requests, %d batches of %.1f records, %.0f B (compression rate %.3f), %.1f records/request, request latency %.0f µs avg %d µs max, "+
				"queue time %.0f µs, in flight %.2f avg %d max, buffered ≤ %d B; fetch %.1f/s, %.0f B, %.1f records per fetch",
				client, p.ProduceRequests, p.Batches, in.BatchRecordsAvg, in.BatchSizeAvgBytes, in.CompressionRateAvg, in.RecordsPerRequestAvg,
				in.RequestLatencyAvgMicros, in.RequestLatencyMaxMicros, in.RecordQueueTimeAvgMicros, in.RequestsInFlightAvg, in.RequestsInFlightMax,
				in.BufferedBytesMax, in.FetchRequestRate, in.FetchSizeAvgBytes, in.RecordsPerFetchAvg)
			markers := int64(tr.Partitions * tr.Producers)
			if p.BatchRecords != r.Sent+markers {
				t.Errorf("batches carried %d records; the broker acknowledged %d plus %d end markers", p.BatchRecords, r.Sent, markers)
			}
			if got := int64(in.RecordsPerRequestAvg*float64(p.ProduceRequests) + 0.5); got != p.BatchRecords {
				t.Errorf("records per request × requests = %d, want %d", got, p.BatchRecords)
			}
			if size := topicBytes(t, brokers, res.Topic); size != p.BatchBytes {
				t.Errorf("batches as sent: %d B; the topic holds %d B", p.BatchBytes, size)
			}
			// sarama times requests in whole milliseconds: on loopback many are 0
			// (the Java client too, but its average is of the milliseconds).
			// librdkafka's statistics have no compression rate.
			rate := client == trial.ClientRdkafka || (in.CompressionRateAvg > 0 && in.CompressionRateAvg < 1)
			if !rate || p.RequestLatencyCount == 0 || (client != trial.ClientSarama && in.RequestLatencyAvgMicros <= 0) {
				t.Errorf("implausible: compression rate %.3f, request latency %.0f µs over %d requests",
					in.CompressionRateAvg, in.RequestLatencyAvgMicros, p.RequestLatencyCount)
			}
			// Requests in flight are a gauge sampled every 100 ms (librdkafka: at each
			// 200 ms statistics emission); a run of a few seconds whose requests take
			// 2 ms can sample zero every time (seen under -race), so this checks
			// that sampling ran and stayed within the connection's limit, and
			// workers/clientstats that the gauge is read.
			if p.InFlightSamples == 0 || in.RequestsInFlightMax > int64(tr.Settings.MaxInFlight) || in.RequestsInFlightAvg > float64(in.RequestsInFlightMax) {
				t.Errorf("requests in flight: %d samples, %.2f avg, %d max (limit %d per connection)",
					p.InFlightSamples, in.RequestsInFlightAvg, in.RequestsInFlightMax, tr.Settings.MaxInFlight)
			}
			if c := in.Consumer; c.FetchRecords < r.Sent+markers || c.FetchRequests == 0 || in.FetchSizeAvgBytes <= 0 || in.FetchRequestRate <= 0 {
				t.Errorf("consumers fetched %d records in %d requests (%.0f B each, %.1f/s); %d were there", c.FetchRecords, c.FetchRequests, in.FetchSizeAvgBytes, in.FetchRequestRate, r.Sent+markers)
			}
		})
	}
}

// topicBytes is the topic's size in the broker's log directories.
func topicBytes(t *testing.T, brokers []string, topic string) int64 {
	t.Helper()
	admin, err := sarama.NewClusterAdmin(brokers, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = admin.Close() }()
	ids := []int32{}
	bs, _, err := admin.DescribeCluster()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		ids = append(ids, b.ID())
	}
	dirs, err := admin.DescribeLogDirs(ids)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, ds := range dirs {
		for _, d := range ds {
			for _, tp := range d.Topics {
				if tp.Topic != topic {
					continue
				}
				for _, p := range tp.Partitions {
					n += p.Size
				}
			}
		}
	}
	return n
}
