package io.serdebench.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;

/**
 * serdebench's JVM worker: a producer or consumer on Kafka's Java client that speaks
 * the worker contract (docs/worker-contract.md) as cmd/worker does. It prints its
 * summary as the last line of stdout (and to --summary-file and --termination-log)
 * and exits 0 once the trial is complete; on SIGTERM or --timeout it stops, waits at
 * most --drain-timeout for what is in flight, prints its partial summary marked
 * interrupted and exits 3; errors exit 1; arguments or a trial it was not built for
 * exit 2.
 */
public final class Main {
  /** The client name of this worker's trials (settings.client). */
  static final String CLIENT = "java";

  /**
   * The Kafka client library's version, from the properties file kafka-clients ships
   * (its own AppInfoParser reads the same file, but moved to an internal package in
   * 4.4: the file is the stable part).
   */
  static final String KAFKA_CLIENTS_VERSION = kafkaClientsVersion();

  private static String kafkaClientsVersion() {
    try (var in = org.apache.kafka.clients.producer.KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      var p = new java.util.Properties();
      if (in != null) p.load(in);
      return p.getProperty("version", "unknown");
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  static final int EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 3;
  private static final long STOP_GRACE_NANOS = 5_000_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PrintStream ERR = new PrintStream(System.err, true, StandardCharsets.UTF_8);

  /** Whether the worker was told to stop (SIGTERM, SIGINT, --timeout). */
  static final class Stop {
    private volatile boolean stopped;

    boolean stopped() { return stopped; }

    void stop() { stopped = true; }
  }

  private Main() {}

  public static void main(String[] argv) {
    System.exit(run(argv));
  }

  static int run(String[] argv) {
    if (argv.length > 0 && argv[0].equals("wire")) return WireTool.run(java.util.Arrays.copyOfRange(argv, 1, argv.length));
    if (argv.length > 0 && argv[0].equals("microbench")) return Microbench.run(java.util.Arrays.copyOfRange(argv, 1, argv.length));
    Args a;
    Trial t;
    try {
      a = Args.parse(argv);
      t = new Trial(a.trial);
      String why = t.refusal(a.role);
      if (why != null) throw new Args.UsageException(why);
      if (t.codec().endsWith(Codecs.REGISTRY_SUFFIX)) Registry.nativeAPI(a.schemaRegistry);
      Kafka.common(a, "check"); // security flags it cannot honour are usage errors too
    } catch (Args.UsageException e) {
      log("ERROR", "invalid arguments", "err", e.getMessage());
      return EXIT_USAGE;
    }
    Stop stop = new Stop();
    Signal.handle(new Signal("TERM"), s -> stop.stop());
    Signal.handle(new Signal("INT"), s -> stop.stop());
    long begun = System.nanoTime();
    String name = a.role.equals("consumer") && a.id.isEmpty() ? "c0" : a.id;
    Server srv;
    try {
      srv = a.metricsAddr.isEmpty() ? null : new Server(a, t, name, a.startGate && a.role.equals("producer"));
    } catch (Exception e) {
      log("ERROR", "worker failed", "role", a.role, "trial", t.name(), "err", "serve metrics on " + a.metricsAddr + ": " + e);
      return EXIT_FAILED;
    }
    if (srv != null) log("INFO", "serving metrics", "addr", a.metricsAddr);
    Server metrics = srv != null ? srv : Server.none(a, t, name);
    Usage usage = new Usage();
    AtomicReference<Producer> producer = new AtomicReference<>();
    AtomicReference<Consumer> consumer = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicReference<ObjectNode> probe = new AtomicReference<>();
    Thread work = Thread.ofPlatform().daemon().name("work").start(() -> {
      try {
        if (a.role.equals("producer")) {
          // Producer 0 of a trial measures its machine before it connects: two
          // probes at once would measure each other.
          if (a.id.equals("0") && !a.bootstrap.isEmpty()) probe.set(Probe.measure(a.bootstrap.get(0)));
          producer.set(new Producer(a, t, metrics, stop));
          producer.get().run();
          // The CPU part's second reading, after a window that ran to its end.
          if (!stop.stopped()) Probe.recheck(probe.get());
        } else {
          consumer.set(new Consumer(a, t, metrics, stop, name));
          consumer.get().run();
        }
      } catch (Throwable e) {
        failure.set(e);
      }
    });
    long timeout = a.timeout.toNanos();
    try {
      while (work.isAlive()) {
        work.join(100);
        if (timeout > 0 && System.nanoTime() - begun > timeout) stop.stop();
        if (stop.stopped()) {
          work.join((a.drainTimeout.toNanos() + STOP_GRACE_NANOS) / 1_000_000);
          break;
        }
      }
    } catch (InterruptedException e) {
      stop.stop();
    }
    // The last sample closes the usage window: only then is it known.
    usage.close();
    ObjectNode sum = null;
    if (producer.get() != null) {
      Producer p = producer.get();
      sum = p.summary();
      sum.set("usage", window(usage, p.windowStart(), p.windowEnd(), sum.path("records").asLong()));
    } else if (consumer.get() != null) {
      Consumer c = consumer.get();
      sum = c.summary();
      sum.set("usage", window(usage, c.windowStart(), c.windowEnd(), c.records()));
    }
    if (sum != null) sum.set("build", build());
    if (sum != null && probe.get() != null) sum.set("probe", probe.get());
    if (srv != null) {
      metrics.done.set(1);
      if (sum != null) srv.finish(a.metricsGrace);
      else srv.stopNow();
    }
    if (sum != null) {
      try {
        write(a, sum);
      } catch (Exception e) {
        log("ERROR", "worker failed", "role", a.role, "trial", t.name(), "err", "write the summary: " + e);
        return EXIT_FAILED;
      }
    }
    boolean interrupted = sum == null ? stop.stopped() : sum.path("interrupted").asBoolean();
    Throwable err = failure.get();
    if (err != null && !(stop.stopped() && interrupted)) {
      log("ERROR", "worker failed", "role", a.role, "trial", t.name(), "err", err.toString());
      return EXIT_FAILED;
    }
    if (interrupted || work.isAlive()) {
      log("ERROR", "worker interrupted", "role", a.role, "trial", t.name(), "err", "interrupted before the trial was complete"
          + (work.isAlive() ? "; the worker did not return within the drain timeout" : ""));
      return EXIT_INTERRUPTED;
    }
    return EXIT_OK;
  }

  /**
   * What this worker ran on besides its settings (the contract's summary "build"): the
   * JVM's version, kafka-clients', and the machine's CPU model and kernel release as
   * the container sees them.
   */
  private static ObjectNode build() {
    ObjectNode b = JSON.createObjectNode();
    b.put("runtime", "java");
    b.put("runtimeVersion", Runtime.version().toString());
    b.put("client", "kafka-clients");
    b.put("clientVersion", KAFKA_CLIENTS_VERSION);
    String cpu = cpuModel();
    if (!cpu.isEmpty()) b.put("cpuModel", cpu);
    String kernel = firstLine(java.nio.file.Path.of("/proc/sys/kernel/osrelease"));
    if (!kernel.isEmpty()) b.put("kernel", kernel);
    return b;
  }

  /** The first "model name" of /proc/cpuinfo, its spaces collapsed ("" if none). */
  private static String cpuModel() {
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equals("model name")) {
          return line.substring(colon + 1).trim().replaceAll("\\s+", " ");
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      // Not Linux, or no cpuinfo: the result says less, never something wrong.
    }
    return "";
  }

  private static String firstLine(java.nio.file.Path p) {
    try {
      return java.nio.file.Files.readString(p, StandardCharsets.UTF_8).trim();
    } catch (java.io.IOException | RuntimeException e) {
      return "";
    }
  }

  private static ObjectNode window(Usage u, long from, long to, long records) {
    ObjectNode w = u.window(from, to);
    return w == null && records == 0 ? u.whole() : w;
  }

  /** A summary's first fields, role first (readers find the summary line by its start). */
  static ObjectNode summaryHead(String role, String worker, Args a, Trial t) {
    ObjectNode s = JsonNodeFactory.instance.objectNode();
    s.put("role", role);
    s.put("worker", worker);
    s.put("experiment", a.experiment);
    s.put("trial", t.name());
    s.put("codec", t.codec());
    s.put("schema", t.schema());
    s.put("sizeBytes", t.sizeBytes());
    return s;
  }

  /** The summary on stdout's last line, --summary-file, and --termination-log if it fits (else the marker). */
  private static void write(Args a, ObjectNode sum) throws Exception {
    byte[] b = JSON.writeValueAsBytes(sum);
    System.out.write(b);
    System.out.write('\n');
    System.out.flush();
    if (!a.summaryFile.isEmpty()) Files.write(Path.of(a.summaryFile), b);
    if (!a.terminationLog.isEmpty())
      Files.write(Path.of(a.terminationLog), b.length <= a.terminationMax ? b : "{\"summaryInLog\":true}".getBytes(StandardCharsets.UTF_8));
  }

  /** A structured log line on stderr, as slog's JSON handler writes them. */
  static synchronized void log(String level, String msg, String... kv) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("time", Clock.rfc3339(Clock.now()));
    o.put("level", level);
    o.put("msg", msg);
    for (int i = 0; i + 1 < kv.length; i += 2) o.put(kv[i], kv[i + 1]);
    try {
      ERR.println(JSON.writeValueAsString(o));
    } catch (Exception e) {
      ERR.println(msg);
    }
  }
}
