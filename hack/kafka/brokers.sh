#!/usr/bin/env bash
# Three Kafka brokers as pods in the local cluster (hack/cluster), for the e2e
# faults Chaos Mesh applies to brokers' pods (hack/kafka/brokers.yaml):
#
#   hack/kafka/brokers.sh up     build and import the image, start them, wait until
#                                the quorum has all three and each serves clients;
#                                prints their bootstrap addresses
#   hack/kafka/brokers.sh down   delete them (their data stays with the cluster's state)
#
# Idempotent. The brokers' Services have fixed ClusterIPs (BROKER_SERVICE_IPS),
# reachable from pods and from this node.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
: "${KUBECONFIG:?set KUBECONFIG}"
BROKER_SERVICE_IPS="${BROKER_SERVICE_IPS:-10.96.0.100,10.96.0.101,10.96.0.102}"
BROKERS_READY_TIMEOUT="${BROKERS_READY_TIMEOUT:-180}"
data="${CLUSTER_DIR:-$repo/.state/cluster}/kafka-brokers"
log() { printf 'brokers: %s\n' "$*" >&2; }
kubectl="$("$repo/hack/k8s/build.sh" kubectl)/kubectl"
k() { "$kubectl" --request-timeout=30s "$@"; }
IFS=, read -r -a ips <<<"$BROKER_SERVICE_IPS"
bootstrap="$(printf '%s:9092,' "${ips[@]}")"
bootstrap="${bootstrap%,}"

manifest() {
  local image="$1" services="" i
  for i in "${!ips[@]}"; do
    services+="---
apiVersion: v1
kind: Service
metadata: {name: kafka-$i, namespace: kafka, labels: {app.kubernetes.io/name: kafka}}
spec:
  clusterIP: ${ips[$i]}
  # Peers must reach a broker before it is ready: the quorum forms first.
  publishNotReadyAddresses: true
  selector: {statefulset.kubernetes.io/pod-name: kafka-$i}
  ports: [{name: clients, port: 9092}, {name: controller, port: 9093}]
"
  done
  awk -v s="$services" '$0 == "@BROKER_SERVICES@" { printf "%s", s; next } { print }' "$here/brokers.yaml" |
    sed -e "s#@IMAGE@#$image#" -e "s#@DATA@#$data#" -e "s#@ADDRESSES@#$BROKER_SERVICE_IPS#" -e "s#@REPLICAS@#${#ips[@]}#"
}

up() {
  [[ "$(realpath -m "$KUBECONFIG")" == "$repo/.state/cluster/kubeconfig" ]] ||
    { log "these brokers are for the local cluster (hack/cluster): their image exists only there"; exit 1; }
  local image tar
  image="$("$here/image.sh")"
  tar="$("$here/image.sh" tar)"
  "$repo/hack/cluster/cluster.sh" load "$tar"
  local i
  for i in "${!ips[@]}"; do
    mkdir -p "$data/kafka-$i"
    chown 65532:65532 "$data/kafka-$i"
  done
  manifest "$image" | k apply -f - >/dev/null
  local end=$((SECONDS + BROKERS_READY_TIMEOUT))
  until k -n kafka rollout status statefulset/kafka --timeout=5s >/dev/null 2>&1; do
    if ((SECONDS > end)); then
      log "not ready after ${BROKERS_READY_TIMEOUT}s:"; k -n kafka get pods -o wide >&2
      for i in "${!ips[@]}"; do k -n kafka logs "kafka-$i" --tail=15 >&2 || true; done
      exit 1
    fi
    sleep 2
  done
  # Ready pods serve clients; the quorum must also have all three as voters with a leader.
  local libs status
  libs="$("$here/kafka.sh" libs)"
  until status="$(timeout 30 java -Xmx128m -cp "$libs/*" org.apache.kafka.tools.MetadataQuorumCommand \
      --bootstrap-server "$bootstrap" describe --status 2>/dev/null)" &&
    grep -q 'LeaderId:[[:space:]]*[0-9]' <<<"$status" &&
    [[ "$(sed -n 's/^CurrentVoters:[[:space:]]*//p' <<<"$status" | grep -o '"id": *[0-9]*' | wc -l)" == "${#ips[@]}" ]]; do
    if ((SECONDS > end)); then log "the quorum did not form in ${BROKERS_READY_TIMEOUT}s:"; echo "$status" >&2; exit 1; fi
    sleep 2
  done
  log "ready: ${#ips[@]} brokers at $bootstrap"
  echo "$bootstrap"
}

down() {
  if k get namespace kafka >/dev/null 2>&1; then
    k delete namespace kafka --wait=true --timeout=120s >/dev/null
    log "deleted"
  fi
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
