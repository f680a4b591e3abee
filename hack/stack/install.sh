#!/usr/bin/env bash
# hack/stack/install.sh RELEASE NAMESPACE [HELM ARGS...]
#
# Installs (or upgrades) the chart as a user would: into NAMESPACE under the restricted
# Pod Security Standard, with the images of this commit by digest and the values the
# README gives kube-prometheus-stack users (values-kube-prometheus-stack.yaml: the
# monitors, rules and dashboard with its release label, its Prometheus URL); then
# waits until Prometheus has loaded the PodMonitor's scrape job. The one install path of `make demo` (hack/demo.sh) and the
# e2e suite (e2e/suite_test.go).
#
# Env (what `hack/stack/stack.sh up` writes to .state/stack.env): KUBECONFIG,
# SERDEBENCH_KUBECTL, MANAGER_IMAGE, WORKER_IMAGE (repository:tag@sha256:...),
# JVM_WORKER_IMAGE (the same; empty: the operator runs no Java client trials),
# SERDEBENCH_STACK_PROMETHEUS_URL; and SERDEBENCH_HELM (the pinned helm, from make),
# SERDEBENCH_HELM_ARGS (extra chart values).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
[[ $# -ge 2 ]] || { echo "usage: $0 RELEASE NAMESPACE [HELM ARGS...]" >&2; exit 2; }
release=$1 namespace=$2
shift 2
for v in KUBECONFIG SERDEBENCH_KUBECTL SERDEBENCH_HELM MANAGER_IMAGE WORKER_IMAGE SERDEBENCH_STACK_PROMETHEUS_URL; do
  [[ -n "${!v:-}" ]] || { echo "install: $v is not set (source .state/stack.env; run through make)" >&2; exit 2; }
done
prom=$SERDEBENCH_STACK_PROMETHEUS_URL
log() { printf 'install: %s\n' "$*" >&2; }
# shellcheck source=../lib/helm.sh
source "$repo/hack/lib/helm.sh"
k() { timeout 120 "$SERDEBENCH_KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }
image_args() { # KEY repository:tag@digest -> --set KEY.repository/tag/digest
  local name="${2%@*}" digest="${2#*@}"
  echo --set "$1.repository=${name%:*}" --set "$1.tag=${name##*:}" --set "$1.digest=$digest"
}

k apply -f - >/dev/null <<NS
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"$namespace","labels":{
 "pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted"}}}
NS
# CRDs another release installed (kept on its uninstall) are adopted, as Helm allows
# for resources annotated with the adopting release.
for crd in serializationexperiments.serdebench.io serializationresults.serdebench.io serializationschedules.serdebench.io; do
  if k get crd "$crd" >/dev/null 2>&1; then
    k annotate --overwrite crd "$crd" meta.helm.sh/release-name="$release" meta.helm.sh/release-namespace="$namespace" >/dev/null
    k label --overwrite crd "$crd" app.kubernetes.io/managed-by=Helm >/dev/null
  fi
done
helm_unstick "$release" "$namespace"

# The local cluster runs kube-prometheus-stack as its README installs it, so the chart
# gets exactly the values file the README gives users; on another cluster the operator
# queries the Prometheus named in SERDEBENCH_STACK_PROMETHEUS_URL.
prom_url=""
[[ "${SERDEBENCH_STACK_LOCAL_CLUSTER:-}" == 1 ]] || prom_url="--set prometheus.url=$prom"
pm() { k -n "$namespace" get podmonitor -l app.kubernetes.io/instance="$release" -o jsonpath="{.items[*].metadata.$1}" 2>/dev/null || true; }
before="$(pm resourceVersion)" upgraded="$(date +%s)"
jvm_image="--set workerImage.jvm.repository="
[[ -z "${JVM_WORKER_IMAGE:-}" ]] || jvm_image="$(image_args workerImage.jvm "$JVM_WORKER_IMAGE")"
# shellcheck disable=SC2046,SC2086
helm upgrade --install "$release" "$repo/charts/serdebench-operator" -n "$namespace" --wait --timeout 3m \
  $(image_args image "$MANAGER_IMAGE") $(image_args workerImage "$WORKER_IMAGE") $jvm_image \
  -f "$repo/charts/serdebench-operator/values-kube-prometheus-stack.yaml" $prom_url "$@" ${SERDEBENCH_HELM_ARGS:-} >/dev/null
[[ "$(pm resourceVersion)" != "$before" ]] || upgraded="" # unchanged: what Prometheus loaded is current
name="$(pm name)"
[[ -n "$name" ]] || { log "ERROR: the release has no PodMonitor"; exit 1; }
job="podMonitor/$namespace/$name/"

# prometheus-operator renders the job into a Secret at once and kubelet updates the
# mounted copy within seconds, but the config reloader notices only on its 3-minute
# poll. Trials must not start earlier, nor during a reload (which restarts the
# scrape pool and can miss short-lived workers).
log "waiting for Prometheus ($prom) to load scrape job $job"
loaded() {
  local cfg
  cfg="$(curl -sf --max-time 2 "$prom/api/v1/status/config")" && grep -qF "$job" <<<"$cfg" || return 1
  [[ -z "$upgraded" ]] && return 0
  local last
  last="$(curl -sf --max-time 2 "$prom/api/v1/status/runtimeinfo" | grep -o '"lastConfigTime":"[^"]*"' | cut -d'"' -f4 || true)"
  # As instants, not strings: Prometheus writes its own zone and fractions.
  [[ -n "$last" ]] && (( $(date -d "$last" +%s 2>/dev/null || echo 0) >= upgraded ))
}
for i in $(seq 241); do
  loaded && { log "loaded after ${i}s"; exit 0; }
  sleep 1
done
log "ERROR: Prometheus did not load $job in 4 minutes"
exit 1
