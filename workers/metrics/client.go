package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/serdebench/serdebench/workers/summary"
)

// ClientCounter is one of the Kafka client's own statistics as a counter.
type ClientCounter struct {
	// Name is the series' name after "serdebench_"; Help its help.
	Name, Help string
	// Value reads it from the client's statistics.
	Value func(*summary.ClientStats) float64
}

// ClientCounters are the Kafka client's own statistics as counters, read from the
// client at each scrape: a per-interval figure is a ratio of two increases, e.g.
// records per batch = increase(batch_records_total) / increase(batches_total).
// The help names the Java client's metric each ratio gives (docs/measurement.md).
// Workers of other runtimes serve the same names (workers/conformance checks).
var ClientCounters = []ClientCounter{
	{"client_produce_requests_total", "Produce requests answered. records-per-request-avg: batch_records / this.",
		func(s *summary.ClientStats) float64 { return float64(s.ProduceRequests) }},
	{"client_batches_total", "Partition batches acknowledged. batch-size-avg: batch_bytes / this.",
		func(s *summary.ClientStats) float64 { return float64(s.Batches) }},
	{"client_batch_records_total", "Records in acknowledged batches.",
		func(s *summary.ClientStats) float64 { return float64(s.BatchRecords) }},
	{"client_batch_bytes_total", "Bytes of acknowledged batches as sent (compressed records and the 61-byte batch header).",
		func(s *summary.ClientStats) float64 { return float64(s.BatchBytes) }},
	{"client_samples_total", "Samples of the client's requests in flight and buffer, one per 100 ms.",
		func(s *summary.ClientStats) float64 { return float64(s.InFlightSamples) }},
	{"client_in_flight_requests_sampled_total", "Produce requests in flight, summed over samples. requests-in-flight (mean): this / samples.",
		func(s *summary.ClientStats) float64 { return float64(s.InFlightSum) }},
	{"client_buffered_bytes_sampled_total", "Bytes held in the producer client, summed over samples (franz-go). buffer.memory minus buffer-available-bytes (mean): this / samples.",
		func(s *summary.ClientStats) float64 { return float64(s.BufferedBytesSum) }},
	{"client_buffered_records_sampled_total", "Records held in the producer client, summed over samples (franz-go).",
		func(s *summary.ClientStats) float64 { return float64(s.BufferedRecordsSum) }},
	{"client_fetch_requests_total", "Fetch requests answered. fetch-rate: its rate.",
		func(s *summary.ClientStats) float64 { return float64(s.FetchRequests) }},
	{"client_fetch_bytes_total", "Bytes of fetch responses. fetch-size-avg: this / fetch_requests.",
		func(s *summary.ClientStats) float64 { return float64(s.FetchBytes) }},
	{"client_fetch_records_total", "Records fetched. records per fetch: this / fetch_requests.",
		func(s *summary.ClientStats) float64 { return float64(s.FetchRecords) }},
}

// ClientRequestLatency is the request latency summary's name (no quantiles: its
// _sum over _count is request-latency-avg), requestLatencyHelp its help.
const ClientRequestLatency = "serdebench_client_request_latency_seconds"

const requestLatencyHelp = "Request round trips, from written to answered (franz-go: produce requests; sarama: every request of the producer's client, in whole milliseconds). request-latency-avg: _sum / _count."

// clientCollector reads a client's statistics at each scrape.
type clientCollector struct {
	descs   []*prometheus.Desc
	latency *prometheus.Desc

	mu       sync.Mutex
	snapshot func() *summary.ClientStats
}

func (c *clientCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
	ch <- c.latency
}

func (c *clientCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	snapshot := c.snapshot
	c.mu.Unlock()
	s := snapshot()
	if s == nil {
		return
	}
	for i, series := range ClientCounters {
		ch <- prometheus.MustNewConstMetric(c.descs[i], prometheus.CounterValue, series.Value(s))
	}
	ch <- prometheus.MustNewConstSummary(c.latency, uint64(s.RequestLatencyCount), float64(s.RequestLatencySumMicros)/1e6, nil)
}

// WatchClient exposes the Kafka client's statistics (workers/clientstats'
// Snapshot) with the worker's series. A worker that makes another client (a rate
// search's next step) watches that one instead: its counters start again, which
// Prometheus' rate and increase take as a reset.
func (w *Worker) WatchClient(snapshot func() *summary.ClientStats) {
	w.clientOnce.Do(func() {
		w.client = &clientCollector{snapshot: snapshot,
			latency: prometheus.NewDesc(ClientRequestLatency, requestLatencyHelp, nil, w.constLabels)}
		for _, s := range ClientCounters {
			w.client.descs = append(w.client.descs, prometheus.NewDesc(prometheus.BuildFQName("serdebench", "", s.Name), s.Help, nil, w.constLabels))
		}
		w.reg.MustRegister(w.client)
	})
	w.client.mu.Lock()
	w.client.snapshot = snapshot
	w.client.mu.Unlock()
}
