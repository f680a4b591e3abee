#!/usr/bin/env bash
# The JVM worker (workers/jvm), built with Maven from Maven Central by a JDK 21+ this
# machine has (Java 25 where present), cached by the hash of its sources, the payload
# .proto files it compiles, the Kafka version and the JDK under
# ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/worker-jvm-<hash>/; and its launcher,
# bin/worker-jvm, beside bin/pool (cmd/pool: the records it sends, from the Go
# generator). Prints the launcher's path.
#
#   hack/jvm/build.sh          build (cached) and print bin/worker-jvm's path
#   hack/jvm/build.sh dist     print the cached build's directory (worker.jar, lib/)
set -euo pipefail
shopt -s inherit_errexit
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
KAFKA_VERSION="${KAFKA_VERSION:-4.3.1}"
log() { printf 'worker-jvm: %s\n' "$*" >&2; }
# shellcheck source=../lib/java.sh
. "$repo/hack/lib/java.sh"

java="$(java_at_least 21)" || { log "the JVM worker needs a JDK 21 or newer (java, /usr/lib/jvm/*); none found"; exit 1; }
# Prefer the newest JDK present (Java 25 on this machine kind) over an older default.
for j in /usr/lib/jvm/*/bin/java; do
  [[ -x "$j" ]] || continue
  v="$("$j" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')"
  cur="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')"
  [[ "${v%%.*}" =~ ^[0-9]+$ ]] && ((${v%%.*} > ${cur%%.*})) && java="$j"
done
jdk="$(dirname "$(dirname "$(readlink -f "$java")")")"
[[ -x "$jdk/bin/javac" ]] || { log "$jdk is a JRE, not a JDK (no javac)"; exit 1; }
key="$( { cd "$repo" && find workers/jvm/pom.xml workers/jvm/src workers/payload/proto -type f -print0 | sort -z | xargs -0 sha256sum;
  echo "$KAFKA_VERSION $(java_runtime_version "$java")"; } | sha256sum | cut -c1-16)"
dist="$cache/worker-jvm-$key"

if [[ ! -f "$dist/.complete" ]]; then
  log "building with $jdk (Kafka $KAFKA_VERSION) into $dist"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # Maven builds in a copy: the checkout stays free of target/.
  mkdir -p "$work/workers/payload"
  cp -r "$repo/workers/jvm" "$work/workers/jvm"
  cp -r "$repo/workers/payload/proto" "$work/workers/payload/proto"
  if ! JAVA_HOME="$jdk" mvn -B -q -Dstyle.color=never -f "$work/workers/jvm/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
      -Dmaven.repo.local="$cache/m2" package >"$work/mvn.log" 2>&1; then
    log "maven failed:"; grep -v '^WARNING' "$work/mvn.log" | tail -40 >&2; exit 1
  fi
  rm -rf "$dist" && mkdir -p "$dist"
  cp "$work/workers/jvm/target/worker.jar" "$dist/"
  cp -r "$work/workers/jvm/target/lib" "$dist/lib"
  echo "$jdk" >"$dist/jdk"
  touch "$dist/.complete"
fi
[[ "${1:-}" == dist ]] && { echo "$dist"; exit 0; }

mkdir -p "$repo/bin"
(cd "$repo" && go build -o bin/pool ./cmd/pool)
# msgpack-java and Kafka's client reach sun.misc.Unsafe's memory access, which Java 23+
# warns of on every start; allowed explicitly (JEP 471) rather than warned of.
opts=""
v="$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')"
((${v%%.*} >= 23)) && opts="--sun-misc-unsafe-memory-access=allow"
launcher="$repo/bin/worker-jvm"
cat >"$launcher.tmp" <<LAUNCHER
#!/bin/sh
# The JVM worker (hack/jvm/build.sh wrote this): $dist
: "\${SERDEBENCH_POOL:=\$(dirname "\$0")/pool}"
export SERDEBENCH_POOL
exec "$jdk/bin/java" $opts \${SERDEBENCH_JVM_OPTS:-} -cp "$dist/worker.jar:$dist/lib/*" io.serdebench.worker.Main "\$@"
LAUNCHER
chmod +x "$launcher.tmp" && mv "$launcher.tmp" "$launcher"
echo "$launcher"
