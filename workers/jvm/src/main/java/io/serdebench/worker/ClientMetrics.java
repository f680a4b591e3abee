package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.util.List;
import java.util.function.Supplier;

/**
 * The client's own statistics (ClientStats) as the contract's serdebench_client_*
 * series, read at each scrape: the names of workers/metrics.ClientCounters and
 * ClientRequestLatency (workers/conformance checks them), each from the summary's
 * field of the same statistic, so the last scrape and the summary agree.
 */
final class ClientMetrics implements MultiCollector {
  /** A counter: its name without the _total the exposition adds, its help, the ClientStats field it reads. */
  private record Counter(String name, String help, String field) {}

  private static final List<Counter> COUNTERS = List.of(
      new Counter("serdebench_client_produce_requests", "Produce requests sent (record-send-total / records-per-request-avg). records-per-request-avg: batch_records / this.", "produceRequests"),
      new Counter("serdebench_client_batches", "Partition batches acknowledged. batch-size-avg: batch_bytes / this.", "batches"),
      new Counter("serdebench_client_batch_records", "Records in acknowledged batches (record-send-total).", "batchRecords"),
      new Counter("serdebench_client_batch_bytes", "Bytes of acknowledged batches as sent (byte-total).", "batchBytes"),
      new Counter("serdebench_client_samples", "Samples of the client's requests in flight and buffer, one per 100 ms.", "inFlightSamples"),
      new Counter("serdebench_client_in_flight_requests_sampled", "requests-in-flight, summed over samples: its mean is this / samples.", "inFlightSum"),
      new Counter("serdebench_client_buffered_bytes_sampled", "buffer.memory minus buffer-available-bytes, summed over samples: its mean is this / samples.", "bufferedBytesSum"),
      new Counter("serdebench_client_buffered_records_sampled", "Records held in the producer client, summed over samples (not kept by the Java client: 0).", "bufferedRecordsSum"),
      new Counter("serdebench_client_fetch_requests", "Fetch requests answered (fetch-total). fetch-rate: its rate.", "fetchRequests"),
      new Counter("serdebench_client_fetch_bytes", "Bytes of fetch responses (bytes-consumed-total). fetch-size-avg: this / fetch_requests.", "fetchBytes"),
      new Counter("serdebench_client_fetch_records", "Records fetched (records-consumed-total). records per fetch: this / fetch_requests.", "fetchRecords"));

  private static final String LATENCY = "serdebench_client_request_latency_seconds";

  private final Labels labels;
  private final Supplier<ClientStats> stats;

  ClientMetrics(Labels labels, Supplier<ClientStats> stats) {
    this.labels = labels;
    this.stats = stats;
  }

  @Override
  public MetricSnapshots collect() {
    ClientStats s = stats.get();
    if (s == null) return MetricSnapshots.of(); // no client yet
    JsonNode j = s.json();
    MetricSnapshots.Builder out = MetricSnapshots.builder();
    for (Counter c : COUNTERS) {
      out.metricSnapshot(CounterSnapshot.builder().name(c.name()).help(c.help())
          .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(j.path(c.field()).asDouble()).build()).build());
    }
    out.metricSnapshot(SummarySnapshot.builder().name(LATENCY)
        .help("Produce request round trips (request-latency-avg times the requests answered). request-latency-avg: _sum / _count.")
        .dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder().labels(labels).count(j.path("requestLatencyCount").asLong())
            .sum(j.path("requestLatencySumMicros").asLong() / 1e6).build()).build());
    return out.build();
  }

  @Override
  public List<String> getPrometheusNames() {
    return java.util.stream.Stream.concat(COUNTERS.stream().map(Counter::name), java.util.stream.Stream.of(LATENCY)).toList();
  }
}
