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
        Properties prod = new Properties();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--bootstrap": bootstrap = args[++i]; break;
                case "--rate": rate = Long.parseLong(args[++i]); break;
                case "--size": size = Integer.parseInt(args[++i]); break;
                case "--warmup-s": warmupS = Long.parseLong(args[++i]); break;
                case "--duration-s": durationS = Long.parseLong(args[++i]); break;
                case "--partitions": partitions = Integer.parseInt(args[++i]); break;
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
        String topic = "serdebench.bench.probe." + UUID.randomUUID();
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
            try {
                run(common, prod, topic, partitions, rate, size, warmupS, durationS);
            } finally {
                admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
            }
        }
    }

    static void run(Properties common, Properties prodProps, String topic, int partitions, long rate, int size,
            long warmupS, long durationS) throws Exception {
        Histogram ack = new Histogram(3_600_000_000L, 3), e2e = new Histogram(3_600_000_000L, 3);
        AtomicLong failed = new AtomicLong(), acked = new AtomicLong();
        long total = rate * (warmupS + durationS), warmupRecords = rate * warmupS;

        Properties cp = new Properties();
        cp.putAll(common);
        cp.put("group.id", "serdebench-probe-" + UUID.randomUUID());
        cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
        cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp);
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) tps.add(new TopicPartition(topic, p));
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        consumer.poll(Duration.ZERO); // connect and fetch positions before the clock starts
        long[] received = {0};
        Thread reader = new Thread(() -> {
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmupS + durationS + 60);
                while (received[0] < total && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        long now = System.nanoTime();
                        received[0]++;
                        if (r.headers().lastHeader(WARMUP) != null) continue;
                        Header h = r.headers().lastHeader(INTENDED);
                        e2e.recordValue(Math.max(0, (now - ByteBuffer.wrap(h.value()).getLong()) / 1000));
                    }
                }
            } finally {
                consumer.close();
            }
        });
        reader.start();

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
        reader.join(TimeUnit.SECONDS.toMillis(90));
        if (reader.isAlive()) {
            // Its counts and histogram are not safe to read while it runs.
            System.err.printf("LatencyProbe: the consumer received %d of %d records within 90 s of the last send%n", received[0], total);
            System.exit(1);
        }
        double window = (end - measuredStart) / 1e9;
        System.out.printf("{\"client\": \"java %s\", \"records\": %d, \"recordsPerSecond\": %.1f, \"failed\": %d, "
                + "\"received\": %d, \"ackMicros\": %s, \"endToEndMicros\": %s}%n",
                org.apache.kafka.common.utils.AppInfoParser.getVersion(), total - warmupRecords,
                (total - warmupRecords) / window, failed.get(), received[0], json(ack), json(e2e));
        if (failed.get() > 0 || acked.get() != total || received[0] != total || ack.getTotalCount() != total - warmupRecords
                || e2e.getTotalCount() != total - warmupRecords) {
            System.err.printf("LatencyProbe: %d sent, %d acknowledged, %d failed, %d received; %d ack and %d end-to-end latencies of %d measured%n",
                    total, acked.get(), failed.get(), received[0], ack.getTotalCount(), e2e.getTotalCount(), total - warmupRecords);
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
