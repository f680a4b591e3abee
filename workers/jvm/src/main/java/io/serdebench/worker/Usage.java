package io.serdebench.worker;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * What the worker's process spent (workers/usage): CPU time, resident set, Java
 * heap in use and the JIT compilers' time, sampled every 100 ms, and their window
 * over the measured records: times interpolated at the window's bounds, peaks over
 * the samples inside it and the first one after.
 */
final class Usage implements AutoCloseable {
  private record Sample(long at, long cpuNanos, long rss, long heap, long jitMillis) {}

  private static final long PAGE = 4096;
  private final List<Sample> samples = new ArrayList<>();
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
  // Null where the JVM does not time its compilers (HotSpot does): no jitSeconds then.
  private final CompilationMXBean jit = jitTimed();
  private final Thread sampler;
  private volatile boolean stopped;

  Usage() {
    sample();
    sampler = Thread.ofPlatform().daemon().name("usage").start(() -> {
      while (!stopped) {
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
        sample();
      }
    });
  }

  private void sample() {
    long rss = 0;
    try {
      String[] f = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
      rss = Long.parseLong(f[1]) * PAGE;
    } catch (Exception e) {
      // not Linux: no resident set
    }
    Sample s = new Sample(Clock.now(), os.getProcessCpuTime(), rss, mem.getHeapMemoryUsage().getUsed(),
        jit == null ? 0 : jit.getTotalCompilationTime());
    synchronized (samples) {
      samples.add(s);
    }
  }

  @Override
  public void close() {
    stopped = true;
    sampler.interrupt();
    try {
      sampler.join(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sample();
  }

  /** The usage over [from, to] (Unix ns), or null when the samples do not cover it. */
  ObjectNode window(long from, long to) {
    List<Sample> s;
    synchronized (samples) {
      s = new ArrayList<>(samples);
    }
    if (from == 0 || to < from || s.isEmpty() || s.get(0).at > from || s.get(s.size() - 1).at < to) return null;
    long rss = 0, heap = 0;
    boolean after = false;
    for (Sample x : s) {
      if (x.at >= from && !after) {
        rss = Math.max(rss, x.rss);
        heap = Math.max(heap, x.heap);
        if (x.at >= to) after = true;
      }
    }
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("cpuSeconds", (at(s, to, Sample::cpuNanos) - at(s, from, Sample::cpuNanos)) / 1e9);
    o.put("peakRSSBytes", rss);
    if (heap > 0) o.put("peakHeapBytes", heap);
    if (jit != null) o.put("jitSeconds", (at(s, to, Sample::jitMillis) - at(s, from, Sample::jitMillis)) / 1e3);
    o.put("seconds", (to - from) / 1e9);
    return o;
  }

  /** The whole run's usage: the first sample to the last. */
  ObjectNode whole() {
    synchronized (samples) {
      return window(samples.get(0).at, samples.get(samples.size() - 1).at);
    }
  }

  /** A cumulative time of the samples at t, interpolated between the samples around it. */
  private static double at(List<Sample> s, long t, ToLongFunction<Sample> f) {
    for (int i = 1; i < s.size(); i++) {
      Sample a = s.get(i - 1), b = s.get(i);
      if (b.at >= t) {
        if (b.at == a.at) return f.applyAsLong(b);
        return f.applyAsLong(a) + (double) (f.applyAsLong(b) - f.applyAsLong(a)) * (t - a.at) / (b.at - a.at);
      }
    }
    return f.applyAsLong(s.get(s.size() - 1));
  }

  private static CompilationMXBean jitTimed() {
    CompilationMXBean c = ManagementFactory.getCompilationMXBean();
    return c != null && c.isCompilationTimeMonitoringSupported() ? c : null;
  }
}
