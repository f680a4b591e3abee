#!/usr/bin/env bash
# `make demo`: the thesis batch experiment (config/samples/thesis-batch.yaml) run by the
# operator in a real cluster. Brings up the stack (hack/stack/stack.sh: the local
# cluster or KUBECONFIG's, images, a broker pods reach, kube-prometheus-stack), installs
# the Helm chart (hack/stack/install.sh, as the e2e suite does) and Strimzi's Topic
# Operator for that broker (hack/strimzi/deploy.sh), applies the sample as it is
# (topics as KafkaTopics of Strimzi cluster my-cluster), follows it, and prints `kubectl get sx,sr` and the result's
# table. DEMO_RECORDS (a record count per trial instead of the sample's 10 s windows)
# shortens it; DEMO_REPETITIONS (4 or more) repeats each trial, so that the
# recommendation can say how sure its pick is (its selection bias, the trials it
# cannot tell from it). Leaves everything running; `make down` stops it.
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

log "installing the chart into $NAMESPACE (namespaced RBAC, PodMonitor, Prometheus $SERDEBENCH_STACK_PROMETHEUS_URL)"
hack/stack/install.sh "$RELEASE" "$NAMESPACE" --set manager.workerMetricsGrace=10s
k -n "$NAMESPACE" get deploy,pods -l app.kubernetes.io/instance="$RELEASE"

log "Strimzi's Topic Operator in $NAMESPACE for Kafka cluster my-cluster (brokers at $SERDEBENCH_STACK_KAFKA)"
hack/strimzi/deploy.sh up "$NAMESPACE" "$SERDEBENCH_STACK_KAFKA" my-cluster

log "applying config/samples/thesis-batch.yaml (topics as KafkaTopics of Strimzi cluster my-cluster)"
k -n "$NAMESPACE" delete sx thesis-batch --ignore-not-found --wait=true --timeout=2m >/dev/null
patch=()
if [[ -n "${DEMO_RECORDS:-}" ]]; then
  patch+=("\"durationSeconds\":null,\"records\":$DEMO_RECORDS,\"warmup\":{\"durationSeconds\":null,\"records\":$((DEMO_RECORDS / 10))}")
fi
if [[ -n "${DEMO_REPETITIONS:-}" ]]; then
  patch+=("\"repetitions\":$DEMO_REPETITIONS")
fi
if ((${#patch[@]})); then
  k -n "$NAMESPACE" patch --local -f config/samples/thesis-batch.yaml --type merge -o json -p "{\"spec\":{$(IFS=,; echo "${patch[*]}")}}" |
    k -n "$NAMESPACE" apply -f -
else
  k -n "$NAMESPACE" apply -f config/samples/thesis-batch.yaml
fi

log "following the experiment (serdebench wait)"
bin/serdebench wait thesis-batch -n "$NAMESPACE" --timeout "$((30 * ${DEMO_REPETITIONS:-1}))m" >/dev/null
k -n "$NAMESPACE" get sx,sr
log "the SerializationResult (serdebench get result thesis-batch -n $NAMESPACE)"
bin/serdebench get result thesis-batch -n "$NAMESPACE"

# The same result as one self-contained HTML file (charts, table, environment).
report="$repo/.state/demo-report.html"
bin/serdebench report thesis-batch -n "$NAMESPACE" -o "$report" >/dev/null
log "report: $report ($(( $(stat -c %s "$report") / 1024 )) KiB; opens offline in any browser)"
echo "report: $report"
