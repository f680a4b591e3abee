package io.serdebench.worker;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The worker's metrics port (workers/metrics and workers/control): /metrics with the
 * contract's series, /healthz, /clock (Unix ns), and for a producer behind the start
 * gate /readyz and PUT /start?at=Unix ns. After the work it keeps serving until every
 * scraper seen has scraped once more (at most --metrics-grace).
 */
final class Server {
  final Counter records, warmupRecords, serializedBytes, codecSeconds, errors;
  final Histogram latency;
  final Gauge done;
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
  private final HttpServer http;
  private final boolean gate;
  private final Duration ahead;
  private volatile boolean ready;
  private volatile long startAt;
  private final CountDownLatch started = new CountDownLatch(1);
  // Scrapers by address: the start of their last scrape, the longest gap seen, and
  // whether one finished after the work ended.
  private final Map<String, long[]> scrapers = new HashMap<>();
  private volatile long workEnded;
  /** The client whose statistics /metrics serves (null: none yet). */
  private volatile ClientStats client;

  Server(Args a, Trial t, String worker, boolean gate) throws IOException {
    this(a, t, worker, gate, true);
  }

  /** The metrics without a port (--metrics-addr ""): counted, never served. */
  static Server none(Args a, Trial t, String worker) {
    try {
      return new Server(a, t, worker, false, false);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Server(Args a, Trial t, String worker, boolean gate, boolean listen) throws IOException {
    Labels l = Labels.of("experiment", a.experiment, "experiment_uid", a.experimentUID, "topic", a.topic, "group", a.group,
        "trial", t.name(), "codec", t.codec(), "role", a.role, "worker", worker);
    // Updated per record on the client's I/O thread (the producer's callbacks): no
    // exemplar sampling, and the histogram classic only, as the Go worker's.
    records = Counter.builder().name("serdebench_records_total").help("Measured records (producer: acknowledged; consumer: received).").constLabels(l).withoutExemplars().register(registry);
    warmupRecords = Counter.builder().name("serdebench_warmup_records_total").help("Records excluded as warmup.").constLabels(l).withoutExemplars().register(registry);
    serializedBytes = Counter.builder().name("serdebench_serialized_bytes_total").help("Encoded value bytes of measured records.").constLabels(l).withoutExemplars().register(registry);
    codecSeconds = Counter.builder().name("serdebench_codec_seconds_total").help("Seconds spent serializing (producer) or deserializing (consumer) measured records.").constLabels(l).withoutExemplars().register(registry);
    errors = Counter.builder().name("serdebench_errors_total").help("Failed sends (producer) or decodes (consumer).").constLabels(l).withoutExemplars().register(registry);
    latency = Histogram.builder().name("serdebench_latency_seconds")
        .help("Producer: acknowledgement minus intended send time; consumer: receipt minus intended send time.")
        .classicExponentialUpperBounds(50e-6, 2, 20).classicOnly().constLabels(l).withoutExemplars().register(registry);
    done = Gauge.builder().name("serdebench_done").help("1 once the worker's work has ended.").constLabels(l).register(registry);
    registry.register(new ClientMetrics(l, () -> client));
    this.gate = gate;
    this.ahead = a.waitTimeout;
    if (!listen) {
      http = null;
      return;
    }
    String addr = a.metricsAddr;
    int colon = addr.lastIndexOf(':');
    String host = addr.substring(0, colon);
    int port = Integer.parseInt(addr.substring(colon + 1));
    http = HttpServer.create(host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port), 64);
    http.setExecutor(Executors.newFixedThreadPool(2, r -> Thread.ofPlatform().daemon().name("http").unstarted(r)));
    http.createContext("/", this::handle);
    http.start();
  }

  /** Serves the client's statistics from now on. */
  void watchClient(ClientStats s) { client = s; }

  private void handle(HttpExchange x) throws IOException {
    String path = x.getRequestURI().getPath(), method = x.getRequestMethod();
    try (x) {
      switch (path) {
        case "/metrics" -> {
          if (!method.equals("GET")) { reply(x, 405, ""); return; }
          long began = Clock.now();
          ByteArrayOutputStream b = new ByteArrayOutputStream();
          writer.write(b, registry.scrape(), EscapingScheme.ALLOW_UTF8);
          x.getResponseHeaders().set("Content-Type", writer.getContentType());
          x.sendResponseHeaders(200, b.size());
          try (OutputStream o = x.getResponseBody()) {
            b.writeTo(o);
          }
          scraped(x.getRemoteAddress().getAddress().getHostAddress(), began);
        }
        case "/healthz" -> reply(x, 200, "");
        case "/clock" -> reply(x, method.equals("GET") ? 200 : 405, method.equals("GET") ? Long.toString(Clock.now()) : "");
        case "/readyz" -> {
          if (!gate) reply(x, 404, "404 page not found\n");
          else if (!method.equals("GET")) reply(x, 405, "");
          else reply(x, ready ? 200 : 503, ready ? "ready" : "not ready");
        }
        case "/start" -> {
          if (!gate) { reply(x, 404, "404 page not found\n"); return; }
          if (!method.equals("PUT")) { reply(x, 405, ""); return; }
          long at = query(x.getRequestURI().getRawQuery(), "at");
          if (at <= 0) { reply(x, 400, "start: want ?at=<Unix ns>"); return; }
          if (at - Clock.now() > ahead.toNanos()) { reply(x, 400, "start: at is more than the wait timeout ahead"); return; }
          synchronized (this) {
            if (startAt == 0) {
              startAt = at;
              started.countDown();
            }
          }
          reply(x, 204, "");
        }
        default -> reply(x, 404, "404 page not found\n");
      }
    }
  }

  private static long query(String q, String key) {
    if (q == null) return 0;
    for (String kv : q.split("&")) {
      if (kv.startsWith(key + "=")) {
        try {
          return Long.parseLong(kv.substring(key.length() + 1));
        } catch (NumberFormatException e) {
          return 0;
        }
      }
    }
    return 0;
  }

  private static void reply(HttpExchange x, int code, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    x.sendResponseHeaders(code, code == 204 || b.length == 0 ? -1 : b.length);
    if (b.length > 0 && code != 204) {
      try (OutputStream o = x.getResponseBody()) {
        o.write(b);
      }
    }
  }

  private synchronized void scraped(String ip, long began) {
    long[] s = scrapers.computeIfAbsent(ip, k -> new long[] {0, 0, 0});
    if (s[0] > 0) s[1] = Math.max(s[1], began - s[0]);
    s[0] = began;
    if (workEnded > 0 && began >= workEnded) s[2] = 1;
  }

  /** Waits for the start (PUT /start) once ready, at most timeout; the instant, or 0 when none came. */
  long awaitStart(Duration timeout, java.util.function.BooleanSupplier stop) throws InterruptedException {
    ready = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline && !stop.getAsBoolean()) {
      if (started.await(100, TimeUnit.MILLISECONDS)) return startAt;
    }
    return 0;
  }

  /** Marks the work ended; serves until every scraper seen scraped once more, at most grace. */
  void finish(Duration grace) {
    done.set(1);
    workEnded = Clock.now();
    long deadline = System.nanoTime() + grace.toNanos();
    long extra = -1;
    while (System.nanoTime() < deadline) {
      synchronized (this) {
        boolean all = !scrapers.isEmpty();
        long gap = 0;
        for (long[] s : scrapers.values()) {
          all &= s[2] == 1;
          gap = Math.max(gap, s[1]);
        }
        if (all) {
          extra = gap;
          break;
        }
      }
      sleep(50);
    }
    if (extra > 0) sleep(Math.min(extra / 1_000_000, Math.max(0, (deadline - System.nanoTime()) / 1_000_000)));
    stopNow();
  }

  void stopNow() {
    if (http != null) http.stop(0);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
