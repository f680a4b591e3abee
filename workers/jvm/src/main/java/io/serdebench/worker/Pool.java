package io.serdebench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A producer's records, from cmd/pool (the Go generator itself, so every runtime sends
 * the same data): the record type's description, then the records with their JSON
 * sizes. The pool binary is $SERDEBENCH_POOL, else bin/pool beside this worker's lib/.
 */
final class Pool {
  final Codecs.Type type;
  final List<JsonNode> records = new ArrayList<>();
  final List<Integer> sizes = new ArrayList<>();

  Pool(String trialJSON, int producer, boolean withRecords) throws Exception {
    List<String> cmd = List.of(binary(), "--trial", trialJSON, "--id", Integer.toString(producer), "--records", withRecords ? "-1" : "0");
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    ObjectMapper m = new ObjectMapper();
    Codecs.Type t = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        JsonNode n = m.readTree(line);
        if (t == null) {
          t = new Codecs.Type(n.path("type").asText(), n.path("protoMessage").asText(), n.path("avroSchema").asText());
          continue;
        }
        records.add(n);
        sizes.add(line.getBytes(StandardCharsets.UTF_8).length);
      }
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("pool did not finish in 60 s");
    }
    if (p.exitValue() != 0 || t == null) throw new IllegalStateException("pool exited " + p.exitValue() + " (" + String.join(" ", cmd.subList(0, 1)) + ")");
    type = t;
  }

  static String binary() {
    String env = System.getenv("SERDEBENCH_POOL");
    if (env != null && !env.isEmpty()) return env;
    try {
      Path jar = Path.of(Pool.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path beside = jar.getParent().getParent().resolve("bin/pool");
      if (Files.isExecutable(beside)) return beside.toString();
    } catch (Exception e) {
      // fall through
    }
    return "pool";
  }
}
