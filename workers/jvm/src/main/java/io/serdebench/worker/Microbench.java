package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;

/**
 * {@code worker-jvm microbench --trial <JSON> [--benchtime-ms N]}: the trial's codec in
 * this process, without Kafka, on the records producer 0 sends (serdebench microbench's
 * measurement for the JVM worker's codecs). It prints one JSON line: the mean encoded
 * size, and for encode and decode the wall time, heap bytes allocated (this thread's)
 * and process CPU time (the collector's and compiler's threads too) per record
 * (internal/cli/microbench.Op). Each operation first runs untimed for the bench time
 * and at least WARMUP_OPS calls (unless they take over ten bench times), so that the
 * JIT has compiled its hot paths (C2 compiles a method after about 10^4 calls), then
 * for the bench time timed.
 */
final class Microbench {
  /** The least untimed calls of an operation before it is timed. */
  static final long WARMUP_OPS = 20_000;

  /** Where results go, so that the JIT cannot drop the work that makes them. */
  static volatile Object sink;

  private Microbench() {}

  /** One record's operation: i indexes the pool. */
  private interface Body {
    void run(int i) throws Exception;
  }

  static int run(String[] args) {
    String trialJSON = null;
    long benchNanos = 500_000_000L;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--trial" -> trialJSON = args[i + 1];
        case "--benchtime-ms" -> benchNanos = Long.parseLong(args[i + 1]) * 1_000_000L;
        default -> {
          return usage("unknown flag " + args[i]);
        }
      }
    }
    if (trialJSON == null || args.length % 2 != 0 || benchNanos <= 0) return usage("want --trial <JSON> and a positive --benchtime-ms");
    try {
      Trial t = new Trial(trialJSON);
      if (t.codec().endsWith(Codecs.REGISTRY_SUFFIX)) return usage(t.codec() + ": a registry variant needs a registry; microbench its format's codec");
      Pool pool = new Pool(trialJSON, 0, true);
      Codecs.Codec c = Codecs.of(t.codec(), pool.type, new Codecs.Options("", "", true));
      int n = pool.records.size();
      Object[] natives = new Object[n];
      byte[][] encoded = new byte[n][];
      long bytes = 0;
      for (int i = 0; i < n; i++) {
        natives[i] = c.prepare(pool.records.get(i), pool.lines.get(i));
        encoded[i] = c.encode(natives[i]);
        bytes += encoded[i].length;
      }
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      out.put("encodedBytes", (double) bytes / n);
      out.put("records", n);
      out.set("marshal", measure(i -> sink = c.encode(natives[i]), n, benchNanos));
      out.set("unmarshal", measure(i -> sink = c.decode(encoded[i]), n, benchNanos));
      System.out.println(out);
      return Main.EXIT_OK;
    } catch (Args.UsageException e) {
      return usage(e.getMessage());
    } catch (Exception e) {
      Main.log("ERROR", "microbench failed", "err", e.toString());
      return Main.EXIT_FAILED;
    }
  }

  private static int usage(String why) {
    Main.log("ERROR", "invalid arguments", "err", "microbench: " + why);
    return Main.EXIT_USAGE;
  }

  /**
   * Runs body over the pool untimed (the bench time, and WARMUP_OPS calls unless those
   * take over ten bench times), then timed for nanos: its cost per call.
   */
  private static ObjectNode measure(Body body, int n, long nanos) throws Exception {
    long warm = 0, began = System.nanoTime(), t;
    for (; (t = System.nanoTime()) - began < nanos || (warm < WARMUP_OPS && t - began < 10 * nanos); warm++) body.run((int) (warm % n));
    System.gc(); // the warm-up's garbage is not the timed calls' to collect
    var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long tid = Thread.currentThread().threadId();
    long ops = 0, a0 = threads.getThreadAllocatedBytes(tid), c0 = os.getProcessCpuTime(), t0 = System.nanoTime(), t1;
    // The clock is read once per 64 calls, so that reading it costs the calls little.
    do {
      for (int k = 0; k < 64; k++, ops++) body.run((int) (ops % n));
    } while ((t1 = System.nanoTime()) - t0 < nanos);
    long a1 = threads.getThreadAllocatedBytes(tid), c1 = os.getProcessCpuTime();
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("nsPerOp", (double) (t1 - t0) / ops);
    o.put("bytesPerOp", (a1 - a0) / ops);
    o.put("cpuNsPerOp", (double) (c1 - c0) / ops);
    o.put("ops", ops);
    o.put("warmupOps", warm);
    o.put("warmupNanos", t - began);
    return o;
  }
}
