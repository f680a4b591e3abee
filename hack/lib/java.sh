# Finding a JDK for the scripts that need a newer one than the default (Strimzi 1.x's
# CRD generator and Topic Operator need Java 21+). Sourced; defines functions only.

# java_major JAVA: its major version (17, 25), empty when it does not say.
java_major() {
  local v
  v="$("$1" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')"
  [[ "${v%%.*}" =~ ^[0-9]+$ ]] && echo "${v%%.*}"
}

# java_at_least N prints a java binary of major version N or newer: the default one,
# else one of the JDKs under /usr/lib/jvm (this machine kind ships a second one).
java_at_least() {
  local want="$1" j v
  for j in "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
    [[ -x "$j" ]] || continue
    v="$(java_major "$j")"
    if [[ -n "$v" ]] && ((v >= want)); then echo "$j"; return 0; fi
  done
  return 1
}

# java_newest N prints the newest java binary of major version N or newer, the
# default one or one under /usr/lib/jvm (Java 25 on this machine kind).
java_newest() {
  local best="" bv=0 j v
  for j in "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
    [[ -x "$j" ]] || continue
    v="$(java_major "$j")"
    if [[ -n "$v" ]] && ((v >= $1 && v > bv)); then best="$j" bv="$v"; fi
  done
  [[ -n "$best" ]] && echo "$best"
}

# worker_java prints the java binary the JVM worker is built with and runs on (and
# the bench's reference Java client with it): the newest Java 21 or later.
worker_java() { java_newest 21; }

# java_runtime_version JAVA: the full runtime version (e.g. 25.0.1+8-LTS), for cache keys.
java_runtime_version() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.runtime.version = //p'; }

# jre_native_libs ROOT: copy the C libraries the JRE under ROOT/opt/java loads (its
# binaries and libraries, the dynamic loader included) from this machine into ROOT,
# at the paths they are loaded from: an image needs them beside the JRE.
jre_native_libs() {
  local root="$1" lib
  while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done < <(find "$root/opt/java" -type f \( -name '*.so' -o -perm -u+x \) -exec ldd {} \; 2>/dev/null |
    sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' | sort -u | grep -v "^$root")
}
