package io.serdebench.worker;

import java.util.SplittableRandom;

/**
 * Picks each record's partition as the Go workers' partitioner does
 * (workers/producer/partitioner.go): the worker always chooses partitions itself,
 * so sequence numbers stay dense per partition whichever strategy is set. Round-robin
 * per record, or sticky with the Java client's own rule (KIP-794's built-in
 * partitioner): draw the next partition once batch.size bytes went to this one and
 * its last batch is full, or once twice batch.size went. The draw is uniform over
 * all partitions, the current one included, as Java's while its queues are alike;
 * from Trial.partitionSeed with SplittableRandom (SplitMix64, which the Go workers
 * implement), so both runtimes send the same records to the same partitions.
 */
final class Partitioner {
  /** A v2 record batch's header. */
  private static final int BATCH_OVERHEAD_BYTES = 61;
  /** A record's framing with short varints, five headers (full set). */
  private static final int RECORD_FRAMING_BYTES = 20;

  private final int parts;
  private final int stickyBytes;
  private final int headerBytes;
  private final SplittableRandom rng;
  private int cur, produced, batch;

  /** strategy is the trial's settings.partitioner ("", round-robin or sticky); seed draws sticky partitions. */
  Partitioner(String strategy, int parts, int batchSizeBytes, boolean compact, long seed) {
    this.parts = parts;
    this.stickyBytes = strategy.equals("sticky") ? Math.max(batchSizeBytes, 1) : 0;
    this.rng = new SplittableRandom(seed);
    if (stickyBytes > 0) cur = draw();
    // What every data record adds to its value, as the Go worker estimates it: the
    // headers' keys and values (the compact set's with a 3-byte sequence number)
    // and the framing (one header's two lengths instead of five headers' ten).
    this.headerBytes = Wire.bytes(Wire.data(0, 1L << 14, 0, 0, 0, false, compact)) + (compact ? RECORD_FRAMING_BYTES - 8 : RECORD_FRAMING_BYTES);
  }

  /** The partition of a record whose value is valueBytes long. */
  int next(int valueBytes) {
    int part = cur;
    if (stickyBytes == 0) {
      cur = (cur + 1) % parts;
      return part;
    }
    int n = valueBytes + headerBytes;
    if (batch == 0 || batch + n > stickyBytes) {
      batch = BATCH_OVERHEAD_BYTES; // the record opens a new batch
      produced += BATCH_OVERHEAD_BYTES;
    }
    batch += n;
    produced += n;
    boolean full = batch >= stickyBytes;
    if (produced >= 2 * stickyBytes || (produced >= stickyBytes && full)) {
      cur = draw();
      produced = 0;
      batch = 0;
    }
    return part;
  }

  private int draw() { return (int) Long.remainderUnsigned(rng.nextLong(), parts); }

  /** The strategy, as the Go worker names it in the result's client settings. */
  String name() {
    return stickyBytes == 0 ? "round-robin per record (manual)"
        : "sticky, Java's rule: a partition drawn at random after batch.size bytes and a full batch, or 2 × batch.size; uncompressed bytes (manual)";
  }
}
