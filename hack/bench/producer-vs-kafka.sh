#!/usr/bin/env bash
# Producer throughput per codec (and raw) beside Kafka's own ProducerPerformance on the
# same broker, record size and settings, in one run. Prints ours / theirs.
#
# ProducerPerformance sends random bytes of --record-size, which do not compress, so
# the comparison uses compression=none by default and gives Kafka's tool each codec's
# mean encoded size. Runs alternate (ours, theirs) per codec so drift hits both.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
BOOTSTRAP="${SERDEBENCH_KAFKA:-127.0.0.1:9092}"
RECORDS="${BENCH_RECORDS:-200000}"
SIZE="${BENCH_SIZE_BYTES:-1176}"
SCHEMA="${BENCH_SCHEMA:-business-record}"
BATCH="${BENCH_BATCH_SIZE:-100000}" LINGER="${BENCH_LINGER_MS:-100}" ACKS="${BENCH_ACKS:-1}" COMPRESSION="${BENCH_COMPRESSION:-none}"
CODECS="${BENCH_CODECS:-raw json avro protobuf msgpack}"

. "$here/kafka-tools.sh"
bin="$repo/bin/producerbench"
go build -o "$bin" "$repo/hack/bench/producerbench"

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
printf '%-9s %10s %14s %16s %8s %10s\n' codec "enc B" "ours rec/s" "kafka rec/s" "ratio" "ser µs"
for codec in $CODECS; do
  ours="$("$bin" --bootstrap "$BOOTSTRAP" --codec "$codec" --schema "$SCHEMA" --size "$SIZE" --records "$RECORDS" \
    --warmup "$((RECORDS / 10))" --batch-size "$BATCH" --linger-ms "$LINGER" --acks "$ACKS" --compression "$COMPRESSION")"
  enc="$(python3 -c 'import json,sys; print(round(json.load(sys.stdin)["serializedBytesPerRecord"]))' <<<"$ours")"
  ours_rps="$(python3 -c 'import json,sys; print(round(json.load(sys.stdin)["recordsPerSecond"]))' <<<"$ours")"
  ser="$(python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["serializeMicrosPerRecord"])' <<<"$ours")"
  their_rps="$(theirs "$enc")"
  ratio="$(python3 -c "print('%.2f' % ($ours_rps / float('$their_rps')))")"
  printf '%-9s %10s %14s %16.0f %8s %10s\n' "$codec" "$enc" "$ours_rps" "$their_rps" "$ratio" "$ser"
done
echo "ratio = ours / Kafka's ProducerPerformance (Java client), same broker and settings; ±40% run-to-run noise on this machine, compare within one run."
