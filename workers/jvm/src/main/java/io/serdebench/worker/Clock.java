package io.serdebench.worker;

import java.time.Instant;

/**
 * The worker's wall clock in Unix nanoseconds, advanced by the monotonic clock (as Go's
 * time.Now carries a monotonic reading): latencies are differences of it, and a step
 * of the system clock mid-trial does not enter them.
 */
final class Clock {
  private Clock() {}

  private static final long BASE_NANO;
  private static final long BASE_WALL;

  static {
    // The wall reading is paired with the monotonic one taken around it, the
    // tightest of a few: Instant.now's first call in a fresh JVM loads java.time and
    // takes over a millisecond, which a wall reading taken after the monotonic one
    // added to every time this clock gave (a Go worker's clock then read 1.3 ms
    // behind it: TestStartGate).
    Instant.now();
    long best = Long.MAX_VALUE, nano = 0, wall = 0;
    for (int i = 0; i < 8; i++) {
      long n0 = System.nanoTime();
      Instant w = Instant.now();
      long n1 = System.nanoTime();
      if (n1 - n0 < best) {
        best = n1 - n0;
        nano = n0 + (n1 - n0) / 2;
        wall = w.getEpochSecond() * 1_000_000_000L + w.getNano();
      }
    }
    BASE_NANO = nano;
    BASE_WALL = wall;
  }

  static long now() { return BASE_WALL + (System.nanoTime() - BASE_NANO); }

  /** Unix nanoseconds as RFC 3339 with nanoseconds (UTC), as Go writes time.Time. */
  static String rfc3339(long unixNanos) {
    if (unixNanos == 0) return "0001-01-01T00:00:00Z";
    return Instant.ofEpochSecond(Math.floorDiv(unixNanos, 1_000_000_000L), Math.floorMod(unixNanos, 1_000_000_000L)).toString();
  }

  /** Sleeps until the instant (Unix ns, on this clock); false when interrupted first. */
  static boolean sleepUntil(long unixNanos, java.util.function.BooleanSupplier stop) {
    for (long d; (d = unixNanos - now()) > 0; ) {
      if (stop.getAsBoolean()) return false;
      java.util.concurrent.locks.LockSupport.parkNanos(Math.min(d, 50_000_000L));
    }
    return !stop.getAsBoolean();
  }
}
