package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The machine probe (the contract's summary "probe", workers/probe in Go): a fixed
 * serialization loop on one thread (Jackson's encoding and decoding of one fixed
 * record, in blocks long enough to span the schedulers' time slices), a 4 KiB write
 * and its fsync in java.io.tmpdir, and TCP connections to a bootstrap address. The
 * CPU part is the median of its blocks, read before the window and again after it
 * when its thread has the core to itself (recheck: the core's own speed wanders
 * over seconds); fsync and connect are the minimum of their repetitions (their
 * noise only adds). A part that cannot run is left out. Its numbers are this
 * runtime's: a nightly compares them with its own earlier runs.
 */
final class Probe {
  private static final int CPU_BLOCKS = 3, CPU_BLOCK_OPS = 1500, FSYNCS = 15, CONNECTS = 15, CONNECT_LIMIT_MS = 1000;
  private static final int QUIET_TRIES = 4, QUIET_WAIT_MS = 250;
  private static final double QUIET_SHARE = 0.9;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, Object> FIXED = Map.of("id", 90210, "customer", "Ada Lovelace", "email", "ada@example.org",
      "amount", 1234.56, "currency", "EUR", "tags", List.of("priority", "wholesale", "eu-west"),
      "lines", List.of(Map.of("sku", "SKU-0001", "quantity", 3, "price", 19.99), Map.of("sku", "SKU-0420", "quantity", 1, "price", 249.5),
          Map.of("sku", "SKU-1337", "quantity", 12, "price", 2.75), Map.of("sku", "SKU-2048", "quantity", 2, "price", 88)));

  private Probe() {}

  /** The probe as the summary's "probe" object, or null when no part could run. */
  static ObjectNode measure(String bootstrap) {
    ObjectNode p = JSON.createObjectNode();
    try {
      p.put("cpuNanosPerOp", cpu());
    } catch (IOException | RuntimeException e) {
      Main.log("WARN", "machine probe incomplete", "err", "cpu loop: " + e);
    }
    try {
      p.put("fsyncMicros", fsync(Path.of(System.getProperty("java.io.tmpdir"))));
    } catch (IOException | RuntimeException e) {
      Main.log("WARN", "machine probe incomplete", "err", "fsync: " + e);
    }
    try {
      p.put("connectMicros", connect(bootstrap));
    } catch (IOException | RuntimeException e) {
      Main.log("WARN", "machine probe incomplete", "err", "connect: " + e);
    }
    return p.isEmpty() ? null : p;
  }

  /**
   * Reads the CPU part again, after the producer's window, and makes it the
   * geometric mean of both readings (workers/probe's Recheck). The trial's
   * consumers may still be draining: a second reading counts only when its thread
   * was on a CPU for QUIET_SHARE of its wall time, tried QUIET_TRIES times
   * QUIET_WAIT_MS apart; else p is kept, as it is when it has no first reading.
   */
  static void recheck(ObjectNode p) {
    long before = p == null ? 0 : p.path("cpuNanosPerOp").asLong();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    if (before <= 0 || !threads.isCurrentThreadCpuTimeSupported()) return;
    try {
      for (int i = 0; i < QUIET_TRIES; i++) {
        if (i > 0) Thread.sleep(QUIET_WAIT_MS);
        long cpu0 = threads.getCurrentThreadCpuTime(), wall0 = System.nanoTime();
        long after = cpu();
        double share = (double) (threads.getCurrentThreadCpuTime() - cpu0) / Math.max(1, System.nanoTime() - wall0);
        if (share >= QUIET_SHARE) {
          p.put("cpuNanosPerOp", Math.round(Math.sqrt((double) before * after)));
          Main.log("INFO", "machine probe: second CPU reading counted", "cpuNanosPerOp", p.get("cpuNanosPerOp").asText());
          return;
        }
      }
      Main.log("INFO", "machine probe: no quiet moment for a second CPU reading; the first stands");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      Main.log("WARN", "machine probe: second CPU reading failed", "err", "cpu loop: " + e);
    }
  }

  static long cpu() throws IOException {
    long[] per = new long[CPU_BLOCKS];
    long sink = 0;
    for (int b = 0; b < CPU_BLOCKS; b++) {
      long start = System.nanoTime();
      for (int i = 0; i < CPU_BLOCK_OPS; i++) {
        JsonNode back = JSON.readTree(JSON.writeValueAsBytes(FIXED));
        sink += back.size();
      }
      per[b] = (System.nanoTime() - start) / CPU_BLOCK_OPS;
    }
    if (sink == 0) throw new IllegalStateException("cpu loop decoded nothing");
    return median(per);
  }

  static long fsync(Path dir) throws IOException {
    Path f = Files.createTempFile(dir, "serdebench-probe-", "");
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
      long[] per = new long[FSYNCS];
      byte[] block = new byte[4096];
      for (int i = 0; i < FSYNCS; i++) {
        block[0] = (byte) i; // a changed page, every time
        long start = System.nanoTime();
        ch.write(ByteBuffer.wrap(block), 0);
        ch.force(true);
        per[i] = (System.nanoTime() - start) / 1000;
      }
      return Math.max(Arrays.stream(per).min().getAsLong(), 1);
    } finally {
      Files.deleteIfExists(f);
    }
  }

  static long connect(String hostPort) throws IOException {
    int colon = hostPort.lastIndexOf(':');
    InetSocketAddress addr = new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    long[] per = new long[CONNECTS];
    for (int i = 0; i < CONNECTS; i++) {
      long start = System.nanoTime();
      try (Socket s = new Socket()) {
        s.connect(addr, CONNECT_LIMIT_MS);
        per[i] = (System.nanoTime() - start) / 1000;
      }
    }
    return Math.max(Arrays.stream(per).min().getAsLong(), 1);
  }

  private static long median(long[] xs) {
    long[] s = xs.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
