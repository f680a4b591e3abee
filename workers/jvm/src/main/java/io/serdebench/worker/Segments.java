package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consumer's uninterrupted runs of consumption per partition (workers/summary.Segment,
 * tracked as workers/consumer's segment.go tracks them): a new segment begins when a
 * partition is first received, after its assignment ended, and after a gap of the
 * rules' stall minimum with a record waiting that long. Times are Unix ns. Not
 * thread-safe.
 */
final class Segments {
  private static final class Segment {
    final int partition;
    final long first, firstIntended;
    long last, records, delayed, delayedMaxMicros, delayedSumMicros;

    Segment(int partition, long first, long firstIntended) {
      this.partition = partition;
      this.first = first;
      this.firstIntended = firstIntended;
    }
  }

  private final Series.Rules rules;
  private final Map<Integer, Segment> current = new TreeMap<>();
  private final Map<Integer, List<Segment>> ended = new TreeMap<>();

  Segments(Series.Rules rules) { this.rules = rules; }

  /** One received record of partition p (intended: its intended send time). */
  void track(int p, long now, long intended) {
    Segment s = current.get(p);
    List<Segment> done = ended.computeIfAbsent(p, k -> new ArrayList<>());
    long waited = now - intended, min = rules.stallMinNanos();
    // Past the bound a stall joins the segment it ends: stalls undercounted, never records.
    if (s == null || (now - s.last >= min && waited >= min && done.size() < rules.maxSegments())) {
      if (s != null) done.add(s);
      s = new Segment(p, now, intended);
      current.put(p, s);
    }
    s.last = now;
    s.records++;
    if (intended < s.first) {
      // Waiting when the segment began: after a stall, delayed by it.
      long us = waited / 1000;
      s.delayed++;
      s.delayedSumMicros += us;
      s.delayedMaxMicros = Math.max(s.delayedMaxMicros, us);
    }
  }

  /** The partitions' assignment ended: a later one begins a segment of its own even without a gap. */
  void end(Collection<Integer> parts) {
    for (int p : parts) {
      Segment s = current.remove(p);
      if (s != null) ended.computeIfAbsent(p, k -> new ArrayList<>()).add(s);
    }
  }

  /** Every segment so far, as workers/summary.Segment's JSON. */
  ArrayNode json() {
    ArrayNode out = JsonNodeFactory.instance.arrayNode();
    for (Map.Entry<Integer, List<Segment>> e : ended.entrySet()) {
      e.getValue().forEach(s -> out.add(json(s)));
      Segment s = current.get(e.getKey());
      if (s != null) out.add(json(s));
    }
    return out;
  }

  private static ObjectNode json(Segment s) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("partition", s.partition);
    o.put("first", Clock.rfc3339(s.first));
    o.put("last", Clock.rfc3339(s.last));
    o.put("firstIntended", s.firstIntended);
    o.put("records", s.records);
    o.put("delayed", s.delayed);
    o.put("delayedMaxMicros", s.delayedMaxMicros);
    o.put("delayedSumMicros", s.delayedSumMicros);
    return o;
  }
}
