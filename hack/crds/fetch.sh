#!/usr/bin/env bash
# Gathers the third-party CRDs serdebench's tests install into envtest, from their
# published artifacts only (never committed copies), and prints the directory:
#   - Strimzi Kafka and KafkaTopic, both generations serdebench speaks: generated from
#     io.strimzi:api + crd-generator on Maven Central, exactly as Strimzi's build
#     generates them, into strimzi-<version>/ — 1.x serves kafka.strimzi.io/v1 only
#     (its generator needs Java 21+), 0.4x serves v1beta2;
#   - prometheus-operator (PodMonitor, PrometheusRule, ...): from the Go module; and
#     the PodMonitor and ServiceMonitor under azmonitoring.coreos.com, the group AKS's
#     managed Prometheus reads (Microsoft: the same CRDs, only the group differs);
#   - Chaos Mesh (CHAOS_MESH_KINDS below): from the Go module.
# Cached by version under ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/crds-<versions>.
set -euo pipefail

STRIMZI_VERSION="${STRIMZI_VERSION:-1.2.0}"
STRIMZI_PREVIOUS_VERSION="${STRIMZI_PREVIOUS_VERSION:-0.45.0}"
# The version kube-prometheus-stack 88.5.3 (hack/monitoring) ships, so envtest checks
# the chart's monitors against the CRDs the local cluster runs.
PROMETHEUS_OPERATOR_VERSION="${PROMETHEUS_OPERATOR_VERSION:-v0.93.1}"
# Chaos Mesh tags are not served as Go module versions; this is its main branch as
# the module proxy serves it.
CHAOS_MESH_VERSION="${CHAOS_MESH_VERSION:-v0.9.1-0.20260902003049-47411975a8cb}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
# Chaos Mesh's CRDs envtest installs: every kind of the fault-kind table
# (api/trial.FaultKinds; TestFaultKindsServedAndAllowed holds this list to it), and
# what the operator reads of Chaos Mesh besides.
CHAOS_MESH_KINDS="podchaos networkchaos podnetworkchaos stresschaos schedules"
# LAYOUT changes when the set of CRDs gathered changes otherwise, so caches are
# rebuilt; a change of CHAOS_MESH_KINDS rebuilds them by itself.
LAYOUT=6
kinds_sum="$(printf '%s' "$CHAOS_MESH_KINDS" | cksum | cut -d' ' -f1)"
out="$cache/crds-$LAYOUT-strimzi$STRIMZI_VERSION-$STRIMZI_PREVIOUS_VERSION-po$PROMETHEUS_OPERATOR_VERSION-cm${CHAOS_MESH_VERSION:0:20}-$kinds_sum"
log() { printf 'crds: %s\n' "$*" >&2; }

if [[ -f "$out/.complete" ]]; then echo "$out"; exit 0; fi
rm -rf "$out" && mkdir -p "$out"

# shellcheck source=../lib/java.sh
. "$here/../lib/java.sh"
# shellcheck source=../lib/gomod.sh
. "$here/../lib/gomod.sh"

# strimzi VERSION API_VERSION: resolve the generator's classpath, then generate the
# KafkaTopic and Kafka CRDs serving API_VERSION into $out/strimzi-VERSION/.
strimzi() {
  local version="$1" api="$2" java="java" dir="$out/strimzi-$1"
  local cp_file="$cache/strimzi-$version/classpath.txt"
  mkdir -p "$dir"
  if [[ ! -s "$cp_file" ]]; then
    log "resolving Strimzi $version CRD generator from Maven Central"
    mkdir -p "$(dirname "$cp_file")"
    mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dstrimzi.version="$version" -Dmaven.repo.local="$cache/m2" \
      dependency:build-classpath -Dmdep.outputFile="$cp_file" >"$out/mvn.log" 2>&1 \
      || { log "maven failed:"; tail -30 "$out/mvn.log" >&2; exit 1; }
  fi
  if [[ "${version%%.*}" -ge 1 ]]; then
    java="$(java_at_least 21)" || { log "Strimzi $version's CRD generator needs Java 21 or newer; none found (java, /usr/lib/jvm/*)"; exit 1; }
  fi
  "$java" -cp "$(cat "$cp_file")" io.strimzi.crdgenerator.CrdGenerator --yaml --crd-api-version v1 \
    --api-versions "$api" --storage-version "$api" \
    "io.strimzi.api.kafka.model.topic.KafkaTopic=$dir/kafka.strimzi.io_kafkatopics.yaml" \
    "io.strimzi.api.kafka.model.kafka.Kafka=$dir/kafka.strimzi.io_kafkas.yaml" >"$out/strimzi.log" 2>&1 \
    || { log "Strimzi $version CRD generation failed:"; tail -30 "$out/strimzi.log" >&2; exit 1; }
}
strimzi "$STRIMZI_VERSION" v1
strimzi "$STRIMZI_PREVIOUS_VERSION" v1beta2

po="$(gomod_dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")"
cp "$po"/example/prometheus-operator-crd/monitoring.coreos.com_*.yaml "$out/"
for k in podmonitors servicemonitors; do
  sed -e 's/^\(  name: [a-z]*\)\.monitoring\.coreos\.com$/\1.azmonitoring.coreos.com/' -e 's/^  group: monitoring\.coreos\.com$/  group: azmonitoring.coreos.com/' \
    "$out/monitoring.coreos.com_$k.yaml" >"$out/azmonitoring.coreos.com_$k.yaml"
  grep -q '^  group: azmonitoring.coreos.com$' "$out/azmonitoring.coreos.com_$k.yaml" || { log "could not regroup $k"; exit 1; }
done
cm="$(gomod_dir "github.com/chaos-mesh/chaos-mesh@$CHAOS_MESH_VERSION")"
for k in $CHAOS_MESH_KINDS; do cp "$cm/config/crd/bases/chaos-mesh.org_$k.yaml" "$out/"; done
chmod -R u+w "$out"
rm -f "$out"/*.log
touch "$out/.complete"
log "CRDs in $out"
echo "$out"
