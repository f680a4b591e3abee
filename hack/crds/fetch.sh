#!/usr/bin/env bash
# Gathers the third-party CRDs serdebench's tests install into envtest, from their
# published artifacts only (never committed copies), and prints the directory:
#   - Strimzi Kafka and KafkaTopic: generated from io.strimzi:api + crd-generator on Maven
#     Central, exactly as Strimzi's build generates it;
#   - prometheus-operator (PodMonitor, PrometheusRule, ...): from the Go module;
#   - Chaos Mesh (PodChaos, NetworkChaos, Schedule): from the Go module.
# Cached by version under ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/crds-<versions>.
set -euo pipefail

STRIMZI_VERSION="${STRIMZI_VERSION:-0.45.0}"
PROMETHEUS_OPERATOR_VERSION="${PROMETHEUS_OPERATOR_VERSION:-v0.85.0}"
# Chaos Mesh tags are not served as Go module versions; this is its main branch as
# the module proxy serves it.
CHAOS_MESH_VERSION="${CHAOS_MESH_VERSION:-v0.9.1-0.20260902003049-47411975a8cb}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
# LAYOUT changes when the set of CRDs gathered changes, so caches are rebuilt.
LAYOUT=2
out="$cache/crds-$LAYOUT-strimzi$STRIMZI_VERSION-po$PROMETHEUS_OPERATOR_VERSION-cm${CHAOS_MESH_VERSION:0:20}"
log() { printf 'crds: %s\n' "$*" >&2; }

if [[ -f "$out/.complete" ]]; then echo "$out"; exit 0; fi
rm -rf "$out" && mkdir -p "$out"

# Strimzi: resolve the generator's classpath, then generate.
cp_file="$cache/strimzi-$STRIMZI_VERSION/classpath.txt"
if [[ ! -s "$cp_file" ]]; then
  log "resolving Strimzi $STRIMZI_VERSION CRD generator from Maven Central"
  mkdir -p "$(dirname "$cp_file")"
  mvn -B -q -Dstyle.color=never -f "$here/pom.xml" -Dstrimzi.version="$STRIMZI_VERSION" -Dmaven.repo.local="$cache/m2" \
    dependency:build-classpath -Dmdep.outputFile="$cp_file" >"$out/mvn.log" 2>&1 \
    || { log "maven failed:"; tail -30 "$out/mvn.log" >&2; exit 1; }
fi
java -cp "$(cat "$cp_file")" io.strimzi.crdgenerator.CrdGenerator --yaml --crd-api-version v1 \
  --api-versions v1beta2 --storage-version v1beta2 \
  "io.strimzi.api.kafka.model.topic.KafkaTopic=$out/kafka.strimzi.io_kafkatopics.yaml" \
  "io.strimzi.api.kafka.model.kafka.Kafka=$out/kafka.strimzi.io_kafkas.yaml" >"$out/strimzi.log" 2>&1 \
  || { log "Strimzi CRD generation failed:"; tail -30 "$out/strimzi.log" >&2; exit 1; }

moddir() {
  GOFLAGS=-mod=mod GOWORK=off go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
}
po="$(moddir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")"
cp "$po"/example/prometheus-operator-crd/monitoring.coreos.com_*.yaml "$out/"
cm="$(moddir "github.com/chaos-mesh/chaos-mesh@$CHAOS_MESH_VERSION")"
for k in podchaos networkchaos schedules; do cp "$cm/config/crd/bases/chaos-mesh.org_$k.yaml" "$out/"; done
chmod -R u+w "$out"
rm -f "$out"/*.log
touch "$out/.complete"
log "CRDs in $out"
echo "$out"
