#!/usr/bin/env bash
# Builds the local cluster's Kafka broker image without Docker and prints its
# reference (name@digest), or with `tar` the image tar's path: Kafka's jars from Maven Central (the same set as
# hack/kafka/kafka.sh's broker), a JRE jlink'ed from this machine's JDK 17, the C
# libraries that JRE links against, and hack/kafka/pod as the entrypoint. The tar
# is cached by Kafka version, JDK version and launcher under
# ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/kafka-image-*/kafka.tar.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source=../versions.env
. "$(dirname "${BASH_SOURCE[0]}")/../versions.env"
KAFKA_VERSION="${KAFKA_VERSION:-$KAFKA_CURRENT}"
JDK_HOME="${KAFKA_IMAGE_JDK:-/usr/lib/jvm/java-17-openjdk-amd64}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
log() { printf 'kafka-image: %s\n' "$*" >&2; }
# shellcheck source=../lib/java.sh
. "$repo/hack/lib/java.sh"

[[ -x "$JDK_HOME/bin/jlink" ]] || { log "no jlink in $JDK_HOME (install openjdk-17-jdk-headless, or set KAFKA_IMAGE_JDK)"; exit 1; }
jdk_version="$("$JDK_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.runtime.version = //p')"
libs="$("$here/kafka.sh" libs)"
arch="$(go env GOARCH)"
launcher_sum="$(cat "$here/pod/main.go" "$here/log4j2.properties" "$0" | sha256sum | cut -c1-12)"
out="$cache/kafka-image-$KAFKA_VERSION-jdk$jdk_version-$launcher_sum"
ref="ghcr.io/serdebench/kafka:$KAFKA_VERSION"
print() { if [[ "${1:-}" == tar ]]; then echo "$out/kafka.tar"; else cat "$out/ref"; fi; }
if [[ -f "$out/ref" && -f "$out/kafka.tar" ]]; then print "${1:-}"; exit 0; fi

rm -rf "$out" && mkdir -p "$out"
root="$out/root"
mkdir -p "$root/opt/kafka/libs" "$root/opt/kafka/config" "$root/var/lib/kafka"
log "jlink a JRE from $JDK_HOME ($jdk_version)"
# The modules Kafka's broker and its libraries use (jdeps over its jars), plus DNS
# and elliptic-curve crypto, which are looked up by name at run time.
"$JDK_HOME/bin/jlink" --add-modules java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.management.rmi,java.naming,java.net.http,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.security.auth,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output "$root/opt/java" 2>&1 | grep -v "^Warning: The 2 argument" >&2 || true
[[ -x "$root/opt/java/bin/java" ]] || { log "jlink failed"; exit 1; }
cp "$libs"/*.jar "$root/opt/kafka/libs/"
cp "$here/log4j2.properties" "$root/opt/kafka/config/"
jre_native_libs "$root"
CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go -C "$repo" build -trimpath -ldflags="-s -w" -o "$out/kafka-pod" ./hack/kafka/pod
created="$(git -C "$repo" log -1 --format=%ct -- hack/kafka)"
digest_ref="$(go -C "$repo" run ./hack/image -binary "$out/kafka-pod" -tree "$root" -ref "$ref" -out "$out/kafka.tar" -arch "$arch" \
  -version "$KAFKA_VERSION" -created "$created" -title serdebench-kafka \
  -description "Apache Kafka $KAFKA_VERSION broker (KRaft) for serdebench's local cluster, on a JRE jlink'ed from OpenJDK $jdk_version")"
rm -rf "$root"
echo "$digest_ref" >"$out/ref"
log "built $digest_ref"
print "${1:-}"
