package io.serdebench.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker's command line, read as Go's flag package reads cmd/worker's
 * (workers/protocol.Parse): {@code -name}, {@code --name}, {@code --name=value} or
 * {@code --name value}; booleans bare or {@code =true|false}. Every flag of the
 * contract is known here; an unknown one is a usage error, as in Go.
 */
final class Args {
  /** A usage error: the worker exits with the usage code. */
  static final class UsageException extends Exception {
    UsageException(String msg) {
      super(msg);
    }
  }

  String role = "";
  String trial = "";
  List<String> bootstrap = List.of("127.0.0.1:9092");
  String topic = "";
  String group = "";
  String experiment = "";
  String experimentUID = "";
  String id = "";
  boolean waitForGroup;
  boolean startGate;
  int standbyIndex;
  Duration waitTimeout = Duration.ofMinutes(2);
  String metricsAddr = ":9090";
  Duration metricsGrace = Duration.ofSeconds(15);
  Duration timeout = Duration.ZERO;
  Duration drainTimeout = Duration.ofSeconds(5);
  String summaryFile = "";
  String terminationLog = "";
  int terminationMax = 4096;
  boolean tls;
  String tlsCAFile = "";
  boolean tlsInsecure;
  String saslMechanism = "";
  String schemaRegistry = "";

  private static final List<String> BOOLS = List.of("wait-for-group", "start-gate", "tls", "tls-insecure");

  static Args parse(String[] argv) throws UsageException {
    Map<String, String> vals = new LinkedHashMap<>();
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (!rest.isEmpty() || !a.startsWith("-") || a.equals("-")) {
        rest.add(a);
        continue;
      }
      if (a.equals("--")) {
        for (int j = i + 1; j < argv.length; j++) rest.add(argv[j]);
        break;
      }
      String name = a.startsWith("--") ? a.substring(2) : a.substring(1);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (BOOLS.contains(name)) {
        if (value == null) value = "true";
      } else if (value == null) {
        if (i + 1 >= argv.length) throw new UsageException("flag needs an argument: -" + name);
        value = argv[++i];
      }
      vals.put(name, value);
    }
    if (!rest.isEmpty()) throw new UsageException("unexpected arguments " + rest);
    Args w = new Args();
    for (Map.Entry<String, String> e : vals.entrySet()) w.set(e.getKey(), e.getValue());
    w.validate();
    return w;
  }

  private void set(String name, String v) throws UsageException {
    switch (name) {
      case "role" -> role = v;
      case "trial" -> trial = v;
      case "bootstrap" -> bootstrap = List.of(v.split(","));
      case "topic" -> topic = v;
      case "group" -> group = v;
      case "experiment" -> experiment = v;
      case "experiment-uid" -> experimentUID = v;
      case "id" -> id = v;
      case "wait-for-group" -> waitForGroup = bool(name, v);
      case "start-gate" -> startGate = bool(name, v);
      case "standby-index" -> standbyIndex = integer(name, v);
      case "wait-timeout" -> waitTimeout = GoDuration.parse(name, v);
      case "metrics-addr" -> metricsAddr = v;
      case "metrics-grace" -> metricsGrace = GoDuration.parse(name, v);
      case "timeout" -> timeout = GoDuration.parse(name, v);
      case "drain-timeout" -> drainTimeout = GoDuration.parse(name, v);
      case "summary-file" -> summaryFile = v;
      case "termination-log" -> terminationLog = v;
      case "termination-max-bytes" -> terminationMax = integer(name, v);
      case "tls" -> tls = bool(name, v);
      case "tls-ca-file" -> tlsCAFile = v;
      case "tls-insecure" -> tlsInsecure = bool(name, v);
      case "sasl-mechanism" -> saslMechanism = v;
      case "schema-registry" -> schemaRegistry = v;
      default -> throw new UsageException("flag provided but not defined: -" + name);
    }
  }

  /** What every worker needs: workers/protocol.Worker.Validate's rules. */
  private void validate() throws UsageException {
    if (!role.equals("producer") && !role.equals("consumer"))
      throw new UsageException("--role: must be producer or consumer, got \"" + role + "\"");
    if (trial.isEmpty()) throw new UsageException("--trial: name, codec and partitions are required");
    if (topic.isEmpty()) throw new UsageException("--topic is required");
    if (group.isEmpty()) throw new UsageException("--group is required");
    if (startGate && metricsAddr.isEmpty())
      throw new UsageException("--start-gate needs --metrics-addr: the start arrives there");
    if (standbyIndex > 0 && (!role.equals("consumer") || metricsAddr.isEmpty()))
      throw new UsageException("--standby-index is a consumer's, and needs --metrics-addr: the join arrives there");
  }

  private static boolean bool(String name, String v) throws UsageException {
    return switch (v) {
      case "true", "1", "t", "T", "TRUE", "True" -> true;
      case "false", "0", "f", "F", "FALSE", "False" -> false;
      default -> throw new UsageException("invalid boolean value \"" + v + "\" for -" + name);
    };
  }

  private static int integer(String name, String v) throws UsageException {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new UsageException("invalid value \"" + v + "\" for flag -" + name + ": parse error");
    }
  }
}
