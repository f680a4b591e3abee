package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A consumer worker on Kafka's Java client (workers/consumer's contract): it reads the
 * trial's topic in its group, times each record from its intended send time, records
 * which sequence numbers arrived, and commits every 200 ms with the producers whose
 * end record it has seen on the partition ("m=<hex mask>" as commit metadata). The
 * trial is complete when the group's commits on every partition reach its end and
 * carry every producer's end record.
 */
final class Consumer {
  private static final long COMMIT_NANOS = 200_000_000L;

  /** The client's own statistics (set once it exists). */
  private volatile ClientStats stats;
  private final Args a;
  private final Trial t;
  private final Server srv;
  private final Main.Stop stop;
  private final String name;
  private final long run;
  private final Codecs.Codec codec;

  private final Map<Long, SeqSet> received = new TreeMap<>(); // producer<<32 | partition
  private final long[] masks;
  private final Map<TopicPartition, Long> pending = new HashMap<>();
  private final Hist e2e = Hist.latency(), deser = Hist.duration();
  private final Series series;
  private final Segments segments;
  private long records, warmupRecords, serializedBytes, codecNanos, errors, foreign;
  private String firstError = "";
  private long windowStart, windowEnd;
  private boolean complete;
  private volatile boolean done;
  private volatile String waiting = "not checked yet";

  Consumer(Args a, Trial t, Server srv, Main.Stop stop, String name) throws Exception {
    this.a = a;
    this.t = t;
    this.srv = srv;
    this.stop = stop;
    this.name = name;
    run = Wire.runID(a.group);
    Pool pool = new Pool(a.trial, 0, false);
    codec = Codecs.of(t.codec(), pool.type, new Codecs.Options(a.schemaRegistry, a.topic, false));
    series = new Series(pool.rules);
    segments = new Segments(pool.rules);
    masks = new long[t.partitions()];
  }

  static Properties settings(Trial t) {
    Properties p = new Properties();
    var c = t.consumer;
    p.put("fetch.min.bytes", c.path("fetchMinBytes").asText("1"));
    p.put("fetch.max.wait.ms", c.path("fetchMaxWaitMs").asText("500"));
    p.put("max.partition.fetch.bytes", c.path("maxPartitionFetchBytes").asText("1048576"));
    if (c.path("receiveBufferBytes").asInt() != 0) p.put("receive.buffer.bytes", c.path("receiveBufferBytes").asText());
    if (c.path("sendBufferBytes").asInt() != 0) p.put("send.buffer.bytes", c.path("sendBufferBytes").asText());
    p.put("isolation.level", (t.readCommitted() ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED).toString());
    p.put("group.protocol", t.consumerSetting("groupProtocol").equals("consumer") ? "consumer" : "classic");
    return p;
  }

  /**
   * Runs the trial until the group's commits say it is complete, or it is stopped
   * (SIGTERM, --timeout; every wait then ends within the drain timeout). summary()
   * may be called while this still runs.
   */
  void run() throws Exception {
    Properties props = Kafka.common(a, "serdebench-consumer-" + name);
    props.putAll(settings(t));
    props.put("group.id", a.group);
    props.put("enable.auto.commit", "false");
    props.put("auto.offset.reset", "earliest");
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    props.putAll(ClientStats.CONFIG);
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props);
    stats = ClientStats.consumer(c::metrics);
    srv.watchClient(stats);
    Admin admin = Admin.create(Kafka.common(a, "serdebench-consumer-" + name + "-admin"));
    Thread checker = null;
    try {
      c.subscribe(List.of(a.topic), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> parts) {
          commit(c, parts, true);
          endSegments(parts);
          parts.forEach(pending::remove); // the next owner commits them
        }

        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
          parts.forEach(pending::remove); // an earlier ownership's offsets are another owner's now
          // A partition another member read first: continue its mask of end records.
          for (Map.Entry<TopicPartition, OffsetAndMetadata> e : c.committed(new HashSet<>(parts)).entrySet()) {
            if (e.getValue() != null) masks[e.getKey().partition()] |= mask(e.getValue().metadata());
          }
        }
      });
      // The completion check asks the broker on its own thread, so the poll loop
      // (and the latency it measures) never waits for it.
      checker = Thread.ofPlatform().daemon().name("complete").start(() -> {
        long said = System.nanoTime();
        while (!stop.stopped() && !done) {
          String why = incomplete(admin);
          if (why.isEmpty()) {
            done = true;
            return;
          }
          waiting = why;
          if (System.nanoTime() - said > 30_000_000_000L) {
            said = System.nanoTime();
            Main.log("INFO", "waiting for the trial to complete", "worker", name, "why", why);
          }
          try {
            Thread.sleep(COMMIT_NANOS / 1_000_000);
          } catch (InterruptedException e) {
            return;
          }
        }
      });
      long lastCommit = System.nanoTime();
      while (!stop.stopped() && !done) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) record(r);
        if (System.nanoTime() - lastCommit >= COMMIT_NANOS) {
          commit(c, null, false);
          lastCommit = System.nanoTime();
        }
      }
      synchronized (this) {
        complete = done;
      }
      if (!done) Main.log("WARN", "stopped before the trial was complete", "worker", name, "why", waiting);
      commit(c, null, true);
    } finally {
      if (checker != null) checker.interrupt();
      admin.close(Duration.ZERO);
      stats.freeze();
      c.close(stop.stopped() ? Duration.ofSeconds(1) : Duration.ofSeconds(30));
    }
  }

  private synchronized void record(ConsumerRecord<byte[], byte[]> r) {
    long now = Clock.now();
    int p = r.partition();
    // Every record moves the commit, another run's too: else the group's commit
    // could stop short of the end behind it.
    pending.put(new TopicPartition(r.topic(), p), r.offset() + 1);
    Wire.Fields f = Wire.Fields.of(r.headers());
    if (!f.ours(run)) {
      foreign++;
      return;
    }
    if (f.end) {
      masks[p] |= 1L << (f.producer & 63);
      return;
    }
    segments.track(p, now, f.intended);
    // Backlog counts each record once, when it first arrives.
    boolean first = received.computeIfAbsent(((long) f.producer << 32) | p, k -> new SeqSet()).add(f.seq);
    if (first) series.done(now, !f.warmup);
    byte[] v = r.value() == null ? new byte[0] : r.value();
    long t0 = System.nanoTime();
    try {
      codec.decode(v);
    } catch (Exception e) {
      errors++;
      srv.errors.inc();
      if (firstError.isEmpty()) firstError = "partition " + p + " offset " + r.offset() + ": " + e;
      return;
    }
    long d = System.nanoTime() - t0;
    if (f.warmup) {
      warmupRecords++;
      srv.warmupRecords.inc();
      return;
    }
    long lat = (now - f.intended) / 1000;
    e2e.record(lat);
    series.measured(f.intended, lat);
    if (!first) series.duplicate(f.intended);
    deser.record(d);
    records++;
    serializedBytes += v.length;
    codecNanos += d;
    if (windowStart == 0) windowStart = now;
    windowEnd = now;
    srv.records.inc();
    srv.serializedBytes.inc(v.length);
    srv.codecSeconds.inc(d / 1e9);
    srv.latency.observe(lat / 1e6);
  }

  /**
   * Commits the next offsets of parts (null: every assigned partition read since the
   * last commit) with their masks; sync waits for the answer, else a failed commit is
   * retried with the next one.
   */
  private void commit(KafkaConsumer<byte[], byte[]> c, Collection<TopicPartition> parts, boolean sync) {
    Set<TopicPartition> mine = c.assignment();
    Map<TopicPartition, OffsetAndMetadata> off = new HashMap<>();
    for (Map.Entry<TopicPartition, Long> e : pending.entrySet()) {
      if ((parts == null || parts.contains(e.getKey())) && mine.contains(e.getKey()))
        off.put(e.getKey(), new OffsetAndMetadata(e.getValue(), "m=" + Long.toHexString(masks[e.getKey().partition()])));
    }
    if (off.isEmpty()) return;
    off.keySet().forEach(pending::remove);
    if (!sync) {
      // Its callback runs in a later poll, on this thread: a partition revoked
      // meanwhile is another owner's to commit.
      c.commitAsync(off, (o, e) -> {
        if (e != null) o.forEach((tp, om) -> {
          if (c.assignment().contains(tp)) pending.putIfAbsent(tp, om.offset());
        });
      });
      return;
    }
    try {
      c.commitSync(off, stop.stopped() ? Duration.ofMillis(Math.min(2000, a.drainTimeout.toMillis() / 2)) : Duration.ofSeconds(10));
    } catch (Exception e) {
      Main.log("WARN", "commit failed", "err", e.toString());
      off.forEach((tp, om) -> pending.putIfAbsent(tp, om.offset()));
    }
  }

  /** Why the trial is not complete yet ("" when it is): the group's commits on every partition must carry every producer's end record and reach its end. */
  private String incomplete(Admin admin) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(a.group).partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
      for (int p = 0; p < t.partitions(); p++) {
        TopicPartition tp = new TopicPartition(a.topic, p);
        OffsetAndMetadata om = committed.get(tp);
        if (om == null) return "partition " + p + ": no commit";
        if (Long.bitCount(mask(om.metadata())) < t.producers())
          return "partition " + p + ": committed " + om.offset() + " with the end records of " + om.metadata() + ", of " + t.producers() + " producers";
        ask.put(tp, OffsetSpec.latest());
      }
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(ask).all().get(5, TimeUnit.SECONDS);
      for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
        if (committed.get(e.getKey()).offset() < e.getValue().offset())
          return "partition " + e.getKey().partition() + ": committed " + committed.get(e.getKey()).offset() + " of " + e.getValue().offset();
      }
      return "";
    } catch (Exception e) {
      return "the broker did not answer: " + e; // looked at again at the next tick
    }
  }

  /** The partitions' assignment ended (a revoke): their segments end with it. */
  private synchronized void endSegments(Collection<TopicPartition> parts) {
    segments.end(parts.stream().map(TopicPartition::partition).toList());
  }

  private static long mask(String meta) {
    if (meta == null || !meta.startsWith("m=")) return 0;
    try {
      return Long.parseUnsignedLong(meta.substring(2), 16);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  synchronized long windowStart() { return windowStart; }

  synchronized long windowEnd() { return windowEnd; }

  synchronized long records() { return records; }

  /** The summary of what it counted so far; interrupted unless the trial is complete. */
  synchronized ObjectNode summary() {
    ObjectNode s = Main.summaryHead("consumer", name, a, t);
    s.put("windowStart", Clock.rfc3339(windowStart));
    s.put("windowEnd", Clock.rfc3339(windowEnd));
    s.put("records", records);
    s.put("warmupRecords", warmupRecords);
    s.put("payloadBytes", 0);
    s.put("serializedBytes", serializedBytes);
    s.put("codecNanos", codecNanos);
    s.put("errors", errors);
    if (!firstError.isEmpty()) s.put("firstError", firstError);
    ObjectNode hs = s.putObject("histograms");
    hs.set("e2e_latency_us", e2e.json());
    hs.set("deserialize_ns", deser.json());
    s.set("series", series.json());
    ArrayNode segs = segments.json();
    if (!segs.isEmpty()) s.set("segments", segs);
    ArrayNode rc = s.putArray("received");
    for (Map.Entry<Long, SeqSet> e : received.entrySet())
      rc.add(e.getValue().delivery((int) (e.getKey() >>> 32), (int) (e.getKey() & 0xffffffffL)));
    if (t.readCommitted()) s.put("readCommitted", true);
    if (foreign > 0) s.put("foreign", foreign);
    if (stats != null) s.set("client", stats.json());
    if (codec instanceof Registry.Framed r) s.set("registry", r.cost());
    if (!complete) s.put("interrupted", true);
    return s;
  }

}
