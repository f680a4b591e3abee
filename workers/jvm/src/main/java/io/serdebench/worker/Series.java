package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;

/**
 * One worker's measurements per interval of wall-clock time (workers/summary.Series):
 * buckets aligned to multiples of their width since the Unix epoch, so that every
 * worker's line up and the Go merge adds them exactly; past the rules' bound they
 * merge pairwise into buckets twice as wide. Times are Unix ns. Not thread-safe.
 */
final class Series {
  /** workers/summary's rules for series and segments, as cmd/pool hands them over (SeriesRules). */
  record Rules(long intervalSeconds, int maxBuckets, int digits, long stallMinNanos, int maxSegments) {
    static Rules of(JsonNode n) {
      Rules r = new Rules(n.path("intervalSeconds").asLong(), n.path("maxBuckets").asInt(), n.path("digits").asInt(),
          n.path("stallMinMicros").asLong() * 1000, n.path("maxSegments").asInt());
      if (r.intervalSeconds <= 0 || r.maxBuckets <= 0 || r.digits <= 0 || r.stallMinNanos <= 0 || r.maxSegments <= 0)
        throw new IllegalStateException("cmd/pool's series rules " + n + ": missing or not positive (a pool older than this worker?)");
      return r;
    }
  }

  /** One interval of one worker (workers/summary.Bucket). */
  private static final class Bucket {
    long records, done, doneMeasured, duplicates, failures;
    /** Unix ns of the earliest failure; 0: none. */
    long firstFailure;
    Hist latency;
    TreeMap<Integer, Long> firstSeq;
  }

  private final Rules rules;
  private long width;
  private TreeMap<Long, Bucket> buckets = new TreeMap<>();
  // The last bucket asked for: records come in time order, so nearly every call is
  // for it (a producer's acknowledgement asks three times), and a TreeMap lookup
  // per call showed in the producer's profile at 20,000 records/s.
  private long lastKey = Long.MIN_VALUE;
  private Bucket last;

  Series(Rules rules) {
    this.rules = rules;
    width = Math.max(rules.intervalSeconds(), 1);
  }

  /** A measured record intended at intended with its latency (acknowledgement or end-to-end). */
  void measured(long intended, long latMicros) {
    Bucket b = bucket(intended);
    b.records++;
    if (b.latency == null) b.latency = Hist.interval(rules.digits());
    b.latency.record(latMicros);
  }

  /** A measured record due at intended whose send failed: offered load, not achieved. */
  void offered(long intended) { bucket(intended).records++; }

  /** A producer's measured record due at intended went to partition with sequence number seq. */
  void seq(long intended, int partition, long seq) {
    Bucket b = bucket(intended);
    if (b.firstSeq == null) b.firstSeq = new TreeMap<>();
    b.firstSeq.merge(partition, seq, Math::min);
  }

  /** An extra copy received of a measured record due at intended. */
  void duplicate(long intended) { bucket(intended).duplicates++; }

  /** A measured record whose send failed at at. */
  void failure(long at) {
    Bucket b = bucket(at);
    b.failures++;
    if (b.firstFailure == 0 || at < b.firstFailure) b.firstFailure = at;
  }

  /** One of the trial's records acknowledged or first received at at. */
  void done(long at, boolean measured) {
    Bucket b = bucket(at);
    b.done++;
    if (measured) b.doneMeasured++;
  }

  private Bucket bucket(long unixNanos) {
    long k = Math.floorDiv(Math.floorDiv(unixNanos, 1_000_000_000L), width) * width;
    if (k == lastKey && last != null) return last;
    Bucket b = buckets.get(k);
    if (b != null) {
      lastKey = k;
      last = b;
      return b;
    }
    if (buckets.size() >= rules.maxBuckets()) {
      coarsen(width * 2);
      return bucket(unixNanos);
    }
    b = new Bucket();
    buckets.put(k, b);
    lastKey = k;
    last = b;
    return b;
  }

  /** Re-buckets at w (a multiple of the width). */
  private void coarsen(long w) {
    TreeMap<Long, Bucket> old = buckets;
    width = w;
    buckets = new TreeMap<>();
    last = null;
    old.forEach((k, b) -> add(Math.floorDiv(k, w) * w, b));
  }

  private void add(long k, Bucket b) {
    Bucket d = buckets.computeIfAbsent(k, x -> new Bucket());
    d.records += b.records;
    d.done += b.done;
    d.doneMeasured += b.doneMeasured;
    d.duplicates += b.duplicates;
    d.failures += b.failures;
    if (b.firstFailure != 0 && (d.firstFailure == 0 || b.firstFailure < d.firstFailure)) d.firstFailure = b.firstFailure;
    if (b.firstSeq != null) {
      if (d.firstSeq == null) d.firstSeq = new TreeMap<>();
      b.firstSeq.forEach((p, s) -> d.firstSeq.merge(p, s, Math::min));
    }
    if (b.latency != null) {
      if (d.latency == null) d.latency = Hist.interval(rules.digits());
      d.latency.merge(b.latency);
    }
  }

  /** The series as workers/summary.Series's JSON. */
  ObjectNode json() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("widthSeconds", width);
    ObjectNode bs = o.putObject("buckets");
    for (Map.Entry<Long, Bucket> e : buckets.entrySet()) {
      Bucket b = e.getValue();
      ObjectNode j = bs.putObject(Long.toString(e.getKey()));
      j.put("records", b.records);
      if (b.latency != null) j.set("latencyMicros", b.latency.json());
      j.put("done", b.done);
      j.put("doneMeasured", b.doneMeasured);
      if (b.firstSeq != null) {
        ObjectNode fs = j.putObject("firstSeq");
        b.firstSeq.forEach((p, s) -> fs.put(Integer.toString(p), s));
      }
      if (b.duplicates > 0) j.put("duplicates", b.duplicates);
      if (b.failures > 0) j.put("failures", b.failures);
      if (b.firstFailure != 0) j.put("firstFailure", Clock.rfc3339(b.firstFailure));
    }
    return o;
  }
}
