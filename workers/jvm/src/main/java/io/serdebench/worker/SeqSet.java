package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;

/** A set of sequence numbers as half-open intervals (workers/summary.Intervals). Not thread-safe. */
final class SeqSet {
  private final TreeMap<Long, Long> iv = new TreeMap<>(); // from -> to (exclusive)
  private long total;

  /** Adds seq; true when it was not in the set. Total counts every add. */
  boolean add(long seq) {
    total++;
    Map.Entry<Long, Long> lo = iv.floorEntry(seq);
    if (lo != null && seq < lo.getValue()) return false;
    long from = seq, to = seq + 1;
    if (lo != null && lo.getValue() == seq) {
      from = lo.getKey();
    }
    Long next = iv.get(to);
    if (next != null) {
      iv.remove(to);
      to = next;
    }
    iv.put(from, to);
    return true;
  }

  long total() { return total; }

  long distinct() {
    long n = 0;
    for (Map.Entry<Long, Long> e : iv.entrySet()) n += e.getValue() - e.getKey();
    return n;
  }

  /** The set as a summary's delivery of one producer on one partition (workers/summary.Delivery). */
  ObjectNode delivery(int producer, int partition) {
    ObjectNode d = JsonNodeFactory.instance.objectNode();
    d.put("producer", producer);
    d.put("partition", partition);
    d.put("total", total);
    d.set("intervals", json());
    return d;
  }

  ArrayNode json() {
    ArrayNode a = JsonNodeFactory.instance.arrayNode();
    for (Map.Entry<Long, Long> e : iv.entrySet()) a.addArray().add(e.getKey()).add(e.getValue());
    return a;
  }
}
