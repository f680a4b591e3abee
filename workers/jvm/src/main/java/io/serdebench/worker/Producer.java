package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A producer worker on Kafka's Java client (workers/producer's contract): paced from
 * the intended send time (open loop at recordsPerSecond, else closed), warmup by
 * records or time, partitions chosen by the worker (Partitioner) with a sequence number per partition, an
 * end record per partition, and the summary of its measured window.
 */
final class Producer {
  private final Args a;
  private final Trial t;
  private final Server srv;
  private final Main.Stop stop;
  private final int id;
  private final long run;
  private final Codecs.Codec codec;
  private final Pool pool;
  private final Object[] natives;
  private final Partitioner parts;

  // What the callbacks record, under this.
  private final SeqSet[] acked, failed;
  private final Hist ser = Hist.duration(), ack = Hist.latency(), delay = Hist.latency();
  private final Series series;
  private long records, warmupRecords, payloadBytes, serializedBytes, headerBytes, codecNanos, errors;
  private String firstError = "";
  private long windowStart, windowEnd;
  private final AtomicLong outstanding = new AtomicLong();
  private final Map<String, String> eff;
  /** The client's own statistics (set once it exists). */
  private volatile ClientStats stats;
  private long startAt, unacknowledged;
  private boolean frozen, complete;

  Producer(Args a, Trial t, Server srv, Main.Stop stop) throws Exception {
    this.a = a;
    this.t = t;
    this.srv = srv;
    this.stop = stop;
    try {
      id = Integer.parseInt(a.id.isEmpty() ? "0" : a.id);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--id " + a.id + ": a producer's id is its index");
    }
    run = Wire.runID(a.group);
    pool = new Pool(a.trial, id, true);
    series = new Series(pool.rules);
    codec = Codecs.of(t.codec(), pool.type, new Codecs.Options(a.schemaRegistry, a.topic, true));
    natives = new Object[pool.records.size()];
    for (int i = 0; i < natives.length; i++) natives[i] = codec.prepare(pool.records.get(i), pool.lines.get(i));
    eff = settings(t);
    int largest = 0;
    for (Object n : natives) largest = Math.max(largest, codec.encode(n).length); // untimed
    // A record larger than the client's default request limit still goes, as the Go
    // workers size their limit from the largest record; the broker's own limit
    // (the topic's max.message.bytes) stays the broker's to enforce.
    eff.put("max.request.size", Integer.toString(Math.max(1_048_576, largest + 1024)));
    eff.putAll(ClientStats.CONFIG);
    parts = new Partitioner(t.settings.path("partitioner").asText(""), t.partitions(), t.settings.path("batchSizeBytes").asInt(), t.compactHeaders(),
        t.partitionSeed(id));
    acked = new SeqSet[t.partitions()];
    failed = new SeqSet[t.partitions()];
    for (int p = 0; p < acked.length; p++) {
      acked[p] = new SeqSet();
      failed[p] = new SeqSet();
    }
  }

  /** The Java client's settings for the trial: its own names, as the summary reports them. */
  static Map<String, String> settings(Trial t) {
    Map<String, String> s = new TreeMap<>();
    boolean single = t.mode().equals("single");
    s.put("acks", t.acks());
    s.put("compression.type", t.settings.path("compression").asText());
    // Single mode waits for each acknowledgement, so nothing is ever batched.
    s.put("batch.size", single ? "0" : t.settings.path("batchSizeBytes").asText());
    s.put("linger.ms", single ? "0" : t.settings.path("lingerMs").asText());
    s.put("max.in.flight.requests.per.connection", t.settings.path("maxInFlight").asText());
    s.put("enable.idempotence", Boolean.toString(t.settings.path("idempotent").asBoolean()));
    int snd = t.settings.path("sendBufferBytes").asInt(), rcv = t.settings.path("receiveBufferBytes").asInt();
    if (snd != 0) s.put("send.buffer.bytes", Integer.toString(snd));
    if (rcv != 0) s.put("receive.buffer.bytes", Integer.toString(rcv));
    return s;
  }

  /**
   * Runs the trial. Every wait is bounded by the stop flag (SIGTERM, --timeout): once
   * stopped, what is in flight has --drain-timeout to be acknowledged, then the
   * rest is unacknowledged and the client closes at once. summary() may be called
   * while this still runs (a worker that did not return in time).
   */
  void run() throws Exception {
    Properties props = Kafka.common(a, "serdebench-producer-" + id);
    props.putAll(eff);
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(props);
    stats = ClientStats.producer(prod::metrics, new ProducerConfig(props).getLong(ProducerConfig.BUFFER_MEMORY_CONFIG));
    srv.watchClient(stats);
    try {
      prod.partitionsFor(a.topic); // connect and find the topic before the schedule (bounded by max.block.ms)
      if (a.waitForGroup) waitForGroup();
      if (a.startGate) {
        long at = srv.awaitStart(a.waitTimeout, stop::stopped);
        if (at == 0 && !stop.stopped()) throw new IllegalStateException("no start within --wait-timeout " + a.waitTimeout);
        synchronized (this) {
          startAt = at;
        }
      }
      send(prod, startAt);
      if (!stop.stopped() && idle(Long.MAX_VALUE)) {
        endRecords(prod);
        synchronized (this) {
          complete = !stop.stopped();
        }
      }
    } finally {
      if (stop.stopped()) idle(a.drainTimeout.toNanos());
      synchronized (this) {
        // What the forced close aborts was neither acknowledged nor failed: it is
        // unacknowledged, and its callbacks count nothing.
        frozen = true;
        unacknowledged = outstanding.get();
      }
      stats.freeze();
      prod.close(stop.stopped() ? Duration.ZERO : a.drainTimeout);
    }
  }

  /** Waits until nothing is in flight, at most nanos or until stopped (when nanos is unbounded); true when idle. */
  private boolean idle(long nanos) throws InterruptedException {
    long deadline = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + nanos;
    while (outstanding.get() > 0) {
      if ((nanos == Long.MAX_VALUE && stop.stopped()) || System.nanoTime() > deadline) return false;
      Thread.sleep(1);
    }
    return true;
  }

  /** Waits until the group is Stable with the trial's consumers; errors are retried until --wait-timeout. */
  private void waitForGroup() throws Exception {
    long deadline = System.nanoTime() + a.waitTimeout.toNanos();
    Admin admin = Admin.create(Kafka.common(a, "serdebench-producer-" + id + "-admin"));
    try {
      String last = "not asked yet";
      while (!stop.stopped()) {
        try {
          ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(a.group)).all().get(10, TimeUnit.SECONDS).get(a.group);
          if (d.groupState() == GroupState.STABLE && d.members().size() == t.consumers()) return;
          last = d.groupState() + " with " + d.members().size() + " members";
        } catch (ExecutionException | TimeoutException e) {
          last = e.getCause() instanceof GroupIdNotFoundException ? "not formed yet" : e.toString(); // asked again
        }
        if (System.nanoTime() > deadline)
          throw new IllegalStateException("group " + a.group + " not Stable with " + t.consumers() + " consumers within --wait-timeout (" + last + ")");
        Thread.sleep(200);
      }
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  private void send(KafkaProducer<byte[], byte[]> prod, long startAt) throws Exception {
    long start = Clock.now();
    if (startAt > start) {
      if (!Clock.sleepUntil(startAt, stop::stopped)) return;
      start = startAt;
    }
    long rate = t.recordsPerSecond(), warmupRecs = t.warmupRecords(), want = t.records();
    long durNanos = t.durationSeconds() * 1_000_000_000L;
    long measureStart = start + t.warmupSeconds() * 1_000_000_000L;
    boolean single = t.mode().equals("single"), compact = t.compactHeaders();
    boolean windowStarted = false;
    if (rate > 0) {
      // An open loop's schedule fixes when its window begins: say so now, not with its
      // first measured send, which a stalled warmup can hold back past a fault timed
      // from the window (the Go worker's firstMeasured).
      long i0 = Math.max(warmupRecs, Math.multiplyExact(measureStart - start, rate) / 1_000_000_000L - 1);
      while (i0 > warmupRecs && start + Math.multiplyExact(i0 - 1, 1_000_000_000L) / rate >= measureStart) i0--;
      while (start + Math.multiplyExact(i0, 1_000_000_000L) / rate < measureStart) i0++;
      measureStart = start + Math.multiplyExact(i0, 1_000_000_000L) / rate;
      windowStarted = true;
      Main.log("INFO", "measured window started", "windowStart", Clock.rfc3339(measureStart));
    }
    long measuredSent = 0;
    long[] seqs = new long[t.partitions()];
    for (long i = 0; ; i++) {
      if (stop.stopped()) return;
      long intended;
      if (rate > 0) {
        intended = start + Math.multiplyExact(i, 1_000_000_000L) / rate;
        if (!Clock.sleepUntil(intended, stop::stopped)) return;
      } else {
        intended = Clock.now();
      }
      boolean warmup = i < warmupRecs || intended < measureStart;
      if (!warmup) {
        if (!windowStarted) {
          windowStarted = true;
          if (rate > 0 || i <= warmupRecs) measureStart = intended;
          Main.log("INFO", "measured window started", "windowStart", Clock.rfc3339(measureStart));
        }
        if ((want > 0 && measuredSent >= want) || (durNanos > 0 && intended - measureStart >= durNanos)) return;
        measuredSent++;
      }
      int idx = (int) (i % natives.length);
      long actual = rate > 0 ? Clock.now() : intended;
      long t0 = System.nanoTime();
      byte[] value;
      try {
        value = codec.encode(natives[idx]);
      } catch (Exception e) {
        throw new IllegalStateException("serialize record " + idx + ": " + e, e);
      }
      long serNanos = System.nanoTime() - t0;
      // A warmup mark is a sixth header (key, value and two lengths), which the
      // sticky rule counts as the Go worker does; the compact set carries it in its flags.
      int p = parts.next(value.length + (warmup && !compact ? Wire.WARMUP.length() + 1 + 2 : 0));
      long seq = seqs[p]++;
      Headers h = Wire.data(id, seq, intended, actual, run, warmup, compact);
      outstanding.incrementAndGet();
      Future<RecordMetadata> f = prod.send(new ProducerRecord<>(a.topic, p, null, null, value, h),
          callback(p, seq, intended, actual, warmup, measureStart, serNanos, value.length, Wire.bytes(h), pool.lines.get(idx).length));
      if (single) {
        while (!f.isDone() && !stop.stopped()) Thread.sleep(0, 100_000);
      }
    }
  }

  private Callback callback(int p, long seq, long intended, long actual, boolean warmup, long measureStart, long serNanos,
      int valueBytes, int hdrBytes, int jsonBytes) {
    return (md, e) -> {
      long now = Clock.now();
      synchronized (this) {
        if (frozen) return; // the forced close's abort: unacknowledged, counted already
        if (e != null) {
          failed[p].add(seq);
          if (!warmup) {
            series.offered(intended);
            series.seq(intended, p, seq);
            series.failure(now);
          }
          errors++;
          srv.errors.inc();
          if (firstError.isEmpty()) firstError = e.toString();
        } else if (warmup) {
          acked[p].add(seq);
          series.done(now, false);
          warmupRecords++;
          srv.warmupRecords.inc();
        } else {
          acked[p].add(seq);
          series.done(now, true);
          records++;
          serializedBytes += valueBytes;
          headerBytes += hdrBytes;
          payloadBytes += jsonBytes;
          codecNanos += serNanos;
          ser.record(serNanos);
          long lat = (now - intended) / 1000;
          ack.record(lat);
          series.measured(intended, lat);
          series.seq(intended, p, seq);
          delay.record((actual - intended) / 1000);
          if (windowStart == 0) windowStart = measureStart;
          windowEnd = Math.max(windowEnd, now);
          srv.records.inc();
          srv.serializedBytes.inc(valueBytes);
          srv.codecSeconds.inc(serNanos / 1e9);
          srv.latency.observe(lat / 1e6);
        }
      }
      outstanding.decrementAndGet();
    };
  }

  /** One end record per partition, re-sent with doubling pauses (0.2–2 s) for up to delivery.timeout.ms. */
  private void endRecords(KafkaProducer<byte[], byte[]> prod) throws Exception {
    long[] sent = new long[t.partitions()];
    synchronized (this) {
      for (int p = 0; p < sent.length; p++) sent[p] = acked[p].total() + failed[p].total();
    }
    List<Integer> todo = new ArrayList<>();
    for (int p = 0; p < sent.length; p++) todo.add(p);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    long pause = 200;
    Exception last = null;
    while (!todo.isEmpty()) {
      List<Future<RecordMetadata>> fs = new ArrayList<>();
      for (int p : todo) fs.add(prod.send(new ProducerRecord<>(a.topic, p, null, null, null, Wire.end(id, sent[p], run, t.compactHeaders()))));
      List<Integer> again = new ArrayList<>();
      for (int i = 0; i < fs.size(); i++) {
        while (!fs.get(i).isDone()) {
          if (stop.stopped()) return;
          Thread.sleep(1);
        }
        try {
          fs.get(i).get();
        } catch (ExecutionException e) {
          again.add(todo.get(i));
          last = e;
        }
      }
      todo = again;
      if (todo.isEmpty() || stop.stopped()) break;
      if (System.nanoTime() > deadline) throw new IllegalStateException("end records of partitions " + todo + " failed: " + last, last);
      Thread.sleep(pause);
      pause = Math.min(pause * 2, 2000);
    }
  }

  /** The summary of what the callbacks counted so far; interrupted unless the trial is complete. */
  synchronized ObjectNode summary() {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode s = Main.summaryHead("producer", Integer.toString(id), a, t);
    s.put("windowStart", Clock.rfc3339(windowStart));
    s.put("windowEnd", Clock.rfc3339(windowEnd));
    s.put("records", records);
    s.put("warmupRecords", warmupRecords);
    s.put("payloadBytes", payloadBytes);
    s.put("serializedBytes", serializedBytes);
    if (startAt > 0) s.put("startAt", Clock.rfc3339(startAt));
    if (!t.mode().equals("single")) {
      long linger = t.settings.path("lingerMs").asLong() * 1000;
      if (linger > 0) s.put("lingerMicros", linger);
    }
    s.put("headerBytes", headerBytes);
    s.put("codecNanos", codecNanos);
    s.put("errors", errors);
    if (!firstError.isEmpty()) s.put("firstError", firstError);
    ObjectNode hs = s.putObject("histograms");
    hs.set("serialize_ns", ser.json());
    hs.set("ack_latency_us", ack.json());
    hs.set("send_delay_us", delay.json());
    s.set("series", series.json());
    s.set("acked", deliveries(acked));
    ArrayNode fl = deliveries(failed);
    if (!fl.isEmpty()) s.set("failed", fl);
    long unacked = frozen ? unacknowledged : outstanding.get();
    if (unacked > 0) s.put("unacknowledged", unacked);
    ObjectNode cs = s.putObject("clientSettings");
    cs.put("client", Main.CLIENT);
    cs.put("kafka-clients", Main.KAFKA_CLIENTS_VERSION);
    cs.put("java", Runtime.version().toString());
    cs.put("partitioner", parts.name());
    eff.forEach(cs::put);
    if (stats != null) s.set("client", stats.json());
    if (codec instanceof Registry.Framed r) s.set("registry", r.cost());
    if (!complete) s.put("interrupted", true);
    return s;
  }

  private ArrayNode deliveries(SeqSet[] sets) {
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (int p = 0; p < sets.length; p++) {
      if (sets[p].distinct() > 0) out.add(sets[p].delivery(id, p));
    }
    return out;
  }

  synchronized long windowStart() { return windowStart; }

  synchronized long windowEnd() { return windowEnd; }
}
