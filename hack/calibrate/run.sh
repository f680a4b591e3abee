#!/usr/bin/env bash
# hack/calibrate/run.sh — the latency calibration (make calibrate; docs/measurement.md,
# "Calibration"). Run as root. For each injected one-way delay D (CALIB_DELAYS, default
# "0 10 40") it starts a broker in a network namespace behind a delayed veth
# (hack/calibrate/netns.sh) and runs, one after the other on that broker:
#   - a warm-up run with franz-go (the broker is fresh), not checked
#   - serdebench with each client (CALIB_CLIENTS, default "sarama franz-go librdkafka") on
#     hack/calibrate/experiment.yaml -> out/<client>-d<D>.json, and sarama again with
#     128 KiB batches, which it keeps up with -> out/sarama-128k-d<D>.json
#   - Kafka's ProducerPerformance with the same settings -> out/java-pp-d<D>.txt
#   - Kafka's EndToEndLatency -> out/java-e2e-d<D>.txt
# then measures the local fault engine (hack/calibrate/faultcal) -> out/faults.json.
# Results go to $CALIB_DIR (default .state/calibrate/out). The assertions live in
# e2e/calibration (go test -tags calibration), which runs this script.
set -euo pipefail
export LC_ALL=C
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
: "${CALIB_DIR:=$REPO/.state/calibrate/out}" "${CALIB_DELAYS:=0 10 40}" "${CALIB_CLIENTS:=sarama franz-go librdkafka}"
# cubic: bbr (this kernel's default) paces each app-limited burst — a fetch
# response of ~140 KB every round trip — and spreads it over milliseconds, which is
# the kernel's doing, not the client's. netns.sh restores the host's setting.
: "${CALIB_TCP_CC:=cubic}"
# Autotuned broker socket buffers: Kafka's 100 KiB receive buffer caps one
# connection near 2 MB/s at 50 ms RTT, and the workload sends 2.35 MB/s.
: "${CALIB_BROKER_PROPS:=socket.receive.buffer.bytes=-1 socket.send.buffer.bytes=-1}"
RATE=2000 SIZE=1176 WARMUP_S=5 MEASURE_S=10

log() { echo "[calibrate $(date +%T)] $*" >&2; }

if [ "${1:-}" = --inner ]; then # under netns.sh: BOOTSTRAP, DELAY_MS, KAFKA_LIBS set
  bin="$REPO/bin/serdebench"
  variants=$CALIB_CLIENTS
  [[ " $CALIB_CLIENTS " == *" sarama "* ]] && variants+=" sarama-128k"
  # run VARIANT OUT: serdebench on the calibration experiment with VARIANT's client
  # (sarama-128k: sarama with 128 KiB batches), its JSON report to $CALIB_DIR/OUT.
  run() {
    local v=$1 c=${1%-128k}
    sed "s/^  codecs:/  client: $c\n  codecs:/" "$HERE/experiment.yaml" >"$CALIB_DIR/experiment-$v.yaml"
    [ "$v" = "$c" ] || sed -i 's/batchSizeBytes: 16384/batchSizeBytes: 131072/' "$CALIB_DIR/experiment-$v.yaml"
    echo "=== serdebench $v -> $2"
    # A saturated client (sarama at 16 KiB and 50 ms RTT) takes minutes to drain.
    timeout 600 "$bin" run -q -f "$CALIB_DIR/experiment-$v.yaml" --bootstrap "$BOOTSTRAP" --trial-timeout 9m -o json \
      >"$CALIB_DIR/$2"
  }
  # The broker is fresh and its JIT cold, which the first client measured used to
  # pay for (docs/measurement.md, "Calibration"): an unchecked franz-go run goes
  # first (it keeps the rate at every delay). If it fails, the rig is broken.
  run franz-go "warmup-d$DELAY_MS.json"
  for v in $variants; do
    # sarama with 16 KiB batches falls to ~130 rec/s at 80 ms round trip and takes
    # minutes to drain: it runs only up to CALIB_SARAMA_MAX_DELAY_MS (unset: always).
    if [ "$v" = sarama ] && [ -n "${CALIB_SARAMA_MAX_DELAY_MS:-}" ] && [ "$DELAY_MS" -gt "$CALIB_SARAMA_MAX_DELAY_MS" ]; then
      continue
    fi
    run "$v" "$v-d$DELAY_MS.json"
  done
  kj() { timeout 300 java -Xmx512m -Dlog4j2.configurationFile="$KAFKA_LOG4J_CLI" -cp "$KAFKA_LIBS/*" "$@"; }
  echo "=== ProducerPerformance"
  # The experiment's settings, but Java's default (sticky) partitioner: its
  # RoundRobinPartitioner adds its own latency (KAFKA-9965); the warmup records are
  # the same 5 s at the same rate.
  kj org.apache.kafka.tools.ProducerPerformance --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" \
    --num-records $((RATE * (WARMUP_S + MEASURE_S))) --warmup-records $((RATE * WARMUP_S)) --record-size $SIZE \
    --throughput $RATE --command-property acks=1 --command-property linger.ms=5 --command-property batch.size=16384 \
    --command-property max.in.flight.requests.per.connection=20 --command-property enable.idempotence=false \
    --command-property send.buffer.bytes=-1 --command-property receive.buffer.bytes=-1 \
    >"$CALIB_DIR/java-pp-d$DELAY_MS.txt" 2>&1
  echo "=== EndToEndLatency"
  # Reported, not judged: 100 sync sends, two round trips each (48 s at D=40 for 300).
  kj org.apache.kafka.tools.EndToEndLatency --bootstrap-server "$BOOTSTRAP" --topic "$TOPIC" \
    --num-records 100 --producer-acks 1 --record-size $SIZE >"$CALIB_DIR/java-e2e-d$DELAY_MS.txt" 2>&1
  exit 0
fi

[ "$(id -u)" = 0 ] || { log "ERROR: run as root (network namespace, veth, iptables)"; exit 1; }
# netns.sh needs ip, tc, iptables (NFQUEUE), sysctl, chrt, setsid, flock and a JDK.
"$REPO/hack/apt-install.sh" iproute2=6.1.0-3 iptables=1.8.9-2 procps=2:4.0.2-3
# Leftovers of a run that was SIGKILLed (namespace, veth, rules, processes by PID).
if [ -f "$REPO/.state/calibrate/pids/ns.pid" ] || ip link show sdbk-h >/dev/null 2>&1; then
  log "removing a killed run's leftovers"
  "$HERE/netns.sh" --cleanup
fi
(cd "$REPO" && go build -o bin/serdebench ./cmd/serdebench)
mkdir -p "$CALIB_DIR"
rm -f "$CALIB_DIR"/*.json "$CALIB_DIR"/java-*.txt "$CALIB_DIR"/faultcal
for d in $CALIB_DELAYS; do
  log "D=${d} ms each way: ${CALIB_CLIENTS}, ProducerPerformance, EndToEndLatency"
  OUT="$CALIB_DIR/run-d$d.txt" TCP_CC="$CALIB_TCP_CC" BROKER_PROPS="$CALIB_BROKER_PROPS" \
    CALIB_DIR="$CALIB_DIR" CALIB_CLIENTS="$CALIB_CLIENTS" \
    "$HERE/netns.sh" "$d" -- "$HERE/run.sh" --inner >&2
done
# The fault engine serdebench run uses (internal/netem/engine), measured from outside:
# delay distributions, loss and a bandwidth cap (hack/calibrate/faultcal).
(cd "$REPO" && go build -o "$CALIB_DIR/faultcal" ./hack/calibrate/faultcal)
log "the fault engine: delay distributions, loss, bandwidth"
OUT="$CALIB_DIR/run-faults.txt" "$HERE/netns.sh" 0 -- "$CALIB_DIR/faultcal" -o "$CALIB_DIR/faults.json" >&2
log "results in $CALIB_DIR"
