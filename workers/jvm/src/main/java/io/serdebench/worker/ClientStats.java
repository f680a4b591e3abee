package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The Java client's own statistics as the summary's {@code client}
 * (workers/summary.ClientStats, which the result derives the Java names from again).
 * Counts come from the client's cumulative metrics (record-send-total, byte-total,
 * fetch-total), sums from its averages times those counts: CONFIG makes an average
 * span the worker's whole run, as the Go workers' sums do. Requests in flight and
 * buffered bytes are sampled every 100 ms, as the Go workers sample them.
 */
final class ClientStats {
  /** The client configuration that makes its averages span the run: one sample window of a day. */
  static final Map<String, String> CONFIG = Map.of("metrics.sample.window.ms", "86400000", "metrics.num.samples", "2");

  private final Supplier<Map<MetricName, ? extends Metric>> metrics;
  private final boolean producer;
  private final long bufferMemory;
  private final long born = System.nanoTime();
  private final ScheduledExecutorService sampler;
  private long inFlightMax, inFlightSum, bufferedMax, bufferedSum, samples;
  private ObjectNode frozen;

  private ClientStats(Supplier<Map<MetricName, ? extends Metric>> metrics, boolean producer, long bufferMemory) {
    this.metrics = metrics;
    this.producer = producer;
    this.bufferMemory = bufferMemory;
    sampler = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("client-stats").unstarted(r));
    if (producer) sampler.scheduleAtFixedRate(this::sample, 100, 100, TimeUnit.MILLISECONDS);
  }

  /** A producer's statistics; bufferMemory is its buffer.memory. */
  static ClientStats producer(Supplier<Map<MetricName, ? extends Metric>> metrics, long bufferMemory) {
    return new ClientStats(metrics, true, bufferMemory);
  }

  /** A consumer's statistics. */
  static ClientStats consumer(Supplier<Map<MetricName, ? extends Metric>> metrics) {
    return new ClientStats(metrics, false, 0);
  }

  private synchronized void sample() {
    if (frozen != null) return;
    long inFlight = (long) value("producer-metrics", "requests-in-flight");
    long buffered = bufferMemory - (long) value("producer-metrics", "buffer-available-bytes");
    inFlightMax = Math.max(inFlightMax, inFlight);
    inFlightSum += inFlight;
    bufferedMax = Math.max(bufferedMax, buffered);
    bufferedSum += buffered;
    samples++;
  }

  /** Stops sampling and keeps what the client did: before it closes (its metrics close with it). */
  synchronized ObjectNode freeze() {
    if (frozen == null) {
      sampler.shutdownNow();
      frozen = read();
    }
    return frozen;
  }

  /** What the client did so far (frozen once the client closes; metrics() takes no consumer lock). */
  synchronized ObjectNode json() { return frozen != null ? frozen : read(); }

  private ObjectNode read() {
    ObjectNode s = JsonNodeFactory.instance.objectNode();
    if (producer) {
      long records = (long) value("producer-metrics", "record-send-total");
      double perRequest = value("producer-metrics", "records-per-request-avg");
      long requests = perRequest > 0 ? Math.round(records / perRequest) : 0;
      long bytes = (long) sum("producer-topic-metrics", "byte-total");
      double perBatch = value("producer-metrics", "batch-size-avg");
      long batches = perBatch > 0 ? Math.round(bytes / perBatch) : 0;
      put(s, "produceRequests", requests);
      put(s, "batches", batches);
      put(s, "batchRecords", records);
      put(s, "batchBytes", bytes);
      double rate = value("producer-metrics", "compression-rate-avg");
      if (rate > 0 && batches > 0) {
        s.put("compressionRateSum", rate * batches);
        put(s, "compressionRateCount", batches);
      }
      // With acks=0 no response comes: no latency is recorded (the average is NaN),
      // and none is reported.
      double latency = value("producer-metrics", "request-latency-avg");
      if (latency > 0) {
        put(s, "requestLatencySumMicros", Math.round(latency * 1000 * requests));
        put(s, "requestLatencyMaxMicros", Math.round(value("producer-metrics", "request-latency-max") * 1000));
        put(s, "requestLatencyCount", requests);
      }
      put(s, "inFlightMax", inFlightMax);
      put(s, "inFlightSum", inFlightSum);
      put(s, "inFlightSamples", samples);
      put(s, "bufferedBytesMax", bufferedMax);
      put(s, "bufferedBytesSum", bufferedSum);
    } else {
      long fetches = (long) value("consumer-fetch-manager-metrics", "fetch-total");
      put(s, "fetchRequests", fetches);
      put(s, "fetchBytes", (long) value("consumer-fetch-manager-metrics", "bytes-consumed-total"));
      put(s, "fetchRecords", (long) value("consumer-fetch-manager-metrics", "records-consumed-total"));
      double secs = (System.nanoTime() - born) / 1e9;
      if (fetches > 0 && secs > 0) s.put("fetchRequestRate", fetches / secs);
    }
    return s;
  }

  /** Adds a count, leaving zero out as the Go summary does (omitempty). */
  private static void put(ObjectNode s, String key, long v) {
    if (v != 0) s.put(key, v);
  }

  /** The client-wide metric of group (no topic or partition tag): 0 when absent or not a finite number. */
  private double value(String group, String name) {
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.get().entrySet()) {
      MetricName n = e.getKey();
      if (n.group().equals(group) && n.name().equals(name) && !n.tags().containsKey("topic") && !n.tags().containsKey("partition"))
        return finite(e.getValue().metricValue());
    }
    return 0;
  }

  /** The metric of group summed over its tags (a producer's topics). */
  private double sum(String group, String name) {
    double total = 0;
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.get().entrySet())
      if (e.getKey().group().equals(group) && e.getKey().name().equals(name)) total += finite(e.getValue().metricValue());
    return total;
  }

  private static double finite(Object v) {
    return v instanceof Number n && Double.isFinite(n.doubleValue()) ? n.doubleValue() : 0;
  }
}
