#!/usr/bin/env bash
# Producer throughput per client and codec (and raw) beside Kafka's own
# ProducerPerformance on the same broker, record size and settings, in one run. The
# java row is the JVM worker: ProducerPerformance's own client, so its ratio is the
# worker's overhead alone (pacing, histograms, headers, the codec).
# Prints ours / theirs, the serialization share of the producer's time, and whether
# the gap to 1.0 is within that share (the worker's own cost is then not the limit).
#
# ProducerPerformance sends random bytes of --record-size, which do not compress, so
# the comparison uses compression=none by default and gives Kafka's tool each codec's
# mean encoded size. Each pair runs BENCH_ROUNDS times, interleaved (ours then theirs,
# theirs then ours, ...) so drift hits both; the ratio is the project's estimator
# (hack/bench/ratio: Hodges-Lehmann on logarithms) with its interval and confidence.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
BOOTSTRAP="${SERDEBENCH_KAFKA:-127.0.0.1:9092}"
RECORDS="${BENCH_RECORDS:-200000}"
SIZE="${BENCH_SIZE_BYTES:-1176}"
SCHEMA="${BENCH_SCHEMA:-business-record}"
BATCH="${BENCH_BATCH_SIZE:-100000}" LINGER="${BENCH_LINGER_MS:-100}" ACKS="${BENCH_ACKS:-1}" COMPRESSION="${BENCH_COMPRESSION:-none}"
CODECS="${BENCH_CODECS:-raw json avro protobuf msgpack}"
CLIENTS="${BENCH_CLIENTS:-sarama franz-go librdkafka java}"
# ProducerPerformance's records carry no headers: ours carry the compact set.
HEADERS="${BENCH_HEADERS:-compact}"
# Interleaved rounds per pair: 5 give a 96.8 % interval of the ratio.
ROUNDS="${BENCH_ROUNDS:-5}"

. "$here/kafka-tools.sh"
bin="$repo/bin/producerbench"
go build -o "$bin" "$repo/hack/bench/producerbench"
ratio="$repo/bin/ratio"
go build -o "$ratio" "$repo/hack/bench/ratio"
# The Java client's row runs the JVM worker (bin/worker-jvm beside producerbench): the
# same client as ProducerPerformance, so its ratio is what the worker itself costs.
[[ " $CLIENTS " != *" java "* ]] || "$repo/hack/jvm/build.sh" >/dev/null

theirs() { # record-size -> records/sec
  local topic="serdebench.bench.kafka.$RANDOM$RANDOM"
  kafka_topic create "$topic"
  # The same warmup as ours; the steady-state line excludes it (and JIT warm-up).
  local out
  out="$(kj 300 org.apache.kafka.tools.ProducerPerformance --topic "$topic" \
      --num-records "$((RECORDS + RECORDS / 10))" --warmup-records "$((RECORDS / 10))" --record-size "$1" --throughput -1 \
      --producer-props bootstrap.servers="$BOOTSTRAP" acks="$ACKS" batch.size="$BATCH" linger.ms="$LINGER" \
      compression.type="$COMPRESSION" 2>/dev/null | grep 'steady state records sent')"
  kafka_topic delete "$topic" || true
  # "N steady state records sent, X records/sec (Y MB/sec), ..."
  sed -E 's/^[0-9]+ steady state records sent, ([0-9.]+) records\/sec.*/\1/' <<<"$out"
}

printf 'Producer throughput, %s %d B, %d records, batch.size=%s linger.ms=%s acks=%s compression=%s, 3 partitions\n' \
  "$SCHEMA" "$SIZE" "$RECORDS" "$BATCH" "$LINGER" "$ACKS" "$COMPRESSION"
printf '%-10s %-9s %6s %11s %12s %6s %-13s %5s %7s %6s %s\n' client codec "enc B" "ours rec/s" "kafka rec/s" ratio "interval" conf "ser µs" "ser %" verdict
# A broker just started runs its first minute cold (JIT): warm it with one run of
# each tool, not measured.
theirs "$SIZE" >/dev/null
"$bin" --bootstrap "$BOOTSTRAP" --codec raw --schema "$SCHEMA" --size "$SIZE" --records "$RECORDS" --warmup 0 \
  --batch-size "$BATCH" --linger-ms "$LINGER" --acks "$ACKS" --compression "$COMPRESSION" --headers "$HEADERS" >/dev/null
ours() { # client codec -> "encoded-bytes records/sec ser-µs"
  "$bin" --bootstrap "$BOOTSTRAP" --client "$1" --codec "$2" --schema "$SCHEMA" --size "$SIZE" --records "$RECORDS" \
    --warmup "$((RECORDS / 10))" --batch-size "$BATCH" --linger-ms "$LINGER" --acks "$ACKS" --compression "$COMPRESSION" --headers "$HEADERS" |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(round(r["serializedBytesPerRecord"]), round(r["recordsPerSecond"]), "%.2f" % r["serializeMicrosPerRecord"])'
}
below=0
for client in $CLIENTS; do
  for codec in $CODECS; do
    # The encoded size ProducerPerformance is given: ours, from a first run.
    read -r enc _ _ <<<"$(ours "$client" "$codec")"
    mine=() kafka=() sers=()
    for ((r = 1; r <= ROUNDS; r++)); do
      # Alternate which goes first, so a round's drift falls on both alike.
      if ((r % 2)); then
        read -r _ o s <<<"$(ours "$client" "$codec")"; k="$(theirs "$enc")"
      else
        k="$(theirs "$enc")"; read -r _ o s <<<"$(ours "$client" "$codec")"
      fi
      mine+=("$o") kafka+=("$k") sers+=("$s")
    done
    read -r est low high conf p <<<"$("$ratio" "${mine[@]}" -- "${kafka[@]}")"
    # The serialization share is the fraction of the producer's time in Marshal:
    # a codec may fall that far below 1.0 and no more — unless the ratio's interval
    # reaches it (not told apart).
    python3 - "$client" "$codec" "$enc" "$est" "$low" "$high" "$conf" "${mine[*]}" "${kafka[*]}" "${sers[*]}" <<'PY' || below=1
import statistics, sys
client, codec, enc = sys.argv[1], sys.argv[2], int(sys.argv[3])
est, low, high, conf = (float(x) for x in sys.argv[4:8])
ours = statistics.median(float(x) for x in sys.argv[8].split())
theirs = statistics.median(float(x) for x in sys.argv[9].split())
ser = statistics.median(float(x) for x in sys.argv[10].split())
share = ser * ours / 1e6
floor = 1.0 if codec == "raw" else 1.0 - share
ok = high >= floor
print("%-10s %-9s %6d %11.0f %12.0f %6.2f %-13s %4.1f%% %7.2f %6.1f %s" % (client, codec, enc, ours, theirs, est,
      "[%.2f, %.2f]" % (low, high), 100 * conf, ser, 100 * share, "ok" if ok else "BELOW"))
sys.exit(0 if ok else 1)
PY
  done
done
echo "ratio = ours / Kafka's ProducerPerformance (Java client), same broker and settings, over $ROUNDS interleaved rounds: the Hodges-Lehmann"
echo "estimate on logarithms, its interval at the confidence shown (conf); ours and kafka rec/s are the rounds' medians; ser % = Marshal time / producer time."
echo "verdict: raw must reach 1.0, a codec 1.0 minus its ser %: BELOW when the whole interval lies below that (BENCH_ROUNDS for more rounds)."
echo "headers: ours carry serdebench's $HEADERS set (BENCH_HEADERS), ProducerPerformance's none."
exit "$below"
