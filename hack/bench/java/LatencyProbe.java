// LatencyProbe: the Java client measured the way serdebench measures (make bench,
// hack/bench/latency-vs-java.sh). Kafka's ProducerPerformance reports whole
// milliseconds and times each record from its actual send, after a throttle that
// sends in bursts of up to 2 ms; EndToEndLatency sends one record at a time. This
// probe keeps serdebench's schedule instead: record i is due at start + i/rate, its
// ack and end-to-end latencies are measured from that intended time in microseconds
// (HdrHistogram, 3 significant digits), and the warmup is excluded.
//
// Run with the source launcher and Kafka's jars on the class path:
//   java -cp "$KAFKA_LIBS/*" LatencyProbe.java --bootstrap H:P --rate 2000 --size 1176 \
//     --warmup-s 5 --duration-s 10 --partitions 3 [--producer-prop k=v ...]
// It creates its own topic, deletes it afterwards and prints one JSON object.
//
// --role produce and --role consume split it into two JVMs, as serdebench's JVM
// worker runs its producers and consumers, on a topic made for them (--topic):
// the consumer, started first, writes --ready-file once it has its positions and
// prints its end-to-end latencies; the producer prints its acknowledgements'.
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class LatencyProbe {
    // serdebench's header keys and sizes (workers/wire), so records and batches are
    // the same size: producer (4 B), sequence, intended (here System.nanoTime, one
    // JVM), actual and run (8 B each), and the warmup mark (1 B).
    static final String PRODUCER = "sb-p", SEQ = "sb-s", INTENDED = "sb-i", ACTUAL = "sb-a", RUN = "sb-r", WARMUP = "sb-w";

    public static void main(String[] args) throws Exception {
        String bootstrap = null;
        long rate = 0, warmupS = 5, durationS = 10;
        int size = 1176, partitions = 3;
        String role = "both", topic = null, readyFile = null;
        Properties prod = new Properties();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--bootstrap": bootstrap = args[++i]; break;
                case "--rate": rate = Long.parseLong(args[++i]); break;
                case "--size": size = Integer.parseInt(args[++i]); break;
                case "--warmup-s": warmupS = Long.parseLong(args[++i]); break;
                case "--duration-s": durationS = Long.parseLong(args[++i]); break;
                case "--partitions": partitions = Integer.parseInt(args[++i]); break;
                case "--role": role = args[++i]; break;
                case "--topic": topic = args[++i]; break;
                case "--ready-file": readyFile = args[++i]; break;
                case "--producer-prop": {
                    String[] kv = args[++i].split("=", 2);
                    prod.put(kv[0], kv[1]);
                    break;
                }
                default: throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (bootstrap == null || rate <= 0) {
            throw new IllegalArgumentException("--bootstrap and a positive --rate are required");
        }
        Histogram ack = new Histogram(3_600_000_000L, 3), e2e = new Histogram(3_600_000_000L, 3);
        long total = rate * (warmupS + durationS);
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        switch (role) {
            case "both": {
                // One JVM produces and consumes, on a topic of its own.
                String own = "serdebench.bench.probe." + UUID.randomUUID();
                try (Admin admin = Admin.create(common)) {
                    admin.createTopics(List.of(new NewTopic(own, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
                    try {
                        Reader reader = new Reader(common, own, partitions, total, warmupS + durationS, e2e);
                        reader.start();
                        Sent sent = produce(common, prod, own, rate, size, warmupS, durationS, ack);
                        reader.finish(90);
                        print(sent, reader.received, ack, e2e);
                        checkSent(sent, ack.getTotalCount(), total, rate * durationS);
                        checkReceived(reader.received, e2e.getTotalCount(), total, rate * durationS);
                    } finally {
                        admin.deleteTopics(List.of(own)).all().get(60, TimeUnit.SECONDS);
                    }
                }
                break;
            }
            case "consume": {
                // The consumer alone, on the given topic: ready once it has its
                // positions, done when it received every record.
                Reader reader = new Reader(common, need(topic, "--topic"), partitions, total, warmupS + durationS + 60, e2e);
                java.nio.file.Files.writeString(java.nio.file.Path.of(need(readyFile, "--ready-file")), "ready\n");
                reader.start();
                // The producer starts after this, so the whole run is ahead.
                reader.finish(warmupS + durationS + 150);
                System.out.printf("{\"received\": %d, \"endToEndMicros\": %s}%n", reader.received, json(e2e));
                checkReceived(reader.received, e2e.getTotalCount(), total, rate * durationS);
                break;
            }
            case "produce": {
                Sent sent = produce(common, prod, need(topic, "--topic"), rate, size, warmupS, durationS, ack);
                print(sent, -1, ack, null);
                checkSent(sent, ack.getTotalCount(), total, rate * durationS);
                break;
            }
            default: throw new IllegalArgumentException("--role: both, produce or consume, not " + role);
        }
    }

    static String need(String v, String flag) {
        if (v == null) throw new IllegalArgumentException(flag + " is required with this --role");
        return v;
    }

    /** Sent is what the producer did: records acknowledged and failed, and its measured window. */
    record Sent(long measured, double window, long acked, long failed) {}

    /**
     * Reader consumes the topic's partitions from the start (assigned, no group) until
     * it received total records or its deadline passed, recording each measured
     * record's end-to-end latency. The intended time in the header is the producer's
     * System.nanoTime: on Linux CLOCK_MONOTONIC, shared by every process of the
     * machine, so a consumer in another JVM reads it against its own.
     */
    static final class Reader extends Thread {
        final KafkaConsumer<byte[], byte[]> consumer;
        final long total, deadline;
        final Histogram e2e;
        volatile long received;

        Reader(Properties common, String topic, int partitions, long total, long seconds, Histogram e2e) {
            Properties cp = new Properties();
            cp.putAll(common);
            cp.put("group.id", "serdebench-probe-" + UUID.randomUUID());
            cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
            cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
            consumer = new KafkaConsumer<>(cp);
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) tps.add(new TopicPartition(topic, p));
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            consumer.poll(Duration.ZERO); // connect before the clock starts
            for (TopicPartition tp : tps) consumer.position(tp); // and have every position
            this.total = total;
            this.e2e = e2e;
            this.deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + 60);
        }

        @Override public void run() {
            try {
                long n = 0;
                while (n < total && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        long now = System.nanoTime();
                        n++;
                        if (r.headers().lastHeader(WARMUP) != null) continue;
                        Header h = r.headers().lastHeader(INTENDED);
                        e2e.recordValue(Math.max(0, (now - ByteBuffer.wrap(h.value()).getLong()) / 1000));
                    }
                    received = n;
                }
            } finally {
                consumer.close();
            }
        }

        /** finish waits for the reader, seconds at most; its histogram is not safe to read while it runs. */
        void finish(long seconds) throws InterruptedException {
            join(TimeUnit.SECONDS.toMillis(seconds));
            if (isAlive()) {
                System.err.printf("LatencyProbe: the consumer received %d of %d records within %d s%n", received, total, seconds);
                System.exit(1);
            }
        }
    }

    /** sendDelay is each measured record's send delay: its send's start after its intended time, µs. */
    static final Histogram sendDelay = new Histogram(3_600_000_000L, 3);

    static Sent produce(Properties common, Properties prodProps, String topic, long rate, int size,
            long warmupS, long durationS, Histogram ack) throws Exception {
        AtomicLong failed = new AtomicLong(), acked = new AtomicLong();
        long total = rate * (warmupS + durationS), warmupRecords = rate * warmupS;
        Properties pp = new Properties();
        pp.putAll(common);
        pp.putAll(prodProps);
        pp.put("key.serializer", ByteArraySerializer.class.getName());
        pp.put("value.serializer", ByteArraySerializer.class.getName());
        byte[] value = new byte[size];
        new Random(1).nextBytes(value);
        long start, measuredStart;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
            producer.partitionsFor(topic); // metadata before the clock starts
            start = System.nanoTime();
            measuredStart = start + TimeUnit.SECONDS.toNanos(warmupS);
            for (long i = 0; i < total; i++) {
                long due = start + (long) (i * 1e9 / rate);
                for (long d; (d = due - System.nanoTime()) > 0; ) LockSupport.parkNanos(d);
                boolean warm = i < warmupRecords;
                if (!warm) sendDelay.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(topic, value);
                rec.headers().add(PRODUCER, new byte[4]);
                rec.headers().add(SEQ, ByteBuffer.allocate(8).putLong(i).array());
                rec.headers().add(INTENDED, ByteBuffer.allocate(8).putLong(due).array());
                rec.headers().add(ACTUAL, ByteBuffer.allocate(8).putLong(System.nanoTime()).array());
                rec.headers().add(RUN, new byte[8]);
                if (warm) rec.headers().add(WARMUP, new byte[] {1});
                producer.send(rec, (md, ex) -> {
                    if (ex != null) {
                        failed.incrementAndGet();
                        return;
                    }
                    acked.incrementAndGet();
                    if (!warm) ack.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
                });
            }
            producer.flush();
        }
        long end = System.nanoTime();
        return new Sent(total - warmupRecords, (end - measuredStart) / 1e9, acked.get(), failed.get());
    }

    /** print writes the result's JSON; received < 0 and e2e null: a producer alone. */
    static void print(Sent s, long received, Histogram ack, Histogram e2e) {
        System.out.printf("{\"client\": \"java %s\", \"records\": %d, \"recordsPerSecond\": %.1f, \"failed\": %d%s, \"ackMicros\": %s%s}%n",
                org.apache.kafka.common.utils.AppInfoParser.getVersion(), s.measured(), s.measured() / s.window(), s.failed(),
                received < 0 ? "" : ", \"received\": " + received, json(ack), (e2e == null ? "" : ", \"endToEndMicros\": " + json(e2e))
                        + ", \"sendDelayMicros\": " + json(sendDelay));
    }

    /** checkSent exits 1 unless every record was acknowledged and every measured one timed. */
    static void checkSent(Sent s, long acks, long total, long measured) {
        if (s.failed() > 0 || s.acked() != total || acks != measured) {
            System.err.printf("LatencyProbe: %d sent, %d acknowledged, %d failed; %d ack latencies of %d measured%n",
                    total, s.acked(), s.failed(), acks, measured);
            System.exit(1);
        }
    }

    /** checkReceived exits 1 unless every record was received and every measured one timed. */
    static void checkReceived(long received, long e2es, long total, long measured) {
        if (received != total || e2es != measured) {
            System.err.printf("LatencyProbe: received %d of %d records; %d end-to-end latencies of %d measured%n", received, total, e2es, measured);
            System.exit(1);
        }
    }

    static String json(Histogram h) {
        StringBuilder b = new StringBuilder("{\"count\": " + h.getTotalCount());
        String[] names = {"p50", "p75", "p95", "p99", "p999"};
        double[] qs = {50, 75, 95, 99, 99.9};
        for (int i = 0; i < qs.length; i++) {
            b.append(", \"").append(names[i]).append("\": ").append(h.getValueAtPercentile(qs[i]));
        }
        return b.append(", \"max\": ").append(h.getMaxValue()).append("}").toString();
    }
}
