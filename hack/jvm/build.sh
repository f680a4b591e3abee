#!/usr/bin/env bash
# The JVM worker (workers/jvm), built with Maven from Maven Central by a JDK 21+ this
# machine has (Java 25 where present), cached by the hash of its sources, the payload
# .proto and .thrift files it compiles, the Kafka client version (KAFKA_CLIENT_VERSION,
# default the current line: a client is not the broker), the JDK and the Thrift
# compiler under
# ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/worker-jvm-<hash>/; and its launcher,
# bin/worker-jvm, beside bin/pool (cmd/pool: the records it sends, from the Go
# generator). Prints the launcher's path.
#
#   hack/jvm/build.sh          build (cached) and print bin/worker-jvm's path
#   hack/jvm/build.sh dist     print the cached build's directory (worker.jar, lib/)
#   hack/jvm/build.sh image    the worker's image without Docker: a JRE jlink'ed from the
#                              same JDK, the jars, cmd/pool and hack/jvm/pod as the
#                              entrypoint; prints its reference (name@digest), `image
#                              tar` its tar's path. IMAGE_REF names it (default
#                              ghcr.io/serdebench/worker-jvm:v<VERSION>).
set -euo pipefail
shopt -s inherit_errexit
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
# shellcheck source=../versions.env
. "$(dirname "${BASH_SOURCE[0]}")/../versions.env"
KAFKA_CLIENT_VERSION="${KAFKA_CLIENT_VERSION:-$KAFKA_CURRENT}"
log() { printf 'worker-jvm: %s\n' "$*" >&2; }
# shellcheck source=../lib/java.sh
. "$repo/hack/lib/java.sh"

java="$(worker_java)" || { log "the JVM worker needs a JDK 21 or newer (java, /usr/lib/jvm/*); none found"; exit 1; }
jdk="$(dirname "$(dirname "$(readlink -f "$java")")")"
[[ -x "$jdk/bin/javac" ]] || { log "$jdk is a JRE, not a JDK (no javac)"; exit 1; }
# image [tar]: the worker's image, cached by the build, the Go sources of its pool and
# launcher, and this script.
image() {
  local arch sum out root ref created
  arch="$(go env GOARCH)"
  sum="$( { cd "$repo" && git ls-files -s cmd/pool workers/payload workers/codec hack/jvm go.sum; echo "${IMAGE_REF:-}"; } | sha256sum | cut -c1-12)"
  out="$cache/worker-jvm-image-$key-$sum"
  if [[ ! -f "$out/ref" || ! -f "$out/worker-jvm.tar" ]]; then
    rm -rf "$out" && mkdir -p "$out"
    root="$out/root"
    mkdir -p "$root/opt/serdebench/lib" "$root/opt/serdebench/bin" "$root/tmp"
    log "jlink a JRE from $jdk"
    # The modules the worker and its libraries use (jdeps over its jars), and DNS.
    "$jdk/bin/jlink" --add-modules java.base,java.compiler,java.desktop,java.naming,java.security.jgss,java.security.sasl,java.sql,jdk.httpserver,jdk.management,jdk.naming.dns,jdk.unsupported \
      --strip-debug --no-man-pages --no-header-files --compress=zip-6 --output "$root/opt/java" >&2
    [[ -x "$root/opt/java/bin/java" ]] || { log "jlink failed"; exit 1; }
    cp "$dist/worker.jar" "$root/opt/serdebench/lib/"
    cp "$dist/jvm.options" "$root/opt/serdebench/"
    cp "$dist"/lib/*.jar "$root/opt/serdebench/lib/"
    jre_native_libs "$root"
    (cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -ldflags="-s -w" -o "$root/opt/serdebench/bin/pool" ./cmd/pool)
    (cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -ldflags="-s -w" -o "$out/worker-jvm" ./hack/jvm/pod)
    created="$(git -C "$repo" log -1 --format=%ct)"
    ref="${IMAGE_REF:-ghcr.io/serdebench/worker-jvm:v$(cat "$repo/VERSION")}"
    go -C "$repo" run ./hack/image -binary "$out/worker-jvm" -tree "$root" -ref "$ref" -out "$out/worker-jvm.tar" -arch "$arch" \
      -version "$(cat "$repo/VERSION")" -created "$created" -title serdebench-worker-jvm \
      -description "serdebench JVM worker: produces or consumes one trial's records with Kafka's Java client $KAFKA_CLIENT_VERSION, on a JRE jlink'ed from $(java_runtime_version "$java")" >"$out/ref"
    rm -rf "$root"
    log "built $(cat "$out/ref") ($(du -m "$out/worker-jvm.tar" | cut -f1) MB)"
  fi
  if [[ "${1:-}" == tar ]]; then echo "$out/worker-jvm.tar"; else cat "$out/ref"; fi
}

# Its Thrift classes come from Debian's Thrift compiler at the version the Go code is
# generated with (make schema-compilers pins it; Maven Central serves no compiler).
thrift_version() { thrift --version 2>/dev/null | awk '{print $3}'; }
want_thrift="$(sed -n 's/^THRIFT_VERSION *:= *\([0-9.]*\).*/\1/p' "$repo/Makefile")"
# Its FlatBuffers classes likewise come from Debian's flatc at the Go code's version.
flatc_version() { flatc --version 2>/dev/null | awk '{print $3}'; }
want_flatc="$(sed -n 's/^FLATC_VERSION *:= *\([0-9.]*\).*/\1/p' "$repo/Makefile")"
key="$( { cd "$repo" && find workers/jvm/pom.xml workers/jvm/src workers/payload/proto workers/payload/thriftgen/payload.thrift workers/payload/fbgen/payload.fbs -type f -print0 | sort -z | xargs -0 sha256sum;
  echo "$KAFKA_CLIENT_VERSION $(java_runtime_version "$java") thrift $want_thrift flatc $want_flatc"; } | sha256sum | cut -c1-16)"
dist="$cache/worker-jvm-$key"

# Test binaries of several packages build it at once: one builds, the others wait
# for it (the lock ends with this script; nothing it starts outlives it).
mkdir -p "$cache"
exec 9>"$cache/worker-jvm.lock"
flock 9
if [[ ! -f "$dist/.complete" ]]; then
  # Under the lock: test binaries building at once install the compiler once.
  if [[ "$(thrift_version)" != "$want_thrift" || "$(flatc_version)" != "$want_flatc" ]]; then
    make -s -C "$repo" schema-compilers >&2
    [[ "$(thrift_version)" == "$want_thrift" ]] || { log "needs the Thrift compiler $want_thrift (make schema-compilers), not '$(thrift_version)'"; exit 1; }
    [[ "$(flatc_version)" == "$want_flatc" ]] || { log "needs flatc $want_flatc (make schema-compilers), not '$(flatc_version)'"; exit 1; }
  fi
  log "building with $jdk (Kafka $KAFKA_CLIENT_VERSION) into $dist"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # Maven builds in a copy: the checkout stays free of target/.
  mkdir -p "$work/workers/payload"
  cp -r "$repo/workers/jvm" "$work/workers/jvm"
  cp -r "$repo/workers/payload/proto" "$work/workers/payload/proto"
  thrift --gen java:generated_annotations=suppress -out "$work/workers/jvm/src/main/java" "$repo/workers/payload/thriftgen/payload.thrift"
  flatc --java -o "$work/workers/jvm/src/main/java" "$repo/workers/payload/fbgen/payload.fbs"
  if ! JAVA_HOME="$jdk" mvn -B -q -Dstyle.color=never -f "$work/workers/jvm/pom.xml" -Dkafka.version="$KAFKA_CLIENT_VERSION" \
      -Dmaven.repo.local="$cache/m2" package >"$work/mvn.log" 2>&1; then
    log "maven failed:"; grep -v '^WARNING' "$work/mvn.log" | tail -40 >&2; exit 1
  fi
  rm -rf "$dist" && mkdir -p "$dist"
  cp "$work/workers/jvm/target/worker.jar" "$dist/"
  cp -r "$work/workers/jvm/target/lib" "$dist/lib"
  echo "$jdk" >"$dist/jdk"
  touch "$dist/.complete"
fi
# The worker's JVM flags, one file for both launchers (bin/worker-jvm and the image's
# hack/jvm/pod), read as a java @argfile: no perf data file (a pod's root is
# read-only), the heap at three quarters of a container's memory limit, and, on Java
# 23+, sun.misc.Unsafe's memory access allowed (JEP 471: msgpack-java and Kafka's
# client use it, and every start would warn).
{
  echo "-XX:-UsePerfData -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
  (($(java_major "$java") >= 23)) && echo "--sun-misc-unsafe-memory-access=allow"
} >"$dist/jvm.options"
[[ "${1:-}" == dist ]] && { echo "$dist"; exit 0; }
if [[ "${1:-}" == image ]]; then
  image "${2:-}"
  exit 0
fi

mkdir -p "$repo/bin"
(cd "$repo" && go build -o bin/pool ./cmd/pool)
launcher="$repo/bin/worker-jvm"
cat >"$launcher.tmp" <<LAUNCHER
#!/bin/sh
# The JVM worker (hack/jvm/build.sh wrote this): $dist
: "\${SERDEBENCH_POOL:=\$(dirname "\$0")/pool}"
export SERDEBENCH_POOL
exec "$jdk/bin/java" @"$dist/jvm.options" \${SERDEBENCH_JVM_OPTS:-} -cp "$dist/worker.jar:$dist/lib/*" io.serdebench.worker.Main "\$@"
LAUNCHER
chmod +x "$launcher.tmp" && mv "$launcher.tmp" "$launcher"
echo "$launcher"
