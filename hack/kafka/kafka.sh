#!/usr/bin/env bash
# Local single-node Kafka (KRaft) for serdebench's tests, demo and benchmarks, on
# loopback by default; KAFKA_HOST=<address> listens and advertises there instead (the
# local cluster's pods reach a broker on the node's IP).
# Listeners: PLAINTEXT on KAFKA_PORT (9092), the controller on +1, SASL_PLAINTEXT on +2
# (PLAIN user serdebench/serdebench-secret; SCRAM users are created by tests), SSL on
# +3 (a throwaway CA in <state>/tls/ca.crt).
#
#   hack/kafka/kafka.sh up|down|kill|restart|status|libs|perf-classpath
#
# `kill` ends the broker at once (SIGKILL, as a pod kill does; a local broker fault in
# serdebench run, docs/faults.md) and fails when it is not running; `up` restarts it
# on its existing data.
#
# Jars come from Maven Central and are cached by version under
# ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/kafka-<version>/; broker state (data, log,
# PID) lives in <repo>/.state/kafka-<port>/. `down` stops only the JVM this script
# started, by its recorded PID.
set -euo pipefail

# shellcheck source=../versions.env
. "$(dirname "${BASH_SOURCE[0]}")/../versions.env"
KAFKA_VERSION="${KAFKA_VERSION:-$KAFKA_CURRENT}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_HOST="${KAFKA_HOST:-127.0.0.1}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
KAFKA_SASL_PORT="${KAFKA_SASL_PORT:-$((KAFKA_PORT + 2))}"
KAFKA_SSL_PORT="${KAFKA_SSL_PORT:-$((KAFKA_PORT + 3))}"
KAFKA_HEAP="${KAFKA_HEAP:-1g}"
KAFKA_READY_TIMEOUT="${KAFKA_READY_TIMEOUT:-90}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=../lib/daemon.sh
. "$repo/hack/lib/daemon.sh"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
libs="$cache/kafka-$KAFKA_VERSION/libs"
state="${KAFKA_STATE_DIR:-$repo/.state/kafka-$KAFKA_PORT}"
pidfile="$state/kafka.pid"
tls_dir="$state/tls"
logfile="$state/kafka.log"
daemon_adopt "$pidfile" kafka.Kafka

log() { printf 'kafka: %s\n' "$*" >&2; }

ensure_libs() {
  if [[ -f "$libs/.complete" ]]; then return; fi
  command -v java >/dev/null || { log "java not found (install openjdk-17-jre-headless)"; exit 1; }
  command -v mvn >/dev/null || { log "mvn not found (install maven)"; exit 1; }
  log "resolving Kafka $KAFKA_VERSION jars from Maven Central into $libs"
  rm -rf "$libs" && mkdir -p "$libs"
  local mvnlog="$cache/kafka-$KAFKA_VERSION/mvn.log"
  if ! mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
      -Dmaven.repo.local="$cache/m2" \
      dependency:copy-dependencies -DoutputDirectory="$libs" >"$mvnlog" 2>&1; then
    log "maven failed:"; tail -40 "$mvnlog" >&2; exit 1
  fi
  touch "$libs/.complete"
}

running() { daemon_alive "$pidfile"; }

port_open() { daemon_port_open "$KAFKA_HOST" "$1"; }

render() {
  sed -e "s#@HOST@#$KAFKA_HOST#g" -e "s#@PORT@#$KAFKA_PORT#g" -e "s#@CONTROLLER_PORT@#$KAFKA_CONTROLLER_PORT#g" -e "s#@SASL_PORT@#$KAFKA_SASL_PORT#g" \
      -e "s#@SSL_PORT@#$KAFKA_SSL_PORT#g" -e "s#@TLS_DIR@#$tls_dir#g" -e "s#@DATA@#$state/data#g" "$here/server.properties"
}

# ensure_tls makes a throwaway CA and a server certificate for KAFKA_HOST, 127.0.0.1
# and localhost, once per state dir and host; tests trust tls/ca.crt.
ensure_tls() {
  [[ -f "$tls_dir/server.pem" && "$(cat "$tls_dir/host" 2>/dev/null)" == "$KAFKA_HOST" ]] && return
  command -v openssl >/dev/null || { log "openssl not found (install openssl)"; exit 1; }
  rm -rf "$tls_dir" && mkdir -p "$tls_dir"
  (
    cd "$tls_dir"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=serdebench test CA"
    openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost"
    san="IP:127.0.0.1,DNS:localhost"
    [[ "$KAFKA_HOST" == 127.0.0.1 ]] || san+=",IP:$KAFKA_HOST"
    printf 'subjectAltName=%s\n' "$san" >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 3650 -extfile server.ext
    openssl pkcs8 -topk8 -nocrypt -in server.key -out server.pk8
    cat server.pk8 server.crt ca.crt >server.pem
    echo "$KAFKA_HOST" >host
  ) >"$state/tls.log" 2>&1 || { log "certificate generation failed:"; tail -20 "$state/tls.log" >&2; exit 1; }
}

up() {
  ensure_libs
  if running; then
    if [[ "$(render)" == "$(cat "$state/server.properties" 2>/dev/null)" && "$KAFKA_VERSION" == "$(cat "$state/version" 2>/dev/null)" ]]; then
      log "already running (pid $(daemon_pid "$pidfile"), port $KAFKA_PORT)"; return
    fi
    log "configuration or version changed (now $KAFKA_VERSION); restarting"
    down
  fi
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$KAFKA_SASL_PORT" "$KAFKA_SSL_PORT"; do
    if port_open "$p"; then log "port $p is in use by another process; set KAFKA_PORT"; exit 1; fi
  done
  mkdir -p "$state"
  # Data another release wrote is formatted afresh: a test broker's data is
  # disposable, an older release cannot read a newer metadata.version, and a newer
  # one would run at the old level until finalized. (An upgrade in place is the
  # upgrade replay's, not this script's.)
  if [[ -f "$state/data/meta.properties" && "$(cat "$state/version" 2>/dev/null)" != "$KAFKA_VERSION" ]]; then
    log "data written by Kafka $(cat "$state/version" 2>/dev/null || echo 'of an unrecorded version'): formatting afresh for $KAFKA_VERSION"
    rm -rf "$state/data"
  fi
  ensure_tls
  local props="$state/server.properties"
  render >"$props"
  if [[ ! -f "$state/data/meta.properties" ]]; then
    local id; id="$(java -cp "$libs/*" kafka.tools.StorageTool random-uuid)"
    java -cp "$libs/*" kafka.tools.StorageTool format -t "$id" -c "$props" >"$state/format.log" 2>&1 \
      || { log "storage format failed:"; tail -20 "$state/format.log" >&2; exit 1; }
  fi
  : >"$logfile"
  echo "$KAFKA_VERSION" >"$state/version"
  daemon_start "$pidfile" "$logfile" java "-Xms$KAFKA_HEAP" "-Xmx$KAFKA_HEAP" -XX:+UseG1GC \
    -Dlog4j2.configurationFile="$here/log4j2.properties" -cp "$libs/*" kafka.Kafka "$props"
  log "started pid $(daemon_pid "$pidfile") on $KAFKA_HOST:$KAFKA_PORT; waiting up to ${KAFKA_READY_TIMEOUT}s"
  local deadline=$((SECONDS + KAFKA_READY_TIMEOUT))
  until grep -q 'Kafka Server started' "$logfile" && port_open "$KAFKA_PORT"; do
    if ! running; then log "broker exited during start; log tail:"; tail -40 "$logfile" >&2; rm -f "$pidfile"; exit 1; fi
    if ((SECONDS > deadline)); then log "not ready after ${KAFKA_READY_TIMEOUT}s; log tail:"; tail -40 "$logfile" >&2; down; exit 1; fi
    sleep 0.5
  done
  log "ready ($(kafka_version))"
}

down() {
  if ! running; then rm -f "$pidfile"; log "not running"; return; fi
  daemon_stop "$pidfile" 30 broker
}

# kill_broker SIGKILLs the recorded JVM and waits (up to 10 s) until it has exited
# and its listeners are closed, so `up` can start it again at once.
kill_broker() {
  local deadline=$((SECONDS + 10))
  daemon_kill "$pidfile" broker "$deadline" || exit 1
  for p in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "$KAFKA_SASL_PORT" "$KAFKA_SSL_PORT"; do
    while port_open "$p"; do
      if ((SECONDS > deadline)); then log "port $p still open 10s after the kill"; exit 1; fi
      sleep 0.1
    done
  done
}

kafka_version() { echo "$KAFKA_VERSION"; }

status() {
  if running; then echo "running pid=$(daemon_pid "$pidfile") bootstrap=$KAFKA_HOST:$KAFKA_PORT listeners=$KAFKA_HOST:$KAFKA_PORT,$KAFKA_HOST:$KAFKA_SASL_PORT,$KAFKA_HOST:$KAFKA_SSL_PORT version=$(cat "$state/version" 2>/dev/null || echo unknown)"
  else echo "stopped"; return 3; fi
}

case "${1:-}" in
  up) up ;;
  restart) down; up ;;
  down) down ;;
  kill) kill_broker ;;
  status) status ;;
  ca) echo "$tls_dir/ca.crt" ;;
  libs) ensure_libs; echo "$libs" ;;
  perf-classpath) ensure_libs; echo "$libs/*" ;;
  *) echo "usage: $0 up|down|kill|restart|status|ca|libs|perf-classpath" >&2; exit 2 ;;
esac
