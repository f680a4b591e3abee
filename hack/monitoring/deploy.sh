#!/usr/bin/env bash
# Installs kube-prometheus-stack into the local cluster (hack/cluster) as a user does:
# its chart (hack/monitoring/build.sh chart) as release kube-prometheus-stack in
# namespace monitoring, with the images build.sh made from their Go modules and the
# local values (values.yaml beside this script: the parts that do not run here).
# Prints the Prometheus URL this machine reaches (a fixed ClusterIP; pods use
# http://kube-prometheus-stack-prometheus.monitoring:9090). Idempotent.
set -euo pipefail
shopt -s inherit_errexit
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$repo/hack/monitoring"
: "${KUBECONFIG:?set KUBECONFIG}"
: "${SERDEBENCH_HELM:?set SERDEBENCH_HELM (make sets it)}"
RELEASE=kube-prometheus-stack NAMESPACE=monitoring
log() { printf 'monitoring: %s\n' "$*" >&2; }
# shellcheck source=../lib/helm.sh
source "$repo/hack/lib/helm.sh"
HELM_BOUND=360 # the chart waits for its operator
kubectl="$("$repo/hack/k8s/build.sh" kubectl)/kubectl"
k() { "$kubectl" --request-timeout=30s "$@"; }

[[ "$(realpath -m "$KUBECONFIG")" == "$repo/.state/cluster/kubeconfig" ]] ||
  { log "this monitoring is for the local cluster (hack/cluster): its images exist only there"; exit 1; }
images="$("$here/build.sh" images)"
chart="$("$here/build.sh" chart)"
# shellcheck disable=SC1091
source "$images/images.env"
"$repo/hack/cluster/cluster.sh" load "$images"/*.tar

# image_args KEY REF: the chart's registry/repository/tag/sha values for REF
# (registry/repository:tag@sha256:digest), so its pods run exactly the images built.
image_args() {
  local name="${2%@*}" digest="${2#*@sha256:}" repository
  repository="${name%:*}"
  echo --set "$1.registry=${repository%%/*}" --set "$1.repository=${repository#*/}" --set "$1.tag=${name##*:}" --set "$1.sha=$digest"
}

# The chart's CRDs, applied server-side first: Helm installs a chart's crds/ only once
# and never upgrades them (the chart's own upgrade advice).
k apply --server-side --force-conflicts -f "$chart/charts/crds/crds/" >/dev/null
k wait --for=condition=Established --timeout=60s crd/prometheuses.monitoring.coreos.com crd/podmonitors.monitoring.coreos.com \
  crd/alertmanagerconfigs.monitoring.coreos.com >/dev/null
# What this script installed before it used the chart (prometheus-operator's example
# manifests), on a cluster state kept from then: it holds the same fixed ClusterIP.
k -n "$NAMESPACE" delete --ignore-not-found prometheus.monitoring.coreos.com/serdebench service/prometheus \
  deployment/prometheus-operator servicemonitor.monitoring.coreos.com/kubelet-cadvisor >/dev/null 2>&1 || true
helm_unstick "$RELEASE" "$NAMESPACE"
log "installing chart $(sed -n 's/^version: //p' "$chart/Chart.yaml") as release $RELEASE in namespace $NAMESPACE"
# shellcheck disable=SC2046
helm upgrade --install "$RELEASE" "$chart" -n "$NAMESPACE" --create-namespace --skip-crds --wait --timeout 5m \
  -f "$here/values.yaml" \
  $(image_args prometheusOperator.image "$PROMETHEUS_OPERATOR_IMAGE") \
  $(image_args prometheusOperator.prometheusConfigReloader.image "$CONFIG_RELOADER_IMAGE") \
  $(image_args prometheus.prometheusSpec.image "$PROMETHEUS_IMAGE") \
  $(image_args alertmanager.alertmanagerSpec.image "$ALERTMANAGER_IMAGE") >/dev/null
log "prometheus-operator ready"

# Helm waits for the operator's Deployment; the StatefulSets the operator then makes
# for Prometheus and Alertmanager are waited for here.
for sts in prometheus-$RELEASE-prometheus alertmanager-$RELEASE-alertmanager; do
  end=$((SECONDS + 240))
  until k -n "$NAMESPACE" get statefulset "$sts" >/dev/null 2>&1 &&
    k -n "$NAMESPACE" rollout status "statefulset/$sts" --timeout=5s >/dev/null 2>&1; do
    if ((SECONDS > end)); then
      log "statefulset $sts did not become ready in 240s:"; k -n "$NAMESPACE" get pods -o wide >&2
      k -n "$NAMESPACE" logs "deployment/$RELEASE-operator" --tail=20 >&2 || true
      exit 1
    fi
    sleep 2
  done
done
ip="$(k -n "$NAMESPACE" get service "$RELEASE-prometheus" -o jsonpath='{.spec.clusterIP}')"
url="http://$ip:9090"
end=$((SECONDS + 60))
until curl -sf --max-time 2 "$url/-/ready" >/dev/null; do
  ((SECONDS < end)) || { log "$url/-/ready does not answer"; exit 1; }
  sleep 1
done
log "Prometheus ready at $url"
echo "$url"
