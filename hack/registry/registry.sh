#!/usr/bin/env bash
# A local schema registry for the registry codecs' tests and the demo: Apicurio
# Registry (pom.xml says which release and why), in-memory storage, serving the
# Confluent-compatible API at http://REGISTRY_HOST:REGISTRY_PORT/apis/ccompat/v7.
#
#   hack/registry/registry.sh up|down|status|url
#
# The application is built once from Maven Central and cached by version under
# ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/registry-<version>/; its state (PID, log)
# lives in <repo>/.state/registry-<port>/. Every start is empty (in-memory storage).
# `down` stops only the JVM this script started, by its recorded PID.
set -euo pipefail

REGISTRY_PORT="${REGISTRY_PORT:-8081}"
# REGISTRY_HOST is where it listens and what `url` names (the local cluster's pods
# reach it on the node's address).
REGISTRY_HOST="${REGISTRY_HOST:-127.0.0.1}"
REGISTRY_READY_TIMEOUT="${REGISTRY_READY_TIMEOUT:-90}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=../lib/daemon.sh
. "$repo/hack/lib/daemon.sh"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
# The release is the pom's parent version: one place says it.
version="$(sed -n '/<parent>/,/<\/parent>/s#.*<version>\(.*\)</version>.*#\1#p' "$here/pom.xml")"
build="$cache/registry-$version"
state="$repo/.state/registry-$REGISTRY_PORT"
pidfile="$state/registry.pid"
logfile="$state/registry.log"
daemon_adopt "$pidfile" serdebench-registry
url="http://$REGISTRY_HOST:$REGISTRY_PORT/apis/ccompat/v7"
# The in-memory database, with a lock timeout of 100 ms. Apicurio 2.4.2 takes the next
# content id under a Java lock and then the sequence's row lock, so registrations of
# new content at once (producers starting together; tests of one schema under many
# subjects) deadlock until H2 times one out, and the threads queued on the Java lock
# each wait out the timeout in turn. 16 registrations at once on a fresh registry
# took up to 44 s with H2's default and 13 s with 1 s; with 100 ms, 0.7 s (2 s with
# the CPU saturated), the losers getting a 500 their clients retry. 2.6.4 draws ids
# from memory instead, but is not buildable from Maven Central (pom.xml).
jdbc_url="jdbc:h2:mem:registry_db;LOCK_TIMEOUT=100"

log() { printf 'registry: %s\n' "$*" >&2; }

runner_jar() { compgen -G "$build/target/*-runner.jar" | head -1; }

ensure_built() {
  if [[ -f "$build/.complete" ]]; then return; fi
  command -v java >/dev/null || { log "java not found (install openjdk-17-jre-headless)"; exit 1; }
  command -v mvn >/dev/null || { log "mvn not found (install maven)"; exit 1; }
  log "building Apicurio Registry $version from Maven Central into $build (once)"
  rm -rf "$build" && mkdir -p "$build"
  if ! mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dmaven.repo.local="$cache/m2" -Dregistry.build="$build/target" \
      -DskipTests -Dcheckstyle.skip -Denforcer.skip package >"$build/mvn.log" 2>&1; then
    log "maven failed:"; tail -40 "$build/mvn.log" >&2; exit 1
  fi
  [[ -n "$(runner_jar)" ]] || { log "the build made no runner jar (see $build/mvn.log)"; exit 1; }
  touch "$build/.complete"
}

running() { daemon_alive "$pidfile"; }

port_open() { daemon_port_open "$REGISTRY_HOST" "$REGISTRY_PORT"; }

ready() { curl -sf -o /dev/null --max-time 2 "$url/subjects"; }

up() {
  ensure_built
  if running; then log "already running (pid $(daemon_pid "$pidfile")): $url"; return; fi
  if port_open; then log "port $REGISTRY_PORT is in use by another process; set REGISTRY_PORT"; exit 1; fi
  mkdir -p "$state"
  : >"$logfile"
  daemon_start "$pidfile" "$logfile" java -Xms128m -Xmx512m -Dquarkus.http.host="$REGISTRY_HOST" \
    -Dquarkus.http.port="$REGISTRY_PORT" -Dquarkus.datasource.jdbc.url="$jdbc_url" -Dquarkus.log.level=INFO -jar "$(runner_jar)"
  log "started pid $(daemon_pid "$pidfile"); waiting up to ${REGISTRY_READY_TIMEOUT}s for $url"
  local deadline=$((SECONDS + REGISTRY_READY_TIMEOUT))
  until ready; do
    if ! running; then log "registry exited during start; log tail:"; tail -40 "$logfile" >&2; rm -f "$pidfile"; exit 1; fi
    if ((SECONDS > deadline)); then log "not ready after ${REGISTRY_READY_TIMEOUT}s; log tail:"; tail -40 "$logfile" >&2; down; exit 1; fi
    sleep 0.5
  done
  log "ready: $url"
}

down() {
  if ! running; then rm -f "$pidfile"; log "not running"; return; fi
  daemon_stop "$pidfile" 10 registry
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) if running; then echo "running pid=$(daemon_pid "$pidfile") url=$url version=$version"; else echo stopped; exit 3; fi ;;
  url) echo "$url" ;;
  *) echo "usage: $0 up|down|status|url" >&2; exit 2 ;;
esac
