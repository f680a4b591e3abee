#!/usr/bin/env bash
# `make demo`: the thesis batch experiment (config/samples/thesis-batch.yaml) run by the
# operator in a real cluster. Brings up the stack (hack/stack/stack.sh: the local
# cluster or KUBECONFIG's, images, a broker pods reach, prometheus-operator), installs
# the Helm chart, applies the sample pointed at that broker, follows it, and prints
# `kubectl get sx,sr` and the result's table. DEMO_RECORDS (a record count per trial
# instead of the sample's 10 s windows) shortens it. Leaves everything running; `make down` stops it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
: "${SERDEBENCH_HELM:?run through make demo (it builds the pinned helm)}"
NAMESPACE="${DEMO_NAMESPACE:-serdebench-demo}"
RELEASE=serdebench
log() { printf '\ndemo: %s\n' "$*" >&2; }

envfile="$(hack/stack/stack.sh up)"
set -a
# shellcheck disable=SC1090
source "$envfile"
set +a
k() { "$SERDEBENCH_KUBECTL" "$@"; }
helm() {
  HELM_CACHE_HOME="$repo/.state/helm/cache" HELM_CONFIG_HOME="$repo/.state/helm/config" HELM_DATA_HOME="$repo/.state/helm/data" \
    "$SERDEBENCH_HELM" "$@"
}
image_args() { # KEY REF: --set KEY.repository/tag/digest from repository:tag@digest
  local name="${2%@*}" digest="${2#*@}"
  echo --set "$1.repository=${name%:*}" --set "$1.tag=${name##*:}" --set "$1.digest=$digest"
}

log "installing the chart into $NAMESPACE (namespaced RBAC, PodMonitor, Prometheus $SERDEBENCH_STACK_PROMETHEUS_URL)"
k create namespace "$NAMESPACE" --dry-run=client -o yaml | k apply -f - >/dev/null
k label namespace "$NAMESPACE" --overwrite pod-security.kubernetes.io/enforce=restricted >/dev/null
# CRDs another release installed (the e2e suite's, kept on its uninstall) are adopted,
# as Helm allows for resources annotated with the adopting release.
for crd in serializationexperiments.serdebench.io serializationresults.serdebench.io serializationschedules.serdebench.io; do
  if k get crd "$crd" >/dev/null 2>&1; then
    k annotate --overwrite crd "$crd" meta.helm.sh/release-name="$RELEASE" meta.helm.sh/release-namespace="$NAMESPACE" >/dev/null
    k label --overwrite crd "$crd" app.kubernetes.io/managed-by=Helm >/dev/null
  fi
done
pm_version() { k -n "$NAMESPACE" get podmonitor -l app.kubernetes.io/instance="$RELEASE" -o jsonpath='{.items[*].metadata.resourceVersion}' 2>/dev/null || true; }
pm_before="$(pm_version)" upgraded="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
# A release left pending by an interrupted run blocks upgrades: undo it first.
if helm status "$RELEASE" -n "$NAMESPACE" 2>/dev/null | grep -q '^STATUS: pending'; then
  helm rollback "$RELEASE" -n "$NAMESPACE" --wait >/dev/null 2>&1 || helm uninstall "$RELEASE" -n "$NAMESPACE" --wait >/dev/null
fi
# shellcheck disable=SC2046,SC2086
helm upgrade --install "$RELEASE" charts/serdebench-operator -n "$NAMESPACE" --wait --timeout 3m \
  $(image_args image "$MANAGER_IMAGE") $(image_args workerImage "$WORKER_IMAGE") \
  --set podMonitor.enabled=true --set prometheus.url="$SERDEBENCH_STACK_PROMETHEUS_URL" \
  --set manager.workerMetricsGrace=10s ${SERDEBENCH_HELM_ARGS:-} >/dev/null
k -n "$NAMESPACE" get deploy,pods -l app.kubernetes.io/instance="$RELEASE"
job="podMonitor/$NAMESPACE/"
log "waiting for Prometheus to load the PodMonitor's scrape job $job"
# (prometheus-operator renders it into a Secret at once and kubelet updates the mounted
# copy within seconds, but the config reloader notices only on its 3-minute poll; a
# second run finds it loaded.)
config="$repo/.state/prometheus-config.json"
# A changed PodMonitor must also be reloaded before trials start: a reload mid-trial
# restarts the scrape pool and can miss short-lived workers.
[[ "$(pm_version)" != "$pm_before" ]] || upgraded=""
loaded() {
  curl -sf --max-time 2 -o "$config" "$SERDEBENCH_STACK_PROMETHEUS_URL/api/v1/status/config" && grep -q "$job" "$config" || return 1
  [[ -z "$upgraded" ]] && return 0
  local last
  last="$(curl -sf --max-time 2 "$SERDEBENCH_STACK_PROMETHEUS_URL/api/v1/status/runtimeinfo" | grep -o '"lastConfigTime":"[^"]*"' | cut -d'"' -f4 || true)"
  [[ -n "$last" && ! "$last" < "$upgraded" ]]
}
for i in $(seq 241); do
  loaded && break
  ((i < 241)) || { echo "demo: Prometheus did not load $job in 4 minutes" >&2; exit 1; }
  sleep 1
done
echo "demo: loaded after ${i}s" >&2

log "applying config/samples/thesis-batch.yaml with kafka.bootstrapServers=$SERDEBENCH_STACK_KAFKA"
k -n "$NAMESPACE" delete sx thesis-batch --ignore-not-found --wait=true --timeout=2m >/dev/null
# The sample names a Strimzi cluster; here the broker is reached directly.
patch="{\"spec\":{\"kafka\":{\"strimzi\":null,\"bootstrapServers\":\"$SERDEBENCH_STACK_KAFKA\"}"
[[ -n "${DEMO_RECORDS:-}" ]] && patch+=",\"durationSeconds\":null,\"records\":$DEMO_RECORDS,\"warmup\":{\"durationSeconds\":null,\"records\":$((DEMO_RECORDS / 10))}"
patch+="}}"
k -n "$NAMESPACE" patch --local -f config/samples/thesis-batch.yaml --type merge -p "$patch" -o json |
  k -n "$NAMESPACE" apply -f -

log "following the experiment (serdebench wait)"
bin/serdebench wait thesis-batch -n "$NAMESPACE" --timeout 30m >/dev/null
k -n "$NAMESPACE" get sx,sr
log "the SerializationResult (serdebench get result thesis-batch -n $NAMESPACE)"
bin/serdebench get result thesis-batch -n "$NAMESPACE"

# The same result as one self-contained HTML file (charts, table, environment).
report="$repo/.state/demo-report.html"
bin/serdebench report thesis-batch -n "$NAMESPACE" -o "$report" >/dev/null
log "report: $report ($(( $(stat -c %s "$report") / 1024 )) KiB; opens offline in any browser)"
echo "report: $report"
