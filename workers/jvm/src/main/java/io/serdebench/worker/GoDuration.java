package io.serdebench.worker;

import java.time.Duration;

/** Go's time.ParseDuration, for the contract's duration flags (e.g. "2m0s", "1.5s"). */
final class GoDuration {
  private GoDuration() {}

  static Duration parse(String flag, String s) throws Args.UsageException {
    String orig = s;
    boolean neg = false;
    if (s.startsWith("-") || s.startsWith("+")) {
      neg = s.startsWith("-");
      s = s.substring(1);
    }
    if (s.equals("0")) return Duration.ZERO;
    if (s.isEmpty()) throw bad(flag, orig);
    double nanos = 0;
    int i = 0;
    while (i < s.length()) {
      int start = i;
      while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
      if (start == i) throw bad(flag, orig);
      double n;
      try {
        n = Double.parseDouble(s.substring(start, i));
      } catch (NumberFormatException e) {
        throw bad(flag, orig);
      }
      int u = i;
      while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') i++;
      double unit = switch (s.substring(u, i)) {
        case "ns" -> 1;
        case "us", "µs", "μs" -> 1e3;
        case "ms" -> 1e6;
        case "s" -> 1e9;
        case "m" -> 60e9;
        case "h" -> 3600e9;
        default -> throw bad(flag, orig);
      };
      nanos += n * unit;
    }
    long ns = Math.round(nanos);
    return Duration.ofNanos(neg ? -ns : ns);
  }

  private static Args.UsageException bad(String flag, String v) {
    return new Args.UsageException("invalid value \"" + v + "\" for flag -" + flag + ": parse error");
  }
}
