#!/usr/bin/env bash
# hack/calibrate/netns.sh [DELAY_MS] -- COMMAND [ARGS...]   (run as root)
# hack/calibrate/netns.sh --cleanup                         (remove leftovers of a killed run)
#
# serdebench's latency calibration rig (docs/measurement.md, "Calibration"); adopted
# from the verified netem-calibration reference. The kernel here has no netem, so the
# delay is an NFQUEUE program (hack/calibrate/nfqdelay) unless tc netem works.
#
# Runs COMMAND on the host against a fresh single-node KRaft broker that lives in
# its own network namespace (held by a process, never named: `ip netns add` would
# mount /run/netns on the host and `ip netns del` leaves that mount) behind a veth pair whose two directions each carry DELAY_MS
# of added one-way delay (added RTT = 2*DELAY_MS; 0 = no delay). COMMAND gets
# BOOTSTRAP, TOPIC, DELAY_MS, RTT_ADDED_MS, DELAY_MODE, SERDEBENCH_FAULT_INTERFACE (the host
# side of the veth, where the broker's packets arrive: serdebench run's local faults
# impair them), BROKER_PID and NS_PID; its stdout+stderr go to $OUT.
# Everything is torn down on exit, error or signal. See README.md.
# Env: KAFKA_LIBS (default: the jars hack/kafka/kafka.sh resolves), STATE_DIR (.state/calibrate), OUT, TOPIC, PARTITIONS, BROKER_HEAP, BROKER_PROPS,
#      BROKER_REQUEST_LOG, READY_TIMEOUT, DELAY_MODE, NETEM_LIMIT, NFQ_NUM, NFQ_RT_PRIO, TCP_CC, KEEP_DATA
set -Eeuo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# shellcheck source=../lib/daemon.sh
. "$REPO/hack/lib/daemon.sh"
: "${STATE_DIR:=$REPO/.state/calibrate}"
: "${TOPIC:=calib}" "${PARTITIONS:=3}" "${BROKER_HEAP:=512m}" "${READY_TIMEOUT:=120}"
: "${DELAY_MODE:=auto}"            # auto | netem | nfqueue
: "${NFQ_NUM:=4213}"               # NFQUEUE number used by the nfqueue fallback
: "${NFQ_RT_PRIO:=20}"             # SCHED_FIFO priority of the nfqueue delayers (0 = normal)
: "${NETEM_LIMIT:=100000}"         # netem queue limit in packets (default 1000 drops at high rates)
: "${TCP_CC:=}"                    # e.g. cubic: congestion control for host and namespace (host value restored)
VETH_H=sdbk-h VETH_N=sdbk-n IP_H=10.213.0.1 IP_N=10.213.0.2
BOOTSTRAP="$IP_N:9092"
PIDS="$STATE_DIR/pids"
TEARDOWN_OK=0
RC=0 # the script's exit status, once it is exiting

log() { echo "[calibrate $(date +%T)] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---------------------------------------------------------------- teardown
# Processes we start are recorded as "PID STARTTIME" (field 22 of /proc/PID/stat),
# so a stale pid file never makes us signal an unrelated process that reused the PID.
# (hack/lib/daemon.sh's format and checks; these processes start in namespaces, so
# not through daemon_start.)
save_pid() { echo "$2 $(daemon_starttime "$2")" >"$PIDS/$1.pid"; }
ours() { # name -> prints the PID if that process is still the one we started
  daemon_alive "$PIDS/$1.pid" && daemon_pid "$PIDS/$1.pid"
}
stop_pid() { # name timeout_s [group]: SIGTERM (to the process group if "group"), then SIGQUIT, then SIGKILL
  local pid tgt
  if pid=$(ours "$1"); then
    tgt=$pid; [ "${3:-}" = group ] && tgt=-$pid
    kill -TERM -- "$tgt" 2>/dev/null || true
    # daemon_gone, not kill -0: an exited child is a zombie until it is reaped
    for _ in $(seq $(( $2 * 10 ))); do daemon_gone "$pid" && break; sleep 0.1; done
    if ! daemon_gone "$pid"; then
      # SIGQUIT first: a Go program dumps its goroutines, a JVM its threads, into
      # its log -- what it was stuck on.
      log "$1 ($pid) ignored SIGTERM; SIGQUIT, then SIGKILL"
      kill -QUIT "$pid" 2>/dev/null || true
      sleep 1
      kill -KILL -- "$tgt" 2>/dev/null || true
    fi
  fi
  rm -f "$PIDS/$1.pid"
}
# nsx COMMAND...: run COMMAND in the broker's network namespace (the holder's).
nsx() { local h; h=$(ours ns) || die "the namespace holder is gone"; nsenter --net="/proc/$h/ns/net" "$@"; }
# nsnet: the namespace's path for `nsenter --net=`. Background a process with
# `nsenter --net="$net" setsid CMD &`, never `nsx ... &`: a backgrounded function
# runs in a forked subshell, so $! would be the subshell's PID and not the process's.
nsnet() { local h; h=$(ours ns) || die "the namespace holder is gone"; echo "/proc/$h/ns/net"; }
# mounts: what a network-namespace tool could leave mounted (/run/netns and its
# bind mounts, nsfs). A cluster's pods come and go meanwhile: CNI's own namespaces
# (cni-*) and the kubelet's volumes are theirs, not this script's, and not listed.
mounts() {
  awk '{for (i = 7; $i != "-"; i++) {}; print $5, $(i + 1)}' /proc/self/mountinfo \
    | awk '($2 == "nsfs" || $1 ~ "^(/var)?/run/netns(/|$)") && $1 !~ "/cni-" {print $1}' | sort
}
host_rule() { iptables -w -t mangle "$1" PREROUTING -i "$VETH_H" -j NFQUEUE --queue-num "$NFQ_NUM"; }

teardown() {
  set +e
  ours cmd >/dev/null && log "stopping the command (its process group)"
  stop_pid cmd 5 group   # the command runs in its own session: end its whole group
  # delay first, so that the broker's shutdown traffic is not held
  tc qdisc del dev "$VETH_H" root 2>/dev/null
  ours ns >/dev/null && nsx tc qdisc del dev "$VETH_N" root 2>/dev/null
  while host_rule -C 2>/dev/null; do host_rule -D; done
  # and any rule a killed command's fault engine left on the interface
  for chain in PREROUTING:-i POSTROUTING:-o; do
    iptables -w -t mangle -S "${chain%%:*}" 2>/dev/null | grep -- "${chain#*:} $VETH_H " | sed 's/^-A //' | while read -r rule; do
      # shellcheck disable=SC2086  # the rule's own words
      iptables -w -t mangle -D "${chain%%:*}" ${rule#* }
    done
  done
  ours ns >/dev/null && nsx iptables -w -t mangle -F PREROUTING 2>/dev/null
  stop_pid nfq-host 3
  stop_pid nfq-ns 3
  for f in "$STATE_DIR"/nfq-host.log "$STATE_DIR"/nfq-ns.log; do
    [ -f "$f" ] || continue
    [ -n "${OUT:-}" ] && [ -f "$OUT" ] && sed -n 's/^/# nfqdelay '"$(basename "$f" .log | sed 's/nfq-//')"': /p' "$f" | grep -E 'STATS|KERNEL' >>"$OUT"
    # A failed command may be the rig's fault: its path's last heartbeats (and a
    # goroutine dump, if it had to be killed) go where the failure is read.
    if [ "$RC" != 0 ]; then
      log "$(basename "$f"), last heartbeats:"; grep '^ALIVE' "$f" | tail -n 6 | sed 's/^/    /' >&2
      log "$(basename "$f"), last other lines:"; grep -v '^READY\|^ALIVE' "$f" | tail -n 30 | sed 's/^/    /' >&2
    fi
    # packets dropped by the kernel queue or its netlink socket, or releases late by >1 ms at p99
    awk '/^STATS/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                    if (v["enobufs"] > 0 || v["packets"] != v["released"] + v["lost"] || v["p99"] > 1000) bad = 1 }
         /^KERNEL/ { if ($8 + $9 > 0) bad = 1 }  END { exit !bad }' "$f" \
      && log "WARNING: $(basename "$f"): the nfqueue delay dropped packets or ran late: $(grep -E 'STATS|KERNEL' "$f" | tr '\n' ' ')"
  done
  stop_pid broker 30
  if [ -f "$STATE_DIR/host_cc.orig" ]; then
    sysctl -qw net.ipv4.tcp_congestion_control="$(cat "$STATE_DIR/host_cc.orig")" && rm -f "$STATE_DIR/host_cc.orig"
  fi
  ip link del "$VETH_H" 2>/dev/null   # removes the peer too
  stop_pid ns 3                       # the namespace ends with its last process
  [ "${KEEP_DATA:-0}" = 1 ] || rm -rf "$STATE_DIR/broker/data"
  TEARDOWN_OK=1
  if ours ns >/dev/null || ip link show "$VETH_H" >/dev/null 2>&1 || host_rule -C 2>/dev/null; then
    log "ERROR: teardown incomplete (namespace holder, veth or rule still present)"; TEARDOWN_OK=0
  fi
  # Nothing here mounts anything: a namespace mount that appeared is a leftover
  # (iproute2's `ip netns add` mounts /run/netns) that `make down` would later
  # blame on the cluster.
  if [ -f "$STATE_DIR/mounts.before" ] && ! diff <(cat "$STATE_DIR/mounts.before") <(mounts) >"$STATE_DIR/mounts.diff"; then
    log "ERROR: the host's mounts changed during the run: $(tr '\n' ' ' <"$STATE_DIR/mounts.diff")"; TEARDOWN_OK=0
  fi
  rm -f "$STATE_DIR/mounts.before"
  [ "$TEARDOWN_OK" = 1 ] && log "teardown complete"
}

# shellcheck disable=SC2317  # invoked by trap
on_exit() { local rc=$?; RC=$rc; trap - EXIT INT TERM; teardown; [ "$rc" != 0 ] || [ "$TEARDOWN_OK" = 1 ] || rc=1; exit "$rc"; }

# ---------------------------------------------------------------- helpers
kjava() { timeout 120 java -Xmx256m -Dlog4j2.configurationFile="$REPO/hack/kafka/log4j2-cli.properties" -cp "$KAFKA_LIBS/*" "$@"; }

# TCP connect time (SYN -> SYN/ACK = one RTT) to the broker, ms, N samples; bash /dev/tcp, no fork
connect_rtts() {
  local t0 t1 out=()
  for _ in $(seq "$1"); do
    t0=$EPOCHREALTIME
    exec 3<>"/dev/tcp/$IP_N/9092" || return 1
    t1=$EPOCHREALTIME
    exec 3>&-
    out+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", (b-a)*1000}')")
  done
  printf '%s\n' "${out[@]}" | sort -n | tr '\n' ' '
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

build_nfqdelay() {
  NFQ_BIN="$STATE_DIR/bin/nfqdelay"
  # Always built (Go's cache makes it quick): it is internal/netem/engine.
  command -v go >/dev/null || die "nfqueue mode needs Go to build $HERE/nfqdelay"
  (cd "$REPO" && CGO_ENABLED=0 go build -o "$NFQ_BIN" ./hack/calibrate/nfqdelay) || die "go build nfqdelay failed"
}

wait_ready_line() { # logfile pid timeout_s
  for _ in $(seq $(( $3 * 10 ))); do
    grep -q '^READY' "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  cat "$1" >&2; return 1
}

apply_delay() {
  MODE=none
  [ "$D" -eq 0 ] && return 0
  if [ "$DELAY_MODE" != nfqueue ]; then
    local err
    if err=$(tc qdisc add dev "$VETH_H" root netem delay "${D}ms" limit "$NETEM_LIMIT" 2>&1); then
      nsx tc qdisc add dev "$VETH_N" root netem delay "${D}ms" limit "$NETEM_LIMIT" \
        || die "netem on $VETH_N (inside the broker's namespace) failed"
      MODE=netem; return 0
    fi
    [ "$DELAY_MODE" = netem ] && die "tc netem failed: $err"
    log "tc netem unavailable ($err); this kernel lacks sch_netem -> using the nfqueue fallback"
  fi
  build_nfqdelay
  command -v iptables >/dev/null || die "nfqueue mode needs iptables (apt-get install iptables)"
  # Ingress on each side: a packet is held after it crossed the veth, where it no
  # longer belongs to the sending socket (holding it at egress would trip TCP Small
  # Queues and throttle the sender to ~2 packets in flight).
  # real-time priority, so that busy JVMs cannot delay a release (a qdisc runs in softirq)
  local rt=()
  if [ "$NFQ_RT_PRIO" -gt 0 ]; then
    if chrt -f "$NFQ_RT_PRIO" true 2>/dev/null; then rt=(chrt -f "$NFQ_RT_PRIO"); else log "WARNING: cannot use SCHED_FIFO; releases may run late under load"; fi
  fi
  local net; net=$(nsnet) || exit 1
  nsenter --net="$net" setsid "${rt[@]}" "$NFQ_BIN" -queue "$NFQ_NUM" -delay "${D}ms" >"$STATE_DIR/nfq-ns.log" 2>&1 </dev/null 9>&- &
  save_pid nfq-ns $!
  setsid "${rt[@]}" "$NFQ_BIN" -queue "$NFQ_NUM" -delay "${D}ms" >"$STATE_DIR/nfq-host.log" 2>&1 </dev/null 9>&- &
  save_pid nfq-host $!
  wait_ready_line "$STATE_DIR/nfq-ns.log" "$(ours nfq-ns)" 10 || die "nfqdelay in the broker's namespace did not start"
  wait_ready_line "$STATE_DIR/nfq-host.log" "$(ours nfq-host)" 10 || die "nfqdelay on host did not start (queue $NFQ_NUM busy? set NFQ_NUM)"
  nsx iptables -w -t mangle -A PREROUTING -i "$VETH_N" -j NFQUEUE --queue-num "$NFQ_NUM"
  host_rule -A
  MODE=nfqueue
}

# ---------------------------------------------------------------- main
case "${1:-}" in -h|--help) sed -n '2,/^set -E/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
[ "$(id -u)" = 0 ] || die "run as root (netns, veth, tc)"
mkdir -p "$STATE_DIR" "$PIDS"
exec 9>"$STATE_DIR/.lock"   # fd 9 is closed for every child, so only this script holds the lock
flock -n 9 || die "another netns.sh holds $STATE_DIR/.lock"

if [ "${1:-}" = --cleanup ]; then OUT=; teardown; [ "$TEARDOWN_OK" = 1 ]; exit; fi

D=25
if [ "${1:-}" != -- ] && [ $# -gt 0 ]; then D=$1; shift; fi
[[ "$D" =~ ^[0-9]+$ ]] || die "DELAY_MS must be a whole number of milliseconds, got '$D'"
[ "${1:-}" = -- ] || die "usage: $0 [DELAY_MS] -- COMMAND [ARGS...]"
shift
[ $# -gt 0 ] || die "no command given after --"
[ -n "${KAFKA_LIBS:-}" ] || KAFKA_LIBS=$("$REPO/hack/kafka/kafka.sh" libs) || die "cannot resolve the Kafka jars (hack/kafka/kafka.sh libs)"
KAFKA_LIBS=$(cd "$KAFKA_LIBS" && pwd)
compgen -G "$KAFKA_LIBS/kafka_2.13-*.jar" >/dev/null || die "no kafka_2.13-*.jar in $KAFKA_LIBS"
compgen -G "$KAFKA_LIBS/kafka-tools-[0-9]*.jar" >/dev/null || die "no kafka-tools-*.jar in $KAFKA_LIBS"
KVER=$(basename "$(compgen -G "$KAFKA_LIBS/kafka-clients-*.jar" | head -1)" .jar); KVER=${KVER#kafka-clients-}
for c in ip tc java setsid flock nsenter unshare; do command -v "$c" >/dev/null || die "missing $c"; done
if ours ns >/dev/null || ip link show "$VETH_H" >/dev/null 2>&1; then
  die "a namespace holder or link $VETH_H already exists (leftover?): run $0 --cleanup"
fi
ip -4 -o addr | grep -q " ${IP_H%.*}\." && die "some interface already uses ${IP_H%.*}.0/30"
OUT=${OUT:-$STATE_DIR/out/calib-$(date +%Y%m%d-%H%M%S)-d$D.txt}
mkdir -p "$(dirname "$OUT")" "$STATE_DIR/broker"
rm -f "$STATE_DIR"/nfq-*.log
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# 0. congestion control (a new netns starts with the host's default; the client sockets use the host's)
if [ -n "$TCP_CC" ]; then
  [ -f "$STATE_DIR/host_cc.orig" ] || sysctl -n net.ipv4.tcp_congestion_control >"$STATE_DIR/host_cc.orig"
  sysctl -qw net.ipv4.tcp_congestion_control="$TCP_CC" || die "cannot set tcp_congestion_control=$TCP_CC"
fi

# 1. namespace + veth. A process holds the namespace (unshare execs sleep, so $! is
#    it); the namespace is ready once the holder's differs from ours.
mounts >"$STATE_DIR/mounts.before"
setsid unshare --net sleep infinity </dev/null >/dev/null 2>&1 9>&- &
save_pid ns $!
for _ in $(seq 100); do
  h=$(ours ns) || die "the namespace holder exited"
  [ "$(readlink "/proc/$h/ns/net")" != "$(readlink /proc/self/ns/net)" ] && break
  sleep 0.05
done
[ "$(readlink "/proc/$h/ns/net")" != "$(readlink /proc/self/ns/net)" ] || die "the namespace holder did not enter a new namespace"
log "namespace of pid $h: $VETH_H $IP_H/30 <-> $VETH_N $IP_N/30"
ip link add "$VETH_H" type veth peer name "$VETH_N"
ip link set "$VETH_N" netns "$h"
ip addr add "$IP_H/30" dev "$VETH_H"
ip link set "$VETH_H" up
nsx ip addr add "$IP_N/30" dev "$VETH_N"
nsx ip link set "$VETH_N" up
nsx ip link set lo up
[ -z "$TCP_CC" ] || nsx sysctl -qw net.ipv4.tcp_congestion_control="$TCP_CC"

# 2. broker (combined broker+controller; the controller listener stays on the
#    namespace's loopback, so no delay touches the Raft traffic)
B="$STATE_DIR/broker"
rm -rf "$B/data"; mkdir -p "$B/logs"
cat >"$B/log4j2.properties" <<'EOF'
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.stdout.ref = STDOUT
logger.state.name = state.change.logger
logger.state.level = WARN
logger.req.name = kafka.request.logger
logger.req.level = WARN
EOF
cat >"$B/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
listeners=PLAINTEXT://$IP_N:9092,CONTROLLER://127.0.0.1:9093
advertised.listeners=PLAINTEXT://$IP_N:9092
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$B/data
num.partitions=$PARTITIONS
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
num.network.threads=3
num.io.threads=4
log.retention.hours=1
log.segment.bytes=268435456
auto.create.topics.enable=false
log.cleaner.dedupe.buffer.size=16777216
EOF
# extra broker settings, e.g. BROKER_PROPS='socket.receive.buffer.bytes=-1' (later keys win)
if [ -n "${BROKER_PROPS:-}" ]; then tr ' ' '\n' <<<"$BROKER_PROPS" >>"$B/server.properties"; fi
# BROKER_REQUEST_LOG=1: log every request with its timing (kafka.request.logger DEBUG)
if [ "${BROKER_REQUEST_LOG:-0}" = 1 ]; then sed -i 's/^logger.req.level = WARN/logger.req.level = DEBUG/' "$B/log4j2.properties"; fi
CID=-
while [[ "$CID" == -* ]]; do CID=$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22); done
log "formatting storage (cluster id $CID), Kafka $KVER"
kjava kafka.tools.StorageTool format -t "$CID" -c "$B/server.properties" >"$B/format.log" 2>&1 \
  || { cat "$B/format.log" >&2; die "StorageTool format failed"; }
log "starting broker in the namespace (heap $BROKER_HEAP)"
# nsenter (no PID namespace) and setsid both exec (no fork), so $! is the JVM's PID
NSNET=$(nsnet) || exit 1
nsenter --net="$NSNET" setsid java -Xms"$BROKER_HEAP" -Xmx"$BROKER_HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
  -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true \
  -Dlog4j2.configurationFile="$B/log4j2.properties" -Dkafka.logs.dir="$B/logs" \
  -cp "$KAFKA_LIBS/*" kafka.Kafka "$B/server.properties" >"$B/broker.log" 2>&1 </dev/null 9>&- &
save_pid broker $!
BPID=$(ours broker)
t0=$SECONDS
until grep -q "Kafka Server started" "$B/broker.log" 2>/dev/null && (exec 3<>"/dev/tcp/$IP_N/9092") 2>/dev/null; do
  if ! kill -0 "$BPID" 2>/dev/null; then tail -n 40 "$B/broker.log" >&2; die "broker exited during startup"; fi
  if (( SECONDS - t0 > READY_TIMEOUT )); then tail -n 40 "$B/broker.log" >&2; die "broker not ready after ${READY_TIMEOUT}s"; fi
  sleep 0.2
done
log "broker ready after $(( SECONDS - t0 ))s (pid $BPID)"
kjava org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --topic "$TOPIC" \
  --partitions "$PARTITIONS" --replication-factor 1 >"$B/topic.log" 2>&1 \
  || { cat "$B/topic.log" >&2; die "topic creation failed"; }
desc=$(kjava org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --describe --topic "$TOPIC" 2>&1) \
  || { echo "$desc" >&2; die "topic describe failed"; }
leaders=$(grep -c 'Leader: 1' <<<"$desc" || true)
[ "$leaders" = "$PARTITIONS" ] || { echo "$desc" >&2; die "topic $TOPIC: $leaders/$PARTITIONS partitions have a leader"; }
log "topic $TOPIC: $PARTITIONS partitions, RF 1"

# 3. delay, verified by TCP connect times (1 RTT each)
before=$(connect_rtts 5) || die "cannot connect to $BOOTSTRAP"
apply_delay
after=$(connect_rtts 7) || die "cannot connect to $BOOTSTRAP through the delay"
rtt0=$(median <<<"$before"); rtt1=$(median <<<"$after")
log "delay mode=$MODE D=${D}ms: TCP connect RTT median ${rtt0} ms -> ${rtt1} ms (added $(awk -v a="$rtt0" -v b="$rtt1" 'BEGIN{printf "%.2f", b-a}') ms, expected $((2 * D)))"
if ! awk -v a="$rtt0" -v b="$rtt1" -v e=$((2 * D)) 'BEGIN{d=b-a; exit !(d > e - 1 - e*0.05 && d < e + 2 + e*0.1)}'; then
  die "measured added RTT does not match 2*D: the delay is not what it claims to be"
fi

# 4. the command
{
  echo "# netns.sh: kafka=$KVER bootstrap=$BOOTSTRAP topic=$TOPIC partitions=$PARTITIONS broker_props=${BROKER_PROPS:-none}"
  echo "# delay: mode=$MODE D=${D}ms each direction, added RTT=$((2 * D))ms; tcp-connect RTT ms before: $before| after: $after"
  echo "# tcp_congestion_control host=$(sysctl -n net.ipv4.tcp_congestion_control) ns=$(nsx sysctl -n net.ipv4.tcp_congestion_control)"
  echo "# command: $*"
  echo "# started $(date -Is)"
} >"$OUT"
log "running: $*  (output -> $OUT)"
env BOOTSTRAP="$BOOTSTRAP" TOPIC="$TOPIC" DELAY_MS="$D" RTT_ADDED_MS=$((2 * D)) DELAY_MODE="$MODE" \
  SERDEBENCH_FAULT_INTERFACE="$VETH_H" BROKER_PID="$BPID" NS_PID="$(ours ns)" \
  KAFKA_LIBS="$KAFKA_LIBS" KAFKA_LOG4J_CLI="$REPO/hack/kafka/log4j2-cli.properties" CALIB_OUT="$OUT" \
  setsid "$@" >>"$OUT" 2>&1 </dev/null 9>&- &
CMD_PID=$!
save_pid cmd "$CMD_PID"
tail -s 0.2 -n +1 -f --pid="$CMD_PID" "$OUT" 9>&- &
TAIL_PID=$!
rc=0
wait "$CMD_PID" || rc=$?
rm -f "$PIDS/cmd.pid"
kill -TERM -- "-$CMD_PID" 2>/dev/null && log "ended processes the command left behind (group $CMD_PID)"
wait "$TAIL_PID" 2>/dev/null || true
echo "# exit status $rc, finished $(date -Is)" >>"$OUT"
log "command exited with $rc; output in $OUT"
exit "$rc"
