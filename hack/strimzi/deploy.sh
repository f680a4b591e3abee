#!/usr/bin/env bash
# Strimzi's Topic Operator (hack/strimzi/build.sh's image) in a namespace of the
# cluster, as Strimzi's standalone install lays it out (its packaging/install/
# topic-operator files, taken from the same source): Strimzi's ServiceAccount, Role
# and RoleBinding, its Deployment with this image, watching NAMESPACE for KafkaTopics
# labelled strimzi.io/cluster=CLUSTER. Beside it, what a Strimzi Kafka cluster
# presents to serdebench: the Kafka resource CLUSTER (declaring the brokers' Kafka
# version) and the Service CLUSTER-kafka-bootstrap:9092, whose endpoints are the
# brokers at BOOTSTRAP. Strimzi's Cluster Operator, which would run brokers as pods
# from Strimzi's images, does not run here; the brokers are hack/kafka's.
#
#   hack/strimzi/deploy.sh up NAMESPACE BOOTSTRAP [CLUSTER]   (idempotent; CLUSTER: my-cluster)
#   hack/strimzi/deploy.sh down NAMESPACE [CLUSTER]
#
# BOOTSTRAP is IPv4:port[,IPv4:port...] on one port. Env: KUBECONFIG, SERDEBENCH_KUBECTL,
# STRIMZI_IMAGE (name@digest, present on the nodes: hack/stack/stack.sh loads it),
# KAFKA_VERSION (the Kafka resource's spec.kafka.version).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../versions.env
. "$here/../versions.env"
log() { printf 'strimzi: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
: "${SERDEBENCH_KUBECTL:?set SERDEBENCH_KUBECTL (source .state/stack.env)}" "${KUBECONFIG:?set KUBECONFIG}"
k() { timeout 120 "$SERDEBENCH_KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }
name=strimzi-topic-operator
# What this script creates carries this label; down deletes only what carries it.
mark=app.kubernetes.io/managed-by=serdebench-hack-strimzi

# ours NAMESPACE CLUSTER: the Kafka resource is this script's.
ours() { local l; l="$(k -n "$1" get kafka -l "$mark" -o name 2>/dev/null)"; grep -qx "kafka.kafka.strimzi.io/$2" <<<"$l"; }

up() {
  local ns="$1" bootstrap="$2" cluster="${3:-my-cluster}" src install ips="" port="" a tmp marked
  tmp="$(mktemp -d)"
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  : "${STRIMZI_IMAGE:?set STRIMZI_IMAGE (hack/stack/stack.sh writes it to .state/stack.env)}"
  src="$("$here/build.sh" source)"
  install="$src/packaging/install"
  for a in ${bootstrap//,/ }; do
    [[ "$a" =~ ^([0-9.]+):([0-9]+)$ ]] || die "bootstrap address $a is not IPv4:port"
    [[ -z "$port" || "$port" == "${BASH_REMATCH[2]}" ]] || die "bootstrap addresses on different ports: $bootstrap"
    port="${BASH_REMATCH[2]}" ips+="\"${BASH_REMATCH[1]}\","
  done
  # A cluster that already runs Strimzi keeps its own: nothing here replaces its
  # CRDs or its Kafka resources.
  marked="$(k get crd -l "$mark" -o name)"
  if k get crd kafkatopics.kafka.strimzi.io >/dev/null 2>&1 && ! grep -q '/kafkatopics.kafka.strimzi.io$' <<<"$marked"; then
    log "Strimzi's CRDs are installed, not by this script: used as they are"
  else
    # As Strimzi's release installs them (the Kafka CRD is too large for a
    # client-side apply's annotation), marked as this script's.
    k apply --server-side --force-conflicts -f "$install/topic-operator/04-Crd-kafkatopic.yaml" \
      -f "$install/cluster-operator/040-Crd-kafka.yaml" >/dev/null
    k label --overwrite crd kafkatopics.kafka.strimzi.io kafkas.kafka.strimzi.io "$mark" >/dev/null
  fi
  k wait --for=condition=Established --timeout=60s crd/kafkatopics.kafka.strimzi.io crd/kafkas.kafka.strimzi.io >/dev/null
  k get namespace "$ns" >/dev/null 2>&1 || k create namespace "$ns" >/dev/null
  if k -n "$ns" get kafka "$cluster" >/dev/null 2>&1 && ! ours "$ns" "$cluster"; then
    die "Kafka $cluster in $ns exists and is not this script's: its own Strimzi serves it"
  fi
  k -n "$ns" apply -f "$install/topic-operator/01-ServiceAccount-strimzi-topic-operator.yaml" \
    -f "$install/topic-operator/02-Role-strimzi-topic-operator.yaml" \
    -f "$install/topic-operator/03-RoleBinding-strimzi-topic-operator.yaml" >/dev/null
  # Strimzi's Deployment with this image and this cluster's label and bootstrap; its
  # args name Strimzi's start script, whose work this image's entrypoint does. The
  # tests make the patch fail if Strimzi's file changes under it.
  local c=/spec/template/spec/containers/0
  k -n "$ns" patch --local --type json -o yaml -f "$install/topic-operator/05-Deployment-strimzi-topic-operator.yaml" -p "[
    {\"op\":\"remove\",\"path\":\"$c/args\"},
    {\"op\":\"replace\",\"path\":\"$c/image\",\"value\":\"$STRIMZI_IMAGE\"},
    {\"op\":\"test\",\"path\":\"$c/env/0/name\",\"value\":\"STRIMZI_RESOURCE_LABELS\"},
    {\"op\":\"replace\",\"path\":\"$c/env/0/value\",\"value\":\"strimzi.io/cluster=$cluster\"},
    {\"op\":\"test\",\"path\":\"$c/env/1/name\",\"value\":\"STRIMZI_KAFKA_BOOTSTRAP_SERVERS\"},
    {\"op\":\"replace\",\"path\":\"$c/env/1/value\",\"value\":\"$cluster-kafka-bootstrap:9092\"}]" >"$tmp/deployment.yaml"
  k -n "$ns" apply -f "$tmp/deployment.yaml" >/dev/null
  k -n "$ns" label --overwrite deployment,serviceaccount,role,rolebinding "$name" "$mark" >/dev/null
  k -n "$ns" apply -f - >/dev/null <<YAML
apiVersion: kafka.strimzi.io/v1
kind: Kafka
metadata:
  name: $cluster
  labels: {${mark%%=*}: ${mark#*=}}
spec:
  kafka:
    version: ${KAFKA_VERSION:-$KAFKA_CURRENT}
    listeners:
    - {name: plain, port: 9092, type: internal, tls: false}
---
apiVersion: v1
kind: Service
metadata:
  name: $cluster-kafka-bootstrap
  labels: {strimzi.io/cluster: $cluster, ${mark%%=*}: ${mark#*=}}
spec:
  ports:
  - {name: tcp-clients, port: 9092, targetPort: $port, protocol: TCP}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: $cluster-kafka-bootstrap
  labels:
    ${mark%%=*}: ${mark#*=}
    kubernetes.io/service-name: $cluster-kafka-bootstrap
    endpointslice.kubernetes.io/managed-by: serdebench.io-hack-strimzi
addressType: IPv4
ports:
- {name: tcp-clients, port: $port, protocol: TCP}
endpoints:
- addresses: [${ips%,}]
YAML
  k -n "$ns" rollout status "deployment/$name" --timeout=180s >/dev/null ||
    { k -n "$ns" logs "deployment/$name" --tail=30 >&2 || true; die "the Topic Operator did not become ready in $ns"; }
  log "Topic Operator ready in $ns, watching KafkaTopics of cluster $cluster at $cluster-kafka-bootstrap:9092 ($bootstrap)"
}

down() {
  local ns="$1" cluster="${2:-my-cluster}"
  ours "$ns" "$cluster" || { log "no Kafka $cluster of this script's in $ns: nothing to remove"; return; }
  # KafkaTopics first, while the Topic Operator can still remove its finalizer.
  k -n "$ns" delete kafkatopics -l "strimzi.io/cluster=$cluster" --ignore-not-found --wait=true --timeout=60s >/dev/null ||
    log "some KafkaTopics of $cluster in $ns are still there (they keep the Topic Operator's finalizer)"
  k -n "$ns" delete deployment,serviceaccount,role,rolebinding,kafka,service,endpointslice -l "$mark" --ignore-not-found >/dev/null
}

case "${1:-}" in
  up) [[ $# -ge 3 ]] || die "usage: $0 up NAMESPACE BOOTSTRAP [CLUSTER]"; up "$2" "$3" "${4:-}" ;;
  down) [[ $# -ge 2 ]] || die "usage: $0 down NAMESPACE [CLUSTER]"; down "$2" "${3:-}" ;;
  *) echo "usage: $0 up NAMESPACE BOOTSTRAP [CLUSTER] | down NAMESPACE [CLUSTER]" >&2; exit 2 ;;
esac
