#!/usr/bin/env bash
# Strimzi's Topic Operator, built from Strimzi's release source (../shared/vendor, or
# the same release from GitHub) with Maven Central alone, and its image built without
# Docker: a JRE jlink'ed from a JDK 21+ this machine has, the Topic Operator's jars,
# and hack/strimzi/pod as the entrypoint. Strimzi publishes neither jar nor a
# reachable image, so this is how the local cluster runs the real one.
#
#   hack/strimzi/build.sh [jars]     build (cached); prints the directory holding
#                                    topic-operator-VERSION.jar, lib/ and main-class
#   hack/strimzi/build.sh source     the unpacked, checked source tree
#   hack/strimzi/build.sh image      the image's reference (name@digest); `image tar`: its tar
#
# STRIMZI_VERSION picks the release: 1.2.0 (current; kafka.strimzi.io/v1 only) or
# 0.51.0 (the previous line; v1 and v1beta2). Cached by version, JDK and build flags
# (the image also by this script and its launcher) under
# ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/strimzi-to-*.
set -euo pipefail
# Functions run in $(...) below: a failed step there must stop them too.
shopt -s inherit_errexit
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
STRIMZI_VERSION="${STRIMZI_VERSION:-1.2.0}"
log() { printf 'strimzi: %s\n' "$*" >&2; }
# shellcheck source=../lib/java.sh
. "$repo/hack/lib/java.sh"
# shellcheck source=../lib/vendor.sh
. "$repo/hack/lib/vendor.sh"

# Per release: the vendored tarball's SHA-256 (git archive of the tag), and the SHA-256
# of its unpacked tree (tree_sum), which GitHub's tarball of the tag must match.
case "$STRIMZI_VERSION" in
  1.2.0) sha=c2de2ec4758ae91dd3516ac636e43a514425a57b0c46f999b0494765a39b71a6 tree=ad746dc6edbf52d608a675bbd82cafa8d9d71a47da625ec7c02a8d46eb830b15 ;;
  0.51.0) sha=2faaf779dd19ca18d12567e717ddb11f16195e10d514f5945ca817dc1123fbd6 tree=5d52c9abba9995e35c86d06d46275542482b8f68b24fe7974a2354095b29f790 ;;
  *) log "unknown STRIMZI_VERSION $STRIMZI_VERSION (1.2.0 or 0.51.0)"; exit 2 ;;
esac

# jdk: the JDK 21+ that builds the jars and jlinks the image (not needed for `source`).
jdk() {
  local java
  java="$(java_at_least 21)" || { log "Strimzi's Topic Operator needs a JDK 21 or newer (java, /usr/lib/jvm/*); none found"; exit 1; }
  jdk="$(dirname "$(dirname "$(readlink -f "$java")")")"
  [[ -x "$jdk/bin/jlink" && -x "$jdk/bin/javac" ]] || { log "$jdk is a JRE, not a JDK (no javac, jlink)"; exit 1; }
  jdk_version="$(java_runtime_version "$java")"
}
# Flags (../shared/vendor/README.md): a test-only dependency Maven Central lacks, a
# compiler plugin and Lombok that run on this JDK, annotation processing on (Java
# 23+ turns it off; sundrio's builders come from it), and no report or lint plugins.
mvn_flags=(-pl topic-operator -am package -DskipTests
  -Dstrimzi-test-container.version=0.115.0 -Dmaven.compiler.version=3.13.0 -Dmaven.compiler.proc=full
  -Dlombok.version=1.18.48 -Dmaven.javadoc.skip=true -Dspotbugs.skip=true -Dcheckstyle.skip=true
  -Djacoco.skip=true -Dmdep.analyze.skip=true -Dmaven.source.skip=true)
# outputs: the jars are keyed by what builds them, the image also by how it is laid out.
outputs() {
  jars_out="$cache/strimzi-to-$STRIMZI_VERSION-jdk$jdk_version-$(echo "${mvn_flags[*]}" | sha256sum | cut -c1-12)"
  out="$cache/strimzi-to-image-$STRIMZI_VERSION-jdk$jdk_version-$(cat "$0" "$here/pod/main.go" "$repo/hack/lib/java.sh" | sha256sum | cut -c1-12)"
}

source_tree() {
  local src="$cache/strimzi-src-$STRIMZI_VERSION"
  if [[ ! -f "$src/.complete" ]]; then
    vendor_extract "strimzi-kafka-operator-$STRIMZI_VERSION.tar.gz" "$sha" \
      "https://github.com/strimzi/strimzi-kafka-operator/archive/refs/tags/$STRIMZI_VERSION.tar.gz" "$tree" "$src"
    touch "$src/.complete"
  fi
  echo "$src"
}

jars() {
  local o="$jars_out"
  if [[ -f "$o/jars/.complete" ]]; then echo "$o/jars"; return; fi
  local src start=$SECONDS work
  src="$(source_tree)"
  # Built in a copy: the cached source stays as released.
  work="$o/build"
  rm -rf "$work" "$o/jars" && mkdir -p "$o" && cp -a "$src" "$work"
  log "building the Topic Operator $STRIMZI_VERSION with $jdk ($jdk_version); log: $o/mvn.log"
  if ! JAVA_HOME="$jdk" PATH="$jdk/bin:$PATH" mvn -B -Dstyle.color=never -f "$work/pom.xml" \
    -Dmaven.repo.local="$cache/m2" "${mvn_flags[@]}" >"$o/mvn.log" 2>&1; then
    log "maven failed:"; grep -E 'ERROR|BUILD' "$o/mvn.log" | tail -30 >&2; exit 1
  fi
  mkdir -p "$o/jars"
  cp "$work/topic-operator/target/topic-operator-$STRIMZI_VERSION.jar" "$o/jars/"
  # The main class is named in the jar's manifest (Main in 1.x, TopicOperatorMain in 0.x).
  (cd "$work" && "$jdk/bin/jar" xf "$o/jars/topic-operator-$STRIMZI_VERSION.jar" META-INF/MANIFEST.MF)
  sed -n 's/^Main-Class: *//p' "$work/META-INF/MANIFEST.MF" | tr -d '\r' >"$o/jars/main-class"
  [[ -s "$o/jars/main-class" ]] || { log "no Main-Class in the Topic Operator's manifest"; exit 1; }
  cp -r "$work/topic-operator/target/lib" "$o/jars/lib"
  rm -rf "$work"
  touch "$o/jars/.complete"
  log "built in $((SECONDS - start))s: $o/jars ($(du -sh "$o/jars" | cut -f1))"
  echo "$o/jars"
}

image() {
  if [[ -f "$out/ref" && -f "$out/topic-operator.tar" ]]; then return; fi
  local dir root="$out/root" arch created ref="ghcr.io/serdebench/strimzi-topic-operator:$STRIMZI_VERSION"
  dir="$(jars)"
  arch="$(go env GOARCH)"
  rm -rf "$root" && mkdir -p "$root/opt/strimzi/lib"
  log "jlink a JRE from $jdk ($jdk_version)"
  # The modules the Topic Operator and its libraries use (jdeps over its jars), plus
  # DNS and elliptic-curve crypto, which are looked up by name at run time.
  "$jdk/bin/jlink" --add-modules java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.security.auth,jdk.unsupported,jdk.zipfs \
    --strip-debug --no-man-pages --no-header-files --compress=zip-6 --output "$root/opt/java" >&2
  cp "$dir/topic-operator-$STRIMZI_VERSION.jar" "$dir"/lib/*.jar "$root/opt/strimzi/lib/"
  cp "$dir/main-class" "$root/opt/strimzi/main-class"
  jre_native_libs "$root"
  CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go -C "$repo" build -trimpath -ldflags="-s -w" -o "$out/topic-operator" ./hack/strimzi/pod
  created="$(git -C "$repo" log -1 --format=%ct -- hack/strimzi 2>/dev/null || echo 0)"
  go -C "$repo" run ./hack/image -binary "$out/topic-operator" -tree "$root" -ref "$ref" -out "$out/topic-operator.tar" \
    -arch "$arch" -version "$STRIMZI_VERSION" -created "${created:-0}" -title strimzi-topic-operator -licenses Apache-2.0 \
    -source https://github.com/strimzi/strimzi-kafka-operator \
    -description "Strimzi $STRIMZI_VERSION Topic Operator (standalone), built from its release source, on a JRE jlink'ed from $jdk_version" >"$out/ref.tmp"
  rm -rf "$root"
  mv "$out/ref.tmp" "$out/ref"
  log "image $(cat "$out/ref") ($(du -h "$out/topic-operator.tar" | cut -f1))"
}

case "${1:-jars}" in
  jars) jdk; outputs; jars ;;
  source) source_tree ;;
  image) jdk; outputs; image; if [[ "${2:-}" == tar ]]; then echo "$out/topic-operator.tar"; else cat "$out/ref"; fi ;;
  *) echo "usage: $0 [jars|source|image [tar]]" >&2; exit 2 ;;
esac
