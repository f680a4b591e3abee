#!/usr/bin/env bash
# Installs the real Chaos Mesh controller-manager, with its webhooks, into the local
# cluster (hack/cluster) from Chaos Mesh's own Helm chart (its Go module's), with
# the image hack/chaosmesh/build.sh builds. Idempotent.
#
#   hack/chaosmesh/deploy.sh up     install and wait until its webhooks answer
#   hack/chaosmesh/deploy.sh down   remove what up installed
#
# Left out on purpose: chaos-daemon (its image downloads nsexec, toda and tproxy
# from outside, and this kernel has no netem for it to drive; NetworkChaos,
# StressChaos and container kills therefore fail with Chaos Mesh's own reason,
# docs/faults.md), the dashboard and the DNS server. Pod kill and pod failure are
# done by the controller-manager alone; pod failure's pause image is the cluster's.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
: "${KUBECONFIG:?set KUBECONFIG}"
NAMESPACE=chaos-mesh
log() { printf 'chaosmesh: %s\n' "$*" >&2; }
kubectl="$("$repo/hack/k8s/build.sh" kubectl)/kubectl"
k() { "$kubectl" --request-timeout=30s "$@"; }
helm="${SERDEBENCH_HELM:?set SERDEBENCH_HELM (make sets it)}"
version="$(go -C "$here" list -m -f '{{.Version}}' github.com/chaos-mesh/chaos-mesh)"
# The chart from the module's source, downloaded if need be: the image can come from
# serdebench's cache while Go's module cache was emptied.
# shellcheck source=../lib/gomod.sh
. "$repo/hack/lib/gomod.sh"
chart="$(cd "$here" && gomod_dir github.com/chaos-mesh/chaos-mesh)/helm/chaos-mesh"
[[ -f "$chart/Chart.yaml" ]] || { log "ERROR: no Chaos Mesh chart at $chart"; exit 1; }
pause="$("$repo/hack/cluster/cluster.sh" pause-image)"

# render prints the chart's objects without the DaemonSet (chaos-daemon).
render() {
  "$helm" template chaos-mesh "$chart" --namespace "$NAMESPACE" --include-crds \
    --set images.registry=ghcr.io,images.tag="$version",controllerManager.replicaCount=1 \
    --set controllerManager.leaderElection.enabled=false,controllerManager.podChaos.podFailure.pauseImage="$pause" \
    --set dashboard.create=false,dnsServer.create=false,enableProfiling=false |
    awk 'BEGIN { RS = "\n---\n"; ORS = "\n---\n" } !/\nkind: DaemonSet\n/'
}

up() {
  [[ "$(realpath -m "$KUBECONFIG")" == "$repo/.state/cluster/kubeconfig" ]] ||
    { log "this Chaos Mesh is for the local cluster (hack/cluster): its image exists only there; elsewhere install Chaos Mesh's chart"; exit 1; }
  local tar ref
  read -r tar ref < <("$here/build.sh")
  "$repo/hack/cluster/cluster.sh" load "$tar"
  k create namespace "$NAMESPACE" --dry-run=client -o yaml | k apply -f - >/dev/null
  render | k apply --server-side --force-conflicts -f - >/dev/null
  k -n "$NAMESPACE" rollout status deployment/chaos-controller-manager --timeout=180s >/dev/null ||
    { k -n "$NAMESPACE" get pods -o wide >&2; k -n "$NAMESPACE" logs deployment/chaos-controller-manager --tail=30 >&2 || true; exit 1; }
  # Its webhooks must answer before anyone creates a chaos object: a server-side
  # dry run goes through them.
  local end=$((SECONDS + 90)) out
  until out="$(k create --dry-run=server -f - 2>&1 <<YAML
apiVersion: chaos-mesh.org/v1alpha1
kind: PodChaos
metadata: {name: webhook-check, namespace: $NAMESPACE}
spec: {action: pod-kill, mode: one, selector: {namespaces: [$NAMESPACE]}}
YAML
)"; do
    ((SECONDS < end)) || { log "its webhooks do not answer: $out"; exit 1; }
    sleep 2
  done
  log "ready: chaos-controller-manager ${ref#*:} with its webhooks"
}

down() {
  render | k delete --ignore-not-found --wait=false -f - >/dev/null 2>&1 || true
  log "removed"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
