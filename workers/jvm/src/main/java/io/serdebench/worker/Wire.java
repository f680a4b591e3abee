package io.serdebench.worker;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * serdebench's record headers (workers/wire): the full set (one header per field,
 * big-endian) and the compact one (header "sb": flags, run's low 32 bits, intended
 * time, then uvarints). A data record carries its producer, sequence number on its
 * partition, intended and actual send times (Unix ns), the run and a warmup mark; an
 * end record its producer, the records it sent to the partition and the run.
 */
final class Wire {
  private Wire() {}

  static final String PRODUCER = "sb-p", SEQ = "sb-s", INTENDED = "sb-i", ACTUAL = "sb-a", WARMUP = "sb-w", END = "sb-end",
      STEP = "sb-k", RUN = "sb-r", COMPACT = "sb";
  static final int FLAG_WARMUP = 1, FLAG_PRODUCER = 2, FLAG_STEP = 4, FLAG_END = 8;

  /** The run id of a trial's group: FNV-1a 64 of its name (wire.RunID). */
  static long runID(String group) {
    long h = 0xcbf29ce484222325L;
    for (byte b : group.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x100000001b3L;
    }
    return h;
  }

  static byte[] u32(long v) { return ByteBuffer.allocate(4).putInt((int) v).array(); }

  static byte[] u64(long v) { return ByteBuffer.allocate(8).putLong(v).array(); }

  /** A data record's headers; their bytes (keys and values) are what headerBytes counts. */
  static Headers data(int producer, long seq, long intended, long actual, long run, boolean warmup, boolean compact) {
    RecordHeaders h = new RecordHeaders();
    if (compact) {
      h.add(new RecordHeader(COMPACT, compact((warmup ? FLAG_WARMUP : 0), run, intended, seq, producer)));
      return h;
    }
    h.add(new RecordHeader(PRODUCER, u32(producer)));
    h.add(new RecordHeader(SEQ, u64(seq)));
    h.add(new RecordHeader(INTENDED, u64(intended)));
    h.add(new RecordHeader(ACTUAL, u64(actual)));
    h.add(new RecordHeader(RUN, u64(run)));
    if (warmup) h.add(new RecordHeader(WARMUP, new byte[] {1}));
    return h;
  }

  /** An end record's headers: producer, records sent to the partition, run. */
  static Headers end(int producer, long sent, long run, boolean compact) {
    RecordHeaders h = new RecordHeaders();
    if (compact) {
      h.add(new RecordHeader(COMPACT, compact(FLAG_END, run, 0, sent, producer)));
      return h;
    }
    h.add(new RecordHeader(PRODUCER, u32(producer)));
    h.add(new RecordHeader(END, u64(sent)));
    h.add(new RecordHeader(RUN, u64(run)));
    return h;
  }

  static int bytes(Headers hs) {
    int n = 0;
    for (Header h : hs) n += h.key().length() + h.value().length;
    return n;
  }

  private static byte[] compact(int flags, long run, long intended, long seq, int producer) {
    if (producer != 0) flags |= FLAG_PRODUCER;
    ByteBuffer b = ByteBuffer.allocate(1 + 4 + 8 + 10 + 5);
    b.put((byte) flags).putInt((int) run).putLong(intended);
    uvarint(b, seq);
    if (producer != 0) uvarint(b, producer & 0xffffffffL);
    byte[] out = new byte[b.position()];
    b.rewind();
    b.get(out);
    return out;
  }

  private static void uvarint(ByteBuffer b, long v) {
    while (Long.compareUnsigned(v, 0x80) >= 0) {
      b.put((byte) (v | 0x80));
      v >>>= 7;
    }
    b.put((byte) v);
  }

  /** A record's fields as a consumer reads them. */
  static final class Fields {
    int producer;
    long seq, intended, run;
    boolean warmup, end, compact, valid;
    int step = -1;

    /** Whether the record is of the run whose id is run (the compact set carries its low 32 bits). */
    boolean ours(long run) {
      if (!valid) return false;
      return compact ? (int) this.run == (int) run : this.run == run;
    }

    static Fields of(Headers hs) {
      Fields f = new Fields();
      Header c = hs.lastHeader(COMPACT);
      if (c != null) {
        f.compact = true;
        f.valid = f.parseCompact(c.value());
        return f;
      }
      for (Header h : hs) {
        byte[] v = h.value();
        switch (h.key()) {
          case PRODUCER -> f.producer = v != null && v.length == 4 ? ByteBuffer.wrap(v).getInt() : 0;
          case SEQ -> f.seq = v != null && v.length == 8 ? ByteBuffer.wrap(v).getLong() : 0;
          case INTENDED -> f.intended = v != null && v.length == 8 ? ByteBuffer.wrap(v).getLong() : 0;
          case RUN -> {
            f.run = v != null && v.length == 8 ? ByteBuffer.wrap(v).getLong() : 0;
            f.valid = v != null && v.length == 8;
          }
          case WARMUP -> f.warmup = true;
          case END -> f.end = true;
          case STEP -> f.step = v != null && v.length == 4 ? ByteBuffer.wrap(v).getInt() : -1;
          default -> { }
        }
      }
      return f;
    }

    private boolean parseCompact(byte[] v) {
      if (v == null || v.length < 13) return false;
      ByteBuffer b = ByteBuffer.wrap(v);
      int flags = b.get() & 0xff;
      run = b.getInt() & 0xffffffffL;
      intended = b.getLong();
      long[] r = new long[1];
      if (!readUvarint(b, r)) return false;
      seq = r[0];
      if ((flags & FLAG_PRODUCER) != 0) {
        if (!readUvarint(b, r) || r[0] > 0xffffffffL) return false;
        producer = (int) r[0];
      }
      if ((flags & FLAG_STEP) != 0) {
        if (!readUvarint(b, r) || r[0] > 0xffffffffL) return false;
        step = (int) r[0];
      }
      warmup = (flags & FLAG_WARMUP) != 0;
      end = (flags & FLAG_END) != 0;
      return !b.hasRemaining();
    }

    private static boolean readUvarint(ByteBuffer b, long[] out) {
      long x = 0;
      for (int s = 0; s < 70; s += 7) {
        if (!b.hasRemaining()) return false;
        int c = b.get() & 0xff;
        x |= (long) (c & 0x7f) << s;
        if (c < 0x80) {
          out[0] = x;
          return true;
        }
      }
      return false;
    }
  }
}
