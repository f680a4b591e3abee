#!/usr/bin/env bash
# How many warmup records the JVM worker needs before its window stops measuring
# the JIT (docs/measurement.md, "JIT warm-up"; protocol.MinJVMWarmupRecords). For
# each record size it runs the JVM worker's producer alone (hack/bench/producerbench
# --client java, closed loop) after each warmup in BENCH_WARMUPS, BENCH_ROUNDS
# rounds interleaved so that drift hits every warmup alike, and compares each
# warmup's records/s with the longest's: the project's estimator (hack/bench/ratio)
# with its interval and confidence. A warmup is short when the whole interval lies
# below 0.95 (the window ran measurably slower than after the longest warmup).
# Raw numbers: .state/bench/jit/.
set -euo pipefail
export LC_ALL=C
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
BOOTSTRAP="${SERDEBENCH_KAFKA:-127.0.0.1:9092}"
CODEC="${BENCH_CODEC:-json}"
SCHEMA="${BENCH_SCHEMA:-simple}"
SIZES="${BENCH_SIZES:-100 1176 10000}"
WARMUPS="${BENCH_WARMUPS:-0 2500 5000 10000 20000 40000}"
ROUNDS="${BENCH_ROUNDS:-5}"
# Measured records: BENCH_RECORDS, else 100,000, or 200 MB for larger records.
records() { echo "${BENCH_RECORDS:-$(( $1 > 2000 ? 200000000 / $1 : 100000 ))}"; }
out="$repo/.state/bench/jit"
mkdir -p "$out"
rm -f "$out"/*.json
(cd "$repo" && go build -o bin/producerbench ./hack/bench/producerbench && go build -o bin/ratio ./hack/bench/ratio)
"$repo/hack/jvm/build.sh" >/dev/null
for size in $SIZES; do
  for round in $(seq "$ROUNDS"); do
    for w in $WARMUPS; do
      echo "jit: $CODEC $SCHEMA $size B, warmup $w, round $round/$ROUNDS" >&2
      timeout 600 "$repo/bin/producerbench" --client java --bootstrap "$BOOTSTRAP" --codec "$CODEC" --schema "$SCHEMA" --size "$size" \
        --warmup "$w" --records "$(records "$size")" >"$out/$size-$w-$round.json" ||
        { echo "jit bench: $size B, warmup $w failed" >&2; exit 1; }
    done
  done
done

longest="${WARMUPS##* }"
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf '\nJVM worker, %s on %s, producer alone (closed loop), records/s after each warmup; ratio to warmup %s, %d rounds\n' "$CODEC" "$SCHEMA" "$longest" "$ROUNDS"
printf '%8s %8s %10s %12s %30s\n' "size B" "warmup" "rec/s" "ack p99 ms" "rec/s / longest warmup's"
for size in $SIZES; do
  ref=()
  for round in $(seq "$ROUNDS"); do ref+=("$(field "$out/$size-$longest-$round.json" recordsPerSecond)"); done
  for w in $WARMUPS; do
    rps=() p99=()
    for round in $(seq "$ROUNDS"); do
      rps+=("$(field "$out/$size-$w-$round.json" recordsPerSecond)")
      p99+=("$(field "$out/$size-$w-$round.json" ackP99Micros)")
    done
    read -r est low high conf _p < <("$repo/bin/ratio" "${rps[@]}" -- "${ref[@]}")
    verdict=""
    [ "$w" = "$longest" ] || verdict=$(awk -v h="$high" 'BEGIN {print (h < 0.95 ? "short" : "")}')
    printf '%8s %8s %10.0f %12.1f %12.2fx [%.2f-%.2f] %3.0f%% %s\n' "$size" "$w" "$(median "${rps[@]}")" \
      "$(awk -v m="$(median "${p99[@]}")" 'BEGIN {print m/1000}')" "$est" "$low" "$high" "$(awk -v c="$conf" 'BEGIN {print c*100}')" "$verdict"
  done
done
