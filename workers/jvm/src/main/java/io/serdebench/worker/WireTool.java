package io.serdebench.worker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * {@code worker-jvm wire encode|roundtrip --trial <JSON> [--records N]}: the bytes this
 * runtime writes, for the cross-runtime wire table (workers/conformance). encode
 * prints producer 0's first N pool records as this runtime encodes them, one hex line
 * each; roundtrip reads hex lines (another runtime's bytes) from stdin, decodes each
 * and prints it encoded again here, so that a record read back to the same value
 * prints the bytes encode would.
 */
final class WireTool {
  private WireTool() {}

  static int run(String[] args) {
    if (args.length < 3 || !args[1].equals("--trial")) {
      Main.log("ERROR", "invalid arguments", "err", "usage: wire encode|roundtrip --trial <JSON> [--records N]");
      return Main.EXIT_USAGE;
    }
    String mode = args[0], trialJSON = args[2];
    int n = args.length >= 5 && args[3].equals("--records") ? Integer.parseInt(args[4]) : -1;
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    HexFormat hex = HexFormat.of();
    try {
      Trial t = new Trial(trialJSON);
      Pool pool = new Pool(trialJSON, 0, mode.equals("encode"));
      Codecs.Codec c = Codecs.of(t.codec(), pool.type);
      switch (mode) {
        case "encode" -> {
          for (int i = 0; i < pool.records.size() && (n < 0 || i < n); i++) out.println(hex.formatHex(c.encode(c.prepare(pool.records.get(i)))));
        }
        case "roundtrip" -> {
          BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
          for (String line; (line = in.readLine()) != null; ) {
            if (!line.isBlank()) out.println(hex.formatHex(c.encode(c.nativeOf(c.decode(hex.parseHex(line.trim()))))));
          }
        }
        default -> {
          Main.log("ERROR", "invalid arguments", "err", "wire: encode or roundtrip, not " + mode);
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
