#!/usr/bin/env bash
# Fixed-rate latency beside the Java client on the same broker and settings (make
# bench; issue: "compared with a Java-client benchmark"). For each rate it runs, one
# after the other:
#   - serdebench (raw codec) with sarama, franz-go, librdkafka and the JVM worker
#     (client java: LatencyProbe's own client, so its ratio is the worker's overhead);
#   - LatencyProbe (hack/bench/java): the Java client on serdebench's schedule, record
#     i due at start + i/rate, ack and end-to-end latency from that intended time in
#     microseconds. The ratios are against it.
#   - Kafka's ProducerPerformance with the same settings, for reference: whole
#     milliseconds, timed from each record's actual send after a throttle that
#     sends in bursts (it sleeps once 2 ms of schedule has accumulated).
# and once, Kafka's EndToEndLatency (one record at a time, acks=1). The first two
# repeat BENCH_REPEATS times (default 5), interleaved so that drift hits all of them;
# on 2 shared cores one run's p50 moves by ±0.3 ms at 20,000 rec/s. Every run warms
# up 20 s (BENCH_WARMUP_S): after 5 s at 20,000 rec/s HotSpot was still compiling the
# Java client's send path through the window (docs/measurement.md, "JIT warm-up").
# Prints the median over repeats of ack and end-to-end p50/p99 per client, and each
# ratio to the Java client as the project's estimator (hack/bench/ratio:
# Hodges-Lehmann on logarithms) with its interval and confidence (5 and 5 rounds:
# 96.8 %). The target is ack p50 within 1.2x of Java's: met when the whole interval
# is at or below it, missed when the whole interval is above it, else undecided
# (more rounds tell). Raw numbers: .state/bench/latency/.
set -euo pipefail
export LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
BOOTSTRAP="${SERDEBENCH_KAFKA:-127.0.0.1:9092}"
RATES="${BENCH_RATES:-2000 20000}"
SIZE="${BENCH_SIZE_BYTES:-1176}"
WARMUP_S="${BENCH_WARMUP_S:-20}" MEASURE_S="${BENCH_DURATION_S:-10}"
ACKS="${BENCH_ACKS:-1}" LINGER="${BENCH_LINGER_MS:-5}" BATCH="${BENCH_BATCH_SIZE:-16384}" INFLIGHT="${BENCH_MAX_IN_FLIGHT:-20}"
PARTITIONER="${BENCH_PARTITIONER:-sticky}" REPEATS="${BENCH_REPEATS:-5}" TARGET=1.2
CLIENTS="${BENCH_CLIENTS:-sarama franz-go librdkafka java}"
out="$repo/.state/bench/latency"
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.txt

. "$here/kafka-tools.sh"
# to FILE CMD...: runs CMD with its output in FILE; on failure shows FILE and stops.
to() {
  local f=$1; shift
  "$@" >"$f" 2>&1 || { echo "latency bench: failed ($*):" >&2; tail -20 "$f" >&2; exit 1; }
}
(cd "$repo" && go build -o bin/serdebench ./cmd/serdebench && go build -o bin/ratio ./hack/bench/ratio)
# serdebench run finds the JVM worker beside itself (bin/worker-jvm).
[[ " $CLIENTS " != *" java "* ]] || "$repo/hack/jvm/build.sh" >/dev/null
# Java's names for the same settings; idempotence off as in serdebench's default.
javaprops=(acks="$ACKS" linger.ms="$LINGER" batch.size="$BATCH" max.in.flight.requests.per.connection="$INFLIGHT"
  enable.idempotence=false)
[ "$PARTITIONER" = sticky ] || javaprops+=(partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner)

experiment() { # client rate
  cat <<YAML
apiVersion: serdebench.io/v1alpha1
kind: SerializationExperiment
metadata:
  name: bench-latency
spec:
  client: $1
  codecs: [raw]
  payload: {schema: business-record, sizesBytes: [$SIZE]}
  producer: {batchSizeBytes: $BATCH, lingerMs: $LINGER, acks: "$ACKS", compression: none, maxInFlight: $INFLIGHT, partitioner: $PARTITIONER}
  rate: {recordsPerSecond: $2}
  warmup: {durationSeconds: $WARMUP_S}
  durationSeconds: $MEASURE_S
  topic: {partitions: 3, replicas: 1}
YAML
}

# probe_split RATE REP PROBEARGS...: LatencyProbe as two JVMs, a consumer started
# first and a producer, on a topic made for them; their results in one file.
probe_split() {
  local rate=$1 rep=$2 topic="serdebench.bench.probe2.$RANDOM$RANDOM" ready="$out/probe2-ready" cpid i
  shift 2
  echo "bench: Java LatencyProbe in two JVMs at $rate rec/s ($rep/$REPEATS)" >&2
  kafka_topic create "$topic"
  rm -f "$ready"
  kj 300 "$here/java/LatencyProbe.java" --role consume --topic "$topic" --ready-file "$ready" --bootstrap "$BOOTSTRAP" \
    --rate "$rate" --warmup-s "$WARMUP_S" --duration-s "$MEASURE_S" --partitions 3 >"$out/probe2-consume-$rate-$rep.json" &
  cpid=$!
  for i in $(seq 600); do [ -f "$ready" ] || ! kill -0 "$cpid" 2>/dev/null || [ "$i" = 600 ] && break; sleep 0.1; done
  [ -f "$ready" ] || split_failed "$cpid" "$topic" "the probe's consumer was not ready within 60 s"
  kj 300 "$here/java/LatencyProbe.java" --role produce --topic "$topic" --bootstrap "$BOOTSTRAP" --rate "$rate" --size "$SIZE" \
    --warmup-s "$WARMUP_S" --duration-s "$MEASURE_S" --partitions 3 "$@" >"$out/probe2-produce-$rate-$rep.json" ||
    split_failed "$cpid" "$topic" "LatencyProbe's producer at $rate rec/s failed"
  wait "$cpid" || split_failed "" "$topic" "LatencyProbe's consumer at $rate rec/s failed"
  kafka_topic delete "$topic" || true
}

# split_failed PID TOPIC MESSAGE: stops the probe's consumer (kj's subshell PID: its
# child, timeout, passes SIGTERM on to the JVM), deletes the topic, and fails.
split_failed() {
  if [ -n "$1" ]; then
    pkill -TERM -P "$1" 2>/dev/null || true
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
  fi
  kafka_topic delete "$2" || true
  echo "latency bench: $3" >&2
  exit 1
}

for rate in $RATES; do
  for rep in $(seq "$REPEATS"); do
    for client in $CLIENTS; do
      echo "bench: serdebench $client at $rate rec/s ($rep/$REPEATS)" >&2
      experiment "$client" "$rate" >"$out/experiment-$client-$rate.yaml"
      timeout 600 "$repo/bin/serdebench" run -q -f "$out/experiment-$client-$rate.yaml" --bootstrap "$BOOTSTRAP" \
        --trial-timeout 9m -o json >"$out/$client-$rate-$rep.json" ||
        { echo "latency bench: serdebench $client at $rate rec/s failed" >&2; exit 1; }
    done
    echo "bench: Java LatencyProbe at $rate rec/s ($rep/$REPEATS)" >&2
    probeargs=()
    for p in "${javaprops[@]}"; do probeargs+=(--producer-prop "$p"); done
    # Its JSON on stdout, warnings on stderr: keep them apart.
    kj 300 "$here/java/LatencyProbe.java" --bootstrap "$BOOTSTRAP" --rate "$rate" --size "$SIZE" \
      --warmup-s "$WARMUP_S" --duration-s "$MEASURE_S" --partitions 3 "${probeargs[@]}" >"$out/probe-$rate-$rep.json" ||
      { echo "latency bench: LatencyProbe at $rate rec/s failed" >&2; exit 1; }
    # The JVM worker runs its producers and consumers in two JVMs: beside it, the
    # probe split the same way, so its ratio is the worker's overhead and not the
    # second JVM's (on 2 cores a second JVM alone costs ~0.3 ms of ack p50 at 20,000).
    [[ " $CLIENTS " != *" java "* ]] || probe_split "$rate" "$rep" "${probeargs[@]}"
  done
  echo "bench: ProducerPerformance at $rate rec/s" >&2
  topic="serdebench.bench.pp.$RANDOM$RANDOM"
  kafka_topic create "$topic"
  to "$out/java-pp-$rate.txt" kj 300 org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$BOOTSTRAP" --topic "$topic" \
    --num-records $((rate * (WARMUP_S + MEASURE_S))) --warmup-records $((rate * WARMUP_S)) --record-size "$SIZE" \
    --throughput "$rate" $(printf -- '--command-property %s ' "${javaprops[@]}")
  kafka_topic delete "$topic" || true
done
echo "bench: EndToEndLatency" >&2
topic="serdebench.bench.e2e.$RANDOM$RANDOM"
kafka_topic create "$topic" 1
to "$out/java-e2e.txt" kj 300 org.apache.kafka.tools.EndToEndLatency --bootstrap-server "$BOOTSTRAP" --topic "$topic" \
  --num-records 2000 --producer-acks "$ACKS" --record-size "$SIZE"
kafka_topic delete "$topic" || true

printf '\nFixed-rate latency: raw %d B, acks=%s linger.ms=%s batch.size=%s max.in.flight=%s, %s partitioner, 3 partitions, %d s warmup + %d s; ms\n' \
  "$SIZE" "$ACKS" "$LINGER" "$BATCH" "$INFLIGHT" "$PARTITIONER" "$WARMUP_S" "$MEASURE_S"
printf 'The Java client (LatencyProbe, Kafka tools) on Java %s\n' "$(java_runtime_version "$bench_java")"
BENCH_RATIO="$repo/bin/ratio" BENCH_OUT="$out" BENCH_RATES="$RATES" BENCH_REPEATS="$REPEATS" BENCH_CLIENTS="$CLIENTS" TARGET="$TARGET" python3 "$here/latency-table.py"
