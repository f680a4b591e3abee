package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A trial (api/trial.Trial, as JSON) and what this worker can run of it. Anything it
 * was not built for is refused with the usage code, never run with a silent default:
 * {@link #refusal()} names the first such field. Fields it does not know at all are
 * refused too, so a newer planner's setting cannot pass unnoticed.
 */
final class Trial {
  final JsonNode root;
  final JsonNode settings;
  final JsonNode consumer;

  Trial(String json) throws Args.UsageException {
    try {
      root = new ObjectMapper().readTree(json);
    } catch (Exception e) {
      throw new Args.UsageException("--trial: " + e.getMessage());
    }
    if (root == null || !root.isObject()) throw new Args.UsageException("--trial: not a JSON object");
    settings = root.path("settings");
    consumer = root.path("consumer");
    if (name().isEmpty() || codec().isEmpty() || partitions() < 1)
      throw new Args.UsageException("--trial: name, codec and partitions are required");
  }

  String name() { return root.path("name").asText(""); }
  String codec() { return root.path("codec").asText(""); }
  String schema() { return root.path("schema").asText(""); }
  int sizeBytes() { return root.path("sizeBytes").asInt(); }
  int partitions() { return root.path("partitions").asInt(); }
  int producers() { return Math.max(1, root.path("producers").asInt(1)); }
  int consumers() { return root.path("consumers").asInt(); }
  long records() { return root.path("records").asLong(); }

  /** The seed of producer id's sticky partition draws: the Go workers' partitionSeed. */
  long partitionSeed(int id) { return root.path("seed").asLong() + ((long) id << 32) + (root.path("repetition").asLong() << 48); }
  long durationSeconds() { return root.path("durationSeconds").asLong(); }
  long warmupRecords() { return root.path("warmup").path("records").asLong(); }
  long warmupSeconds() { return root.path("warmup").path("durationSeconds").asLong(); }
  boolean compactHeaders() { return root.path("headers").asText("full").equals("compact"); }
  String mode() { return settings.path("mode").asText(); }
  long recordsPerSecond() { return settings.path("recordsPerSecond").asLong(); }
  String acks() { return settings.path("acks").asText(); }
  boolean readCommitted() { return consumerSetting("isolation").equals("readCommitted"); }

  /**
   * A consumer setting the planner copies from the swept settings (isolation,
   * groupProtocol, groupType): the trial's consumer settings say it, the settings'
   * copy where an older plan left it out.
   */
  String consumerSetting(String key) {
    String v = consumer.path(key).asText("");
    return v.isEmpty() ? settings.path(key).asText("") : v;
  }

  /** Top-level fields this worker reads; others must be absent or zero. */
  private static final Set<String> KNOWN = Set.of("index", "name", "config", "repetition", "codec", "schema", "sizeBytes",
      "headers", "settings", "consumer", "records", "durationSeconds", "warmup", "intervalSeconds", "producers",
      "consumers", "partitions", "replicas", "topicConfig", "reference", "seed", "poolSize");
  private static final Set<String> KNOWN_SETTINGS = Set.of("mode", "batchSizeBytes", "lingerMs", "acks", "compression",
      "maxInFlight", "idempotent", "recordsPerSecond", "client", "sendBufferBytes", "receiveBufferBytes", "partitioner",
      "payloadCompression", "records", "isolation", "groupProtocol", "groupType", "consumerClient");
  /** A consumer's: the producers' transactions are theirs (control records are the client's to skip). */
  private static final Set<String> KNOWN_CONSUMER_SETTINGS = union(KNOWN_SETTINGS, Set.of("transactions"));
  /** The enum settings each role runs (ENUMS says their values); the other role's are its business. */
  private static final List<String> PRODUCER_ENUMS = List.of("mode", "acks", "compression", "partitioner", "payloadCompression");
  private static final List<String> CONSUMER_ENUMS = List.of("payloadCompression", "isolation", "groupProtocol", "groupType");
  private static final Set<String> KNOWN_CONSUMER = Set.of("fetchMinBytes", "fetchMaxWaitMs", "maxPartitionFetchBytes",
      "receiveBufferBytes", "sendBufferBytes", "commit", "isolation", "groupProtocol", "groupType");

  /** Allowed values of the settings this worker reads as enums ("" is the older plans' default). */
  private static final Map<String, List<String>> ENUMS = Map.of(
      "mode", List.of("batch", "single"),
      "acks", List.of("0", "1", "all"),
      "compression", List.of("none", "gzip", "snappy", "lz4", "zstd"),
      "partitioner", List.of("", "round-robin", "sticky"),
      "payloadCompression", List.of("", "none"),
      "isolation", List.of("", "readUncommitted", "readCommitted"),
      "groupProtocol", List.of("", "classic", "consumer"),
      "groupType", List.of("", "consumer"));

  /**
   * Why this worker cannot run the trial in role (producer or consumer), or null when
   * it can. A consumer's client is settings.consumerClient when the trial has one.
   */
  String refusal(String role) {
    boolean consumes = role.equals("consumer");
    String field = consumes && !settings.path("consumerClient").asText("").isEmpty() ? "consumerClient" : "client";
    String c = settings.path(field).asText("");
    if (!c.equals(Main.CLIENT))
      return "settings." + field + ": this worker runs Kafka's Java client (client " + Main.CLIENT + "), not \"" + c + "\"";
    if (!Codecs.NAMES.contains(codec())) return "codec " + codec() + ": the JVM worker has " + String.join(", ", Codecs.NAMES);
    if (root.has("source")) return "payload.source: the JVM worker sends the built-in schemas only";
    if (schema().equals("bytes") && !codec().equals("raw")) return "schema bytes: only the raw codec sends it, not " + codec();
    String why = unknown("", root, KNOWN);
    if (why == null) why = unknown("settings.", settings, consumes ? KNOWN_CONSUMER_SETTINGS : KNOWN_SETTINGS);
    if (why == null && consumes) why = unknown("consumer.", consumer, KNOWN_CONSUMER);
    if (why != null) return why;
    for (String key : consumes ? CONSUMER_ENUMS : PRODUCER_ENUMS) {
      String v = settings.path(key).asText("");
      if (!ENUMS.get(key).contains(v)) return "settings." + key + " " + v + ": the JVM worker runs " + ENUMS.get(key);
    }
    // A producer leaves the consumers' settings to them, but serves only a consumer
    // group: it waits for one before its schedule (describeConsumerGroups).
    if (!consumes) {
      String type = consumer.path("groupType").asText("");
      return type.isEmpty() || type.equals("consumer") ? null : "consumer.groupType " + type + ": the JVM producer waits for a consumer group only";
    }
    for (String key : List.of("isolation", "groupProtocol", "groupType")) {
      String v = consumer.path(key).asText("");
      if (!ENUMS.get(key).contains(v)) return "consumer." + key + " " + v + ": the JVM worker runs " + ENUMS.get(key);
    }
    String commit = consumer.path("commit").asText("");
    if (!commit.isEmpty() && !commit.equals("interval")) return "consumer.commit " + commit + ": the JVM worker commits on an interval";
    return null;
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new java.util.HashSet<>(a);
    out.addAll(b);
    return Set.copyOf(out);
  }

  /** The first field of node not in known whose value is not zero, as a refusal. */
  private static String unknown(String prefix, JsonNode node, Set<String> known) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (known.contains(e.getKey()) || zero(e.getValue())) continue;
      return prefix + e.getKey() + ": the JVM worker cannot run it yet";
    }
    return null;
  }

  private static boolean zero(JsonNode v) {
    return v.isNull() || (v.isNumber() && v.asDouble() == 0) || (v.isTextual() && v.asText().isEmpty())
        || (v.isBoolean() && !v.asBoolean()) || (v.isContainerNode() && v.isEmpty());
  }
}
