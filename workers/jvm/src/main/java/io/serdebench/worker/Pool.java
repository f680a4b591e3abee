package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A producer's records, from cmd/pool (the Go generator itself, so every runtime sends
 * the same data): the record type's description, then the records, parsed and as
 * their JSON lines.
 */
final class Pool {
  final Codecs.Type type;
  /** How the summary's series and segments are cut (cmd/pool's SeriesRules). */
  final Series.Rules rules;
  final List<JsonNode> records = new ArrayList<>();
  /** Each record's JSON line as cmd/pool wrote it (encoding/json's bytes: the raw codec's). */
  final List<byte[]> lines = new ArrayList<>();

  Pool(String trialJSON, int producer, boolean withRecords) throws Exception {
    List<String> cmd = List.of(binary(), "--trial", trialJSON, "--id", Integer.toString(producer), "--records", withRecords ? "-1" : "0");
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    ObjectMapper m = new ObjectMapper();
    Codecs.Type t = null;
    Series.Rules rules = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        JsonNode n = m.readTree(line);
        if (t == null) {
          t = new Codecs.Type(n.path("type").asText(), n.path("protoMessage").asText(), n.path("protoFile").asText(),
              n.path("avroSchema").asText(), n.path("jsonSchema").asText());
          rules = Series.Rules.of(n.path("series"));
          continue;
        }
        records.add(n);
        lines.add(line.getBytes(StandardCharsets.UTF_8));
      }
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("pool did not finish in 60 s");
    }
    if (p.exitValue() != 0 || t == null) throw new IllegalStateException("pool exited " + p.exitValue() + " (" + String.join(" ", cmd.subList(0, 1)) + ")");
    type = t;
    this.rules = rules;
  }

  /** cmd/pool's path: $SERDEBENCH_POOL, which both launchers set (bin/worker-jvm, hack/jvm/pod). */
  static String binary() {
    String env = System.getenv("SERDEBENCH_POOL");
    if (env == null || env.isEmpty()) throw new IllegalStateException("SERDEBENCH_POOL is not set: start the worker with its launcher (bin/worker-jvm)");
    return env;
  }

}
