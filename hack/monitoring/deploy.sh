#!/usr/bin/env bash
# Installs the real prometheus-operator (its own example manifests from its Go module,
# in namespace "monitoring") and a Prometheus it manages into the local cluster
# (hack/cluster), after importing the images it builds.
# Prints the Prometheus URL (a fixed ClusterIP, reachable from pods and this node).
# Idempotent.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/hack/monitoring"
: "${KUBECONFIG:?set KUBECONFIG}"
PROMETHEUS_SERVICE_IP="${PROMETHEUS_SERVICE_IP:-10.96.0.90}"
log() { printf 'monitoring: %s\n' "$*" >&2; }
kubectl="$("$repo/hack/k8s/build.sh" kubectl)/kubectl"
k() { "$kubectl" --request-timeout=30s "$@"; }

images="$("$here/build.sh")"
# shellcheck disable=SC1091
source "$images/images.env"
[[ "$(realpath -m "$KUBECONFIG")" == "$repo/.state/cluster/kubeconfig" ]] ||
  { log "this monitoring is for the local cluster (hack/cluster): its images exist only there"; exit 1; }
"$repo/hack/cluster/cluster.sh" load "$images"/*.tar
crds="$("$repo/hack/crds/fetch.sh")"
k apply --server-side --force-conflicts -f <(cat "$crds"/monitoring.coreos.com_*.yaml) >/dev/null
k wait --for=condition=Established --timeout=60s crd/prometheuses.monitoring.coreos.com crd/podmonitors.monitoring.coreos.com >/dev/null

po_src="$(dirname "$images")/src/prometheus-operator" # the version build.sh just built
k create namespace monitoring --dry-run=client -o yaml | k apply -f - >/dev/null
# The upstream manifests name namespace "default" and the images by tag; ours are by
# the same names (imported above).
for f in "$po_src"/example/rbac/prometheus-operator/prometheus-operator-{service-account,cluster-role,cluster-role-binding,deployment}.yaml \
  "$po_src"/example/rbac/prometheus/prometheus-{service-account,cluster-role,cluster-role-binding}.yaml; do
  sed -e 's/namespace: default/namespace: monitoring/' "$f"
  echo "---"
done | k apply -n monitoring -f - >/dev/null
sed -e "s#@PROMETHEUS_IMAGE@#$PROMETHEUS_IMAGE#" -e "s#@PROMETHEUS_VERSION@#$(echo "$PROMETHEUS_IMAGE" | sed 's/.*:v\([0-9.]*\)@.*/\1/')#" \
  -e "s#@PROMETHEUS_SERVICE_IP@#$PROMETHEUS_SERVICE_IP#" "$here/prometheus.yaml" | k apply -f - >/dev/null
k -n monitoring rollout status deployment/prometheus-operator --timeout=120s >/dev/null
log "prometheus-operator ready"
end=$((SECONDS + 180))
until k -n monitoring get statefulset prometheus-serdebench >/dev/null 2>&1 &&
  k -n monitoring rollout status statefulset/prometheus-serdebench --timeout=5s >/dev/null 2>&1; do
  if ((SECONDS > end)); then
    log "Prometheus did not become ready in 180s:"; k -n monitoring get pods -o wide >&2
    k -n monitoring logs deployment/prometheus-operator --tail=20 >&2 || true
    exit 1
  fi
  sleep 2
done
url="http://$PROMETHEUS_SERVICE_IP:9090"
end=$((SECONDS + 60))
until curl -sf --max-time 2 "$url/-/ready" >/dev/null; do
  ((SECONDS < end)) || { log "$url/-/ready does not answer"; exit 1; }
  sleep 1
done
log "Prometheus ready at $url"
echo "$url"
