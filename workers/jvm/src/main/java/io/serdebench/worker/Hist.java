package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.Deflater;
import org.HdrHistogram.Histogram;

/**
 * A summary's histogram (workers/summary.Histogram): an HdrHistogram whose JSON is
 * its compressed V2 encoding, so the Go merge adds it exactly. Out-of-range values
 * are clamped to the range and counted, negative ones record as 0. Not thread-safe.
 */
final class Hist {
  /** One hour in microseconds: the latency histograms' range. */
  static final long MAX_LATENCY_MICROS = 3_600_000_000L;
  /** Ten seconds in nanoseconds: the per-record codec times' range. */
  static final long MAX_DURATION_NANOS = 10_000_000_000L;

  final Histogram h;
  long clamped;

  private Hist(long max, int digits) { h = new Histogram(1, max, digits); }

  static Hist latency() { return new Hist(MAX_LATENCY_MICROS, 3); }

  static Hist duration() { return new Hist(MAX_DURATION_NANOS, 3); }

  /** A series bucket's latency (µs) at the series' precision. */
  static Hist interval(int digits) { return new Hist(MAX_LATENCY_MICROS, digits); }

  /** Adds o's values (and its clamped count). */
  void merge(Hist o) {
    h.add(o.h);
    clamped += o.clamped;
  }

  void record(long v) {
    if (v < 0) v = 0;
    if (v > h.getHighestTrackableValue()) {
      v = h.getHighestTrackableValue();
      clamped++;
    }
    h.recordValue(v);
  }

  ObjectNode json() {
    ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int n = h.encodeIntoCompressedByteBuffer(buf, Deflater.DEFAULT_COMPRESSION);
    byte[] b = new byte[n];
    buf.rewind();
    buf.get(b);
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("hdr", Base64.getEncoder().encodeToString(b));
    if (clamped > 0) o.put("clamped", clamped);
    return o;
  }
}
