#!/usr/bin/env bash
# Everything the e2e tests and `make demo` run against, on one command:
#
#   hack/stack/stack.sh up     cluster + images + Kafka for pods + monitoring; writes .state/stack.env
#   hack/stack/stack.sh down   stops what up started here (broker, local cluster) and restores the machine
#   hack/stack/stack.sh load TAR..   OCI image tars into the cluster's nodes, as up loads its own
#
# Cluster: if KUBECONFIG names a reachable cluster (kind, AKS, ...), that one; else the
# local single-node cluster (hack/cluster). Images: built without Docker
# (hack/image/build.sh) and imported into the local cluster; for another cluster set
# SERDEBENCH_IMAGE_LOAD (a command given each image tar, e.g. "kind load image-archive")
# or push them yourself and set MANAGER_IMAGE and WORKER_IMAGE. Kafka: a broker from
# hack/kafka on this machine's address (port 9192; SASL +2, TLS +3) unless
# SERDEBENCH_STACK_KAFKA names one pods can reach (then also set _KAFKA_CA, and
# _KAFKA_SASL and _KAFKA_TLS if its listeners are not on +2 and +3). Schema registry:
# hack/registry on this machine's address (port 8082) unless
# SERDEBENCH_STACK_REGISTRY names one pods can reach. Monitoring:
# kube-prometheus-stack from its chart (hack/monitoring) on the local cluster; on
# another, SERDEBENCH_STACK_PROMETHEUS_URL must name a Prometheus that selects
# PodMonitors. SERDEBENCH_HELM_ARGS adds chart values for e2e and the demo.
# Strimzi: the Topic Operator's image (hack/strimzi/build.sh), loaded like the
# operator's; hack/strimzi/deploy.sh runs it in a namespace (the demo's, e2e's).
# Faults (SERDEBENCH_STACK_FAULTS=1, as make test-e2e sets): on the local cluster,
# three brokers as pods (hack/kafka/brokers.sh) and the real Chaos Mesh
# controller-manager (hack/chaosmesh/deploy.sh); on another cluster, set
# SERDEBENCH_STACK_BROKERS to brokers' bootstrap whose pods Chaos Mesh may kill
# (labelled app.kubernetes.io/name=kafka in namespace kafka) and install Chaos Mesh.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
state="$repo/.state"
envfile="$state/stack.env"
CLUSTER_KAFKA_PORT="${CLUSTER_KAFKA_PORT:-9192}"
CLUSTER_REGISTRY_PORT="${CLUSTER_REGISTRY_PORT:-8082}"
log() { printf 'stack: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

external_cluster() {
  [[ -n "${KUBECONFIG:-}" && "$(realpath -m "$KUBECONFIG")" != "$state/cluster/kubeconfig" ]] || return 1
  "$kubectl" --request-timeout=10s get --raw /readyz >/dev/null 2>&1 ||
    die "KUBECONFIG=$KUBECONFIG names no reachable cluster (unset it to use the local one)"
}

# load_images LOCAL HINT TAR..: image tars into the cluster's nodes: the local
# cluster's containerd, else SERDEBENCH_IMAGE_LOAD given each tar; HINT ends the
# error's advice (the variable that names an image pushed elsewhere instead).
load_images() {
  local local_cluster=$1 hint=$2 t
  shift 2
  if ((local_cluster)); then
    "$repo/hack/cluster/cluster.sh" load "$@"
  elif [[ -n "${SERDEBENCH_IMAGE_LOAD:-}" ]]; then
    for t; do $SERDEBENCH_IMAGE_LOAD "$t"; done
  else
    die "another cluster cannot see images built here: set SERDEBENCH_IMAGE_LOAD$hint"
  fi
}

up() {
  local start=$SECONDS local_cluster=1 node_ip
  kubectl="$("$repo/hack/k8s/build.sh" kubectl)/kubectl"
  mkdir -p "$state"
  if external_cluster; then
    local_cluster=0
    log "using the cluster in KUBECONFIG=$KUBECONFIG"
  else
    KUBECONFIG="$("$repo/hack/cluster/cluster.sh" up)"
    export KUBECONFIG
  fi
  node_ip="$("$repo/hack/cluster/cluster.sh" node-ip)"

  if [[ -z "${MANAGER_IMAGE:-}" || -z "${WORKER_IMAGE:-}" ]]; then
    "$repo/hack/image/build.sh"
    # shellcheck disable=SC1091
    source "$state/images/images.env"
    load_images "$local_cluster" ", or MANAGER_IMAGE and WORKER_IMAGE" \
      "$state/images/manager.tar" "$state/images/worker.tar" "$state/images/worker-jvm.tar"
  fi
  local strimzi="${STRIMZI_IMAGE:-}"
  if [[ -z "$strimzi" ]]; then
    strimzi="$("$repo/hack/strimzi/build.sh" image)"
    load_images "$local_cluster" ", or STRIMZI_IMAGE" "$("$repo/hack/strimzi/build.sh" image tar)"
  fi

  local kafka="${SERDEBENCH_STACK_KAFKA:-}" kafka_ca="${SERDEBENCH_STACK_KAFKA_CA:-}"
  if [[ -z "$kafka" ]]; then
    KAFKA_HOST="$node_ip" KAFKA_PORT="$CLUSTER_KAFKA_PORT" "$repo/hack/kafka/kafka.sh" up
    kafka="$node_ip:$CLUSTER_KAFKA_PORT"
    kafka_ca="$(KAFKA_HOST="$node_ip" KAFKA_PORT="$CLUSTER_KAFKA_PORT" "$repo/hack/kafka/kafka.sh" ca)"
  fi

  local registry="${SERDEBENCH_STACK_REGISTRY:-}"
  if [[ -z "$registry" ]]; then
    REGISTRY_HOST="$node_ip" REGISTRY_PORT="$CLUSTER_REGISTRY_PORT" "$repo/hack/registry/registry.sh" up
    registry="$(REGISTRY_HOST="$node_ip" REGISTRY_PORT="$CLUSTER_REGISTRY_PORT" "$repo/hack/registry/registry.sh" url)"
  fi

  local prom="${SERDEBENCH_STACK_PROMETHEUS_URL:-}"
  if [[ -z "$prom" ]]; then
    # The monitoring built here (images imported into containerd, a fixed ClusterIP in
    # the local service range) is for the local cluster only.
    ((local_cluster)) || die "set SERDEBENCH_STACK_PROMETHEUS_URL to a Prometheus that selects PodMonitors and that this machine and the operator reach (kube-prometheus-stack's: charts/serdebench-operator/values-kube-prometheus-stack.yaml, its labels changed with SERDEBENCH_HELM_ARGS if its release is not kube-prometheus-stack)"
    prom="$(SERDEBENCH_HELM="${SERDEBENCH_HELM:?set SERDEBENCH_HELM (make sets it)}" "$repo/hack/monitoring/deploy.sh")"
  fi

  local brokers="${SERDEBENCH_STACK_BROKERS:-}"
  if [[ "${SERDEBENCH_STACK_FAULTS:-0}" == 1 && -z "$brokers" ]]; then
    ((local_cluster)) || die "set SERDEBENCH_STACK_BROKERS for the fault tests on another cluster (brokers as pods, with Chaos Mesh installed)"
    brokers="$("$repo/hack/kafka/brokers.sh" up)"
    SERDEBENCH_HELM="${SERDEBENCH_HELM:?set SERDEBENCH_HELM (make sets it)}" "$repo/hack/chaosmesh/deploy.sh" up
  fi

  cat >"$envfile.tmp" <<ENV
KUBECONFIG=$KUBECONFIG
MANAGER_IMAGE=$MANAGER_IMAGE
WORKER_IMAGE=$WORKER_IMAGE
JVM_WORKER_IMAGE=${JVM_WORKER_IMAGE:-}
STRIMZI_IMAGE=$strimzi
SERDEBENCH_STACK_KAFKA=$kafka
SERDEBENCH_STACK_KAFKA_SASL=${SERDEBENCH_STACK_KAFKA_SASL:-${kafka%:*}:$((${kafka##*:} + 2))}
SERDEBENCH_STACK_KAFKA_TLS=${SERDEBENCH_STACK_KAFKA_TLS:-${kafka%:*}:$((${kafka##*:} + 3))}
SERDEBENCH_STACK_KAFKA_CA=$kafka_ca
SERDEBENCH_STACK_REGISTRY=$registry
SERDEBENCH_STACK_PROMETHEUS_URL=$prom
SERDEBENCH_STACK_LOCAL_CLUSTER=$local_cluster
SERDEBENCH_STACK_BROKERS=$brokers
SERDEBENCH_KUBECTL=$kubectl
ENV
  mv "$envfile.tmp" "$envfile"
  log "ready in $((SECONDS - start))s: $envfile"
  echo "$envfile"
}

down() {
  local node_ip
  node_ip="$("$repo/hack/cluster/cluster.sh" node-ip)"
  KAFKA_HOST="$node_ip" KAFKA_PORT="$CLUSTER_KAFKA_PORT" "$repo/hack/kafka/kafka.sh" down
  REGISTRY_HOST="$node_ip" REGISTRY_PORT="$CLUSTER_REGISTRY_PORT" "$repo/hack/registry/registry.sh" down
  "$repo/hack/cluster/cluster.sh" down
  rm -f "$envfile"
}

# load: into the cluster up chose (SERDEBENCH_STACK_LOCAL_CLUSTER, from stack.env),
# else the local one unless KUBECONFIG names another, as up decides.
load() {
  local local_cluster="${SERDEBENCH_STACK_LOCAL_CLUSTER:-}" t
  for t; do [[ -f "$t" ]] || die "load: $t: no such image tar"; done
  if [[ -z "$local_cluster" ]]; then
    kubectl="$("$repo/hack/k8s/build.sh" kubectl)/kubectl"
    local_cluster=1
    if external_cluster; then local_cluster=0; fi
  fi
  load_images "$local_cluster" "" "$@"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  load)
    shift
    (($#)) || { echo "usage: $0 load TAR.." >&2; exit 2; }
    load "$@"
    ;;
  *) echo "usage: $0 up|down|load TAR.." >&2; exit 2 ;;
esac
