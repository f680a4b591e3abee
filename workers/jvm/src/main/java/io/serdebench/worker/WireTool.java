package io.serdebench.worker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code worker-jvm wire encode|roundtrip|decode --trial <JSON> [--records N] [--codecs a,b,…]
 * [--schema-registry URL --topic T]} and {@code wire codecs}:
 * the bytes this runtime writes, for the cross-runtime wire table
 * (workers/conformance). Each line is a codec's name and a record's bytes in hex.
 * encode prints producer 0's first N pool records as each codec (the trial's, or
 * --codecs) encodes them; roundtrip reads such lines (another runtime's bytes) from
 * stdin, decodes each with its codec and prints it encoded again here, so that a
 * record read back to the same value prints the bytes encode would. decode prints
 * what each line decodes to as JSON (the codecs only this runtime reads); codecs
 * prints the names of every codec this worker has, one per line. The registry variants
 * take the registry a worker does, and each its own subject: topic T.&lt;format&gt;'s.
 */
final class WireTool {
  private WireTool() {}

  static int run(String[] args) {
    if (args.length == 1 && args[0].equals("codecs")) {
      Codecs.NAMES.forEach(System.out::println);
      return Main.EXIT_OK;
    }
    if (args.length < 3 || !args[1].equals("--trial")) {
      Main.log("ERROR", "invalid arguments", "err", "usage: wire encode|roundtrip|decode --trial <JSON> [--records N] [--codecs a,b] [--schema-registry URL --topic T], or wire codecs");
      return Main.EXIT_USAGE;
    }
    String mode = args[0], trialJSON = args[2];
    int n = -1;
    String registry = "", topic = "wire";
    List<String> names = new ArrayList<>();
    for (int i = 3; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--records" -> n = Integer.parseInt(args[i + 1]);
        case "--codecs" -> names.addAll(List.of(args[i + 1].split(",")));
        case "--schema-registry" -> registry = args[i + 1];
        case "--topic" -> topic = args[i + 1];
        default -> {
          Main.log("ERROR", "invalid arguments", "err", "wire: unknown flag " + args[i]);
          return Main.EXIT_USAGE;
        }
      }
    }
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    HexFormat hex = HexFormat.of();
    try {
      Trial t = new Trial(trialJSON);
      if (names.isEmpty()) names.add(t.codec());
      Pool pool = new Pool(trialJSON, 0, mode.equals("encode"));
      Map<String, Codecs.Codec> codecs = new LinkedHashMap<>();
      // One subject per registry variant (their schemas differ): the topic T.<format>'s.
      for (String name : names)
        codecs.put(name, Codecs.of(name, pool.type, new Codecs.Options(registry, topic + "." + name.replace(Codecs.REGISTRY_SUFFIX, ""), true)));
      switch (mode) {
        case "encode" -> {
          for (Map.Entry<String, Codecs.Codec> e : codecs.entrySet()) {
            Codecs.Codec c = e.getValue();
            for (int i = 0; i < pool.records.size() && (n < 0 || i < n); i++)
              out.println(e.getKey() + " " + hex.formatHex(c.encode(c.prepare(pool.records.get(i), pool.lines.get(i)))));
          }
        }
        case "roundtrip", "decode" -> {
          BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
          for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            String[] f = line.trim().split(" ");
            Codecs.Codec c = codecs.get(f[0]);
            if (c == null) throw new IllegalArgumentException("a line of codec " + f[0] + ", not one of --codecs");
            Object decoded = c.decode(hex.parseHex(f[1]));
            String json = mode.equals("decode") ? c.json(decoded) : null;
            if (mode.equals("decode") && json == null) throw new IllegalArgumentException("codec " + f[0] + " has no JSON form here");
            out.println(f[0] + " " + (json != null ? json : hex.formatHex(c.encode(c.nativeOf(decoded)))));
          }
        }
        default -> {
          Main.log("ERROR", "invalid arguments", "err", "wire: encode, roundtrip, decode or codecs, not " + mode);
          return Main.EXIT_USAGE;
        }
      }
      out.flush();
      return Main.EXIT_OK;
    } catch (Exception e) {
      Main.log("ERROR", "wire failed", "err", e.toString());
      return Main.EXIT_FAILED;
    }
  }
}
