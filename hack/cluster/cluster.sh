#!/usr/bin/env bash
# A real single-node Kubernetes cluster on this machine, without Docker or a registry:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet and kube-proxy
# (K8S_CURRENT in hack/versions.env, built from Go source by hack/k8s/build.sh), CoreDNS for the cluster's
# names (hack/coredns), containerd, runc and the CNI bridge plugin from Debian.
# Images are imported into containerd (`load`); pods use images that are present,
# never pulled.
#
#   hack/cluster/cluster.sh up          start (idempotent); prints the kubeconfig path
#   hack/cluster/cluster.sh down        stop everything and restore the machine; WIPE=1 also deletes state
#   hack/cluster/cluster.sh status      what runs, exit 3 if the cluster is not up
#   hack/cluster/cluster.sh load TAR..  import OCI image tars into the node's containerd
#   hack/cluster/cluster.sh node-ip     the address pods reach this machine at
#
# State (PKI, etcd data, containerd root, logs, PIDs) lives in <repo>/.state/cluster.
# Needs root. `up` records the machine's sysctls, iptables rules, network links,
# mounts and the few fixed paths kubelet and containerd create outside the state dir;
# `down` removes what the cluster added, restores what it changed, and fails if the
# machine does not then match that record. Only processes this script started (by
# recorded PID) are stopped.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
R="${CLUSTER_DIR:-$repo/.state/cluster}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
export KUBECACHEDIR="$R/kube-cache" # kubectl's discovery cache stays out of ~/.kube
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

# Debian packages, pinned.
DEBS=(containerd=1.6.20~ds1-1+deb12u3 runc=1.1.5+ds1-1+deb12u1 containernetworking-plugins=1.1.1+ds1-3+b5
  iptables=1.8.9-2 nftables=1.0.6-2+deb12u2)
# openssl only when missing (any version makes the PKI): security updates replace the
# archive's version, so a pin would fail on a machine that has a newer one.
OPENSSL_DEB=openssl=3.0.20-1~deb12u2
POD_CIDR=10.88.0.0/16
POD_GW=10.88.0.1
SVC_CIDR=10.96.0.0/12
SVC_IP=10.96.0.1
BRIDGE=cni-sdb0
ETCD_PORT=${CLUSTER_ETCD_PORT:-12379}
API_PORT=${CLUSTER_API_PORT:-6443}
# CoreDNS serves pods on the node's address (kubelet's clusterDNS); health and
# readiness on loopback.
DNS_HEALTH_PORT=${CLUSTER_DNS_HEALTH_PORT:-18080}
DNS_READY_PORT=${CLUSTER_DNS_READY_PORT:-18181}
CTR_SOCK="$R/containerd/containerd.sock"
PAUSE_REF=serdebench.local/pause:v1
# Sysctls kubelet, kube-proxy and the bridge plugin may change; restored by down.
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
  kernel.keys.root_maxbytes net.ipv4.ip_forward net.ipv4.conf.all.forwarding net.ipv4.conf.default.forwarding
  net.ipv4.conf.all.route_localnet net.ipv6.conf.all.forwarding net.netfilter.nf_conntrack_max
  net.netfilter.nf_conntrack_tcp_timeout_established net.netfilter.nf_conntrack_tcp_timeout_close_wait)
# Paths kubelet, containerd and libcni create outside the state dir, whatever they are told.
FIXED_PATHS=(/run/containerd /var/lib/cni /var/lib/kubelet /var/log/containers /var/log/pods /run/mount
  /usr/libexec/kubernetes /etc/kubernetes)

ts() { date +%s.%N; }
T0=$(ts)
log() { printf 'cluster [%ss]: %s\n' "$(awk -v a="$T0" -v b="$(ts)" 'BEGIN{printf "%.1f", b-a}')" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

node_ip() {
  local dev
  dev="$(ip -4 route show default 2>/dev/null | awk '{for (i=1;i<NF;i++) if ($i=="dev") {print $(i+1); exit}}')"
  [[ -n "$dev" ]] || dev="$(ip -4 -o addr show scope global | awk '{print $2; exit}')"
  ip -4 -o addr show dev "$dev" scope global | awk '{print $4; exit}' | cut -d/ -f1
}
NODE_IP="${NODE_IP:-$(node_ip)}"
NODE="$(hostname | tr 'A-Z' 'a-z')"

# shellcheck source=../lib/daemon.sh
. "$repo/hack/lib/daemon.sh"

# alive NAME: the process this script started as NAME still runs.
alive() { daemon_alive "$R/run/$1.pid"; }
pidof_() { daemon_pid "$R/run/$1.pid"; }

# start NAME CMD...: a daemon (hack/lib/daemon.sh), logging to logs/NAME.log.
start() {
  local n=$1; shift
  if alive "$n"; then log "$n already running (pid $(pidof_ "$n"))"; return; fi
  daemon_start "$R/run/$n.pid" "$R/logs/$n.log" "$@"
  log "started $n (pid $(pidof_ "$n"))"
}

# waitfor WHAT SECONDS CMD...: bounded wait; on timeout, the component's log tail.
waitfor() {
  local what=$1 t=$2; shift 2
  local end=$((SECONDS + t))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= end)); then
      log "timed out after ${t}s waiting for $what"
      for f in "$R"/logs/*.log; do [[ -s "$f" ]] && { echo "--- ${f##*/}" >&2; tail -5 "$f" >&2; }; done
      exit 1
    fi
    sleep 0.2
  done
  log "$what ok"
}

# stop NAME [SECONDS]: SIGTERM, SIGKILL after SECONDS (20).
stop() { daemon_stop "$R/run/$1.pid" "${2:-20}" "$1"; }

# ---------------------------------------------------------------- the machine's record
iptables_dump() { # rules without counters or comments, per family
  for ipt in iptables ip6tables; do
    command -v "$ipt-save" >/dev/null || continue
    "$ipt-save" 2>/dev/null | sed -e '/^#/d' -e 's/\[[0-9]*:[0-9]*\]$//' | sed "s/^/$ipt /"
  done
}
nft_tables() { nft list tables 2>/dev/null | sort; }
links() { ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort; }
mounts() { awk '{print $2}' /proc/mounts | sort; }
# sysctl_dump [KEY...]: "key = value" lines for the keys that exist (default: SYSCTLS).
sysctl_dump() {
  local k v keys=("$@")
  ((${#keys[@]})) || keys=("${SYSCTLS[@]}")
  for k in "${keys[@]}"; do v="$(sysctl -n "$k" 2>/dev/null)" && printf '%s = %s\n' "$k" "$v"; done
  return 0
}
kubepods() { find /sys/fs/cgroup -maxdepth 2 -name 'kubepods*' 2>/dev/null | sort; }
# The cgroup v2 root's enabled controllers (kubelet and runc enable more); empty on v1.
subtree_control() { cat /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true; }

record_host() {
  local boot; boot="$(cat /proc/sys/kernel/random/boot_id)"
  # After a reboot nothing of the cluster survives: the old record describes a machine
  # that is gone, so record this one. (A record without a boot id is kept: it may have
  # been taken on this boot, and recording now, with the cluster up, would be wrong.)
  if [[ -f "$R/host/boot_id" && "$(cat "$R/host/boot_id")" != "$boot" ]]; then
    log "the machine rebooted since the last up: recording it afresh"
    rm -rf "$R/host"
  fi
  [[ -d "$R/host" ]] && return # recorded at the first up since the last down
  mkdir -p "$R/host.tmp"
  sysctl_dump >"$R/host.tmp/sysctl"
  iptables_dump >"$R/host.tmp/iptables"
  nft_tables >"$R/host.tmp/nftables"
  links >"$R/host.tmp/links"
  mounts >"$R/host.tmp/mounts"
  kubepods >"$R/host.tmp/cgroups"
  for p in "${FIXED_PATHS[@]}"; do [[ -e "$p" ]] && echo "$p"; done >"$R/host.tmp/paths" || true
  subtree_control >"$R/host.tmp/subtree_control"
  echo "$boot" >"$R/host.tmp/boot_id"
  mv "$R/host.tmp" "$R/host"
  log "recorded the machine's sysctls, iptables, links and mounts in $R/host"
}

# ---------------------------------------------------------------- images
image_tool() { # binary ref out
  (cd "$repo" && go run ./hack/image -binary "$1" -ref "$2" -out "$3" -description "local cluster pod sandbox") >/dev/null
}

pause_image() {
  local out="$R/images/pause.tar"
  [[ -f "$out" ]] && return
  mkdir -p "$R/images"
  (cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$R/images/pause" ./hack/cluster/pause)
  image_tool "$R/images/pause" "$PAUSE_REF" "$out"
}

load() {
  alive containerd || die "the cluster is not up (run: hack/cluster/cluster.sh up)"
  local t name
  for t in "$@"; do
    # Also record the image by digest (name@sha256:...), the form deployments use: a
    # pull records both, an import only what --digests and --base-name ask for.
    name="$(tar -xOf "$t" index.json 2>/dev/null | grep -o '"io.containerd.image.name": *"[^"]*"' | head -1 | sed 's/.*: *"\(.*\)"/\1/' || true)"
    [[ -n "$name" ]] || die "$t names no image (io.containerd.image.name)"
    ctr -a "$CTR_SOCK" -n k8s.io images import --all-platforms --digests --base-name "${name%:*}" "$t" >/dev/null ||
      die "import $t failed"
    log "imported $name"
  done
}

# ---------------------------------------------------------------- PKI and kubeconfigs
P="$R/pki"
mkca() {
  [[ -f "$P/$1.crt" ]] && return
  openssl genrsa -out "$P/$1.key" 2048 2>/dev/null
  openssl req -x509 -new -key "$P/$1.key" -subj "/CN=$2" -days 3650 -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" -out "$P/$1.crt"
}
mkcert() { # name subject extendedKeyUsage [subjectAltName] [ca]
  local n=$1 subj=$2 eku=$3 san=${4:-} ca=${5:-ca}
  [[ -f "$P/$n.crt" ]] && return
  openssl genrsa -out "$P/$n.key" 2048 2>/dev/null
  openssl req -new -key "$P/$n.key" -subj "$subj" -out "$P/$n.csr"
  { echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    if [[ -n "$san" ]]; then echo "subjectAltName=$san"; fi; } >"$P/$n.ext"
  openssl x509 -req -in "$P/$n.csr" -CA "$P/$ca.crt" -CAkey "$P/$ca.key" -CAcreateserial -days 3650 -sha256 \
    -extfile "$P/$n.ext" -out "$P/$n.crt" 2>/dev/null
}
pki() {
  mkdir -p "$P"
  # The PKI names the node IP; a machine whose address changed needs a new one.
  if [[ -f "$P/node-ip" && "$(cat "$P/node-ip")" != "$NODE_IP" ]]; then
    log "node IP changed ($(cat "$P/node-ip") -> $NODE_IP): new PKI, components restarted"
    local n
    for n in coredns kube-proxy kubelet kube-scheduler kube-controller-manager kube-apiserver etcd; do stop "$n"; done
    rm -rf "$P" "$R"/*.kubeconfig && mkdir -p "$P"
  fi
  echo "$NODE_IP" >"$P/node-ip"
  mkca ca serdebench-local-ca
  mkca front-proxy-ca serdebench-local-front-proxy-ca
  if [[ ! -f "$P/sa.key" ]]; then
    openssl genrsa -out "$P/sa.key" 2048 2>/dev/null
    openssl rsa -in "$P/sa.key" -pubout -out "$P/sa.pub" 2>/dev/null
  fi
  mkcert apiserver "/CN=kube-apiserver" serverAuth \
    "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost,DNS:$NODE,IP:127.0.0.1,IP:$NODE_IP,IP:$SVC_IP"
  mkcert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  mkcert admin "/O=system:masters/CN=kubernetes-admin" clientAuth
  mkcert controller-manager "/CN=system:kube-controller-manager" clientAuth
  mkcert scheduler "/CN=system:kube-scheduler" clientAuth
  mkcert kubelet-client "/O=system:nodes/CN=system:node:$NODE" clientAuth
  mkcert kubelet "/CN=$NODE" serverAuth "DNS:$NODE,DNS:localhost,IP:$NODE_IP,IP:127.0.0.1"
  mkcert kube-proxy "/CN=system:kube-proxy" clientAuth
  mkcert coredns "/CN=system:coredns" clientAuth
  mkcert front-proxy-client "/CN=front-proxy-client" clientAuth "" front-proxy-ca
  for n in admin controller-manager scheduler kubelet kube-proxy coredns; do
    local f="$R/$n.kubeconfig" cert=$n
    [[ $n == kubelet ]] && cert=kubelet-client
    [[ -f "$f" ]] && continue
    "$KUBECTL" config set-cluster local --server="https://$NODE_IP:$API_PORT" --certificate-authority="$P/ca.crt" --embed-certs --kubeconfig="$f" >/dev/null
    "$KUBECTL" config set-credentials "$n" --client-certificate="$P/$cert.crt" --client-key="$P/$cert.key" --embed-certs --kubeconfig="$f" >/dev/null
    "$KUBECTL" config set-context default --cluster=local --user="$n" --kubeconfig="$f" >/dev/null
    "$KUBECTL" config use-context default --kubeconfig="$f" >/dev/null
  done
}

# ---------------------------------------------------------------- up
# put FILE: stdin into FILE only if it differs (kube-proxy exits when its
# configuration file is written to, even with the same content).
put() {
  local tmp="$1.tmp"
  cat >"$tmp"
  if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else mv "$tmp" "$1"; fi
}

write_configs() {
  put "$R/cni/net.d/10-serdebench.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "serdebench-local",
  "plugins": [
    { "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$R/cni/networks",
                "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$POD_GW" }]],
                "routes": [{ "dst": "0.0.0.0/0" }] } }
  ]
}
EOF
  put "$R/containerd/config.toml" <<EOF
version = 2
root = "$R/containerd/root"
state = "$R/containerd/state"
[grpc]
  address = "$CTR_SOCK"
[ttrpc]
  address = "$CTR_SOCK.ttrpc"
[debug]
  address = "$R/containerd/debug.sock"
  level = "info"
[metrics]
  address = ""
[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "$PAUSE_REF"
    netns_mounts_under_state_dir = true
    # Root here lacks CAP_SYS_RESOURCE, so runc cannot lower oom_score_adj to the
    # sandbox's -998: clamp to containerd's own instead.
    restrict_oom_score_adj = true
    disable_hugetlb_controller = true
    tolerate_missing_hugetlb_controller = true
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/usr/lib/cni"
      conf_dir = "$R/cni/net.d"
      max_conf_num = 1
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "overlayfs"
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = false
          Root = "$R/containerd/runc"
  [plugins."io.containerd.internal.v1.opt"]
    path = "$R/containerd/opt"
EOF
  local cgroup_v1=false
  [[ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]] && cgroup_v1=true
  put "$R/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
# Resync pods every 5 s (default 1 min): a Secret's update (prometheus-operator's
# rendered scrape config) reaches the pods that mount it that much sooner.
syncFrequency: 5s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
# The embedded cAdvisor names containers (container, pod, namespace labels on
# /metrics/cadvisor) by asking containerd at its default socket, which
# cadvisor_socket points here. Without it every series is a bare cgroup.
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $P/ca.crt}
authorization: {mode: Webhook}
tlsCertFile: $P/kubelet.crt
tlsPrivateKeyFile: $P/kubelet.key
cgroupDriver: cgroupfs
cgroupsPerQOS: true
failSwapOn: false
failCgroupV1: $( [[ $cgroup_v1 == true ]] && echo false || echo true )
containerRuntimeEndpoint: unix://$CTR_SOCK
imageServiceEndpoint: unix://$CTR_SOCK
podLogsDir: $R/pod-logs
clusterDomain: cluster.local
clusterDNS: [$NODE_IP]
resolvConf: /etc/resolv.conf
# No registry: images are imported, so never garbage-collect them.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%", "nodefs.inodesFree": "1%"}
serializeImagePulls: false
rotateCertificates: false
registerNode: true
# Otherwise kubelet adds a firewall chain that drops non-loopback traffic to 127/8.
makeIPTablesUtilChains: false
volumePluginDir: $R/kubelet/volume-plugins
EOF
  put "$R/kube-proxy-config.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $R/kube-proxy.kubeconfig}
mode: iptables
clusterCIDR: $POD_CIDR
hostnameOverride: $NODE
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
# Leave the conntrack sysctls alone: 0 means "do not set" for each.
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {localhostNodePorts: false}  # leave net.ipv4.conf.all.route_localnet alone
nodePortAddresses: [primary]
EOF
  # Cluster names from the API (as kubeadm's CoreDNS does), the rest from this
  # machine's resolver; answered only to pods and this machine (it listens on the
  # node's address). The binary's path names its build, so a new one restarts it.
  put "$R/Corefile" <<EOF
# $coredns
.:53 {
    bind $NODE_IP
    errors
    acl {
        allow net $POD_CIDR $NODE_IP/32 127.0.0.0/8
        block
    }
    health 127.0.0.1:$DNS_HEALTH_PORT
    ready 127.0.0.1:$DNS_READY_PORT
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $R/coredns.kubeconfig default
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    forward . /etc/resolv.conf
    cache 30
    loop
}
EOF
}

# restart_if_changed NAME FILE: stop a running daemon whose configuration file changed
# since it started, so that start() runs it with the new one.
restart_if_changed() {
  local sum; sum="$(sha256sum "$2" | cut -d' ' -f1)"
  if alive "$1" && [[ "$(cat "$R/run/$1.config" 2>/dev/null)" != "$sum" ]]; then
    log "$1's configuration changed: restarting it"
    stop "$1"
  fi
  echo "$sum" >"$R/run/$1.config"
}

up() {
  [[ $(id -u) -eq 0 ]] || die "needs root (containerd, kubelet, iptables, mounts)"
  [[ -n "$NODE_IP" ]] || die "no IPv4 address found for this machine; set NODE_IP"
  "$repo/hack/apt-install.sh" "${DEBS[@]}" >/dev/null
  command -v openssl >/dev/null || "$repo/hack/apt-install.sh" "$OPENSSL_DEB" >/dev/null
  local bin
  bin="$("$repo/hack/k8s/build.sh" etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)"
  KUBECTL="$bin/kubectl"
  local coredns; coredns="$("$repo/hack/coredns/build.sh")"
  mkdir -p "$R"/{logs,run,cni/net.d,cni/networks,containerd,kubelet,pod-logs,etcd-data,images}
  record_host
  pki
  pause_image
  write_configs
  local K=("$KUBECTL" --kubeconfig="$R/admin.kubeconfig" --request-timeout=5s)

  start etcd "$bin/etcd" --name local --data-dir "$R/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "local=http://127.0.0.1:$((ETCD_PORT + 1))" --listen-metrics-urls "http://127.0.0.1:$((ETCD_PORT + 2))" \
    --log-level warn
  waitfor etcd 30 curl -sf --max-time 2 "http://127.0.0.1:$ETCD_PORT/health"
  start kube-apiserver "$bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port="$API_PORT" \
    --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
    --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" --kubelet-client-key="$P/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority="$P/ca.crt" --kubelet-preferred-address-types=InternalIP,Hostname \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
    --service-cluster-ip-range="$SVC_CIDR" \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --requestheader-client-ca-file="$P/front-proxy-ca.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- \
    --proxy-client-cert-file="$P/front-proxy-client.crt" --proxy-client-key-file="$P/front-proxy-client.key" \
    --profiling=false --v=1
  waitfor kube-apiserver 90 "${K[@]}" get --raw /readyz
  start kube-controller-manager "$bin/kube-controller-manager" \
    --kubeconfig="$R/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$R/controller-manager.kubeconfig" --authorization-kubeconfig="$R/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --leader-elect=false \
    --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" \
    --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
    --use-service-account-credentials=true --service-cluster-ip-range="$SVC_CIDR" \
    --flex-volume-plugin-dir="$R/kcm-volume-plugins" --cluster-name=serdebench-local --profiling=false --v=1
  start kube-scheduler "$bin/kube-scheduler" \
    --kubeconfig="$R/scheduler.kubeconfig" \
    --authentication-kubeconfig="$R/scheduler.kubeconfig" --authorization-kubeconfig="$R/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --leader-elect=false --profiling=false --v=1

  restart_if_changed containerd "$R/containerd/config.toml"
  start containerd /usr/bin/containerd -c "$R/containerd/config.toml"
  waitfor containerd 30 timeout 5 ctr -a "$CTR_SOCK" version
  local images; images="$(timeout 30 ctr -a "$CTR_SOCK" -n k8s.io images ls -q)"
  grep -qx "$PAUSE_REF" <<<"$images" || load "$R/images/pause.tar"

  # CoreDNS reads Services and EndpointSlices under kubeadm's ClusterRole for it.
  "${K[@]}" apply -f - >/dev/null <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- {apiGroups: [""], resources: [endpoints, services, pods, namespaces], verbs: [list, watch]}
- {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:coredns"}]
EOF
  restart_if_changed coredns "$R/Corefile"
  start coredns "$coredns" -conf "$R/Corefile"
  waitfor coredns 30 curl -sf --max-time 2 "http://127.0.0.1:$DNS_READY_PORT/ready"

  restart_if_changed kubelet "$R/kubelet-config.yaml"
  restart_if_changed kube-proxy "$R/kube-proxy-config.yaml"
  cadvisor_socket
  start kubelet "$bin/kubelet" --config="$R/kubelet-config.yaml" --kubeconfig="$R/kubelet.kubeconfig" \
    --root-dir="$R/kubelet" --hostname-override="$NODE" --node-ip="$NODE_IP" --v=1
  start kube-proxy "$bin/kube-proxy" --config="$R/kube-proxy-config.yaml" --v=1
  waitfor node-registered 60 "${K[@]}" get node "$NODE"
  waitfor node-Ready 120 "${K[@]}" wait --for=condition=Ready "node/$NODE" --timeout=1s
  waitfor default-serviceaccount 60 "${K[@]}" -n default get serviceaccount default
  cp "$R/admin.kubeconfig" "$R/kubeconfig"
  log "up: export KUBECONFIG=$R/kubeconfig (node $NODE at $NODE_IP)"
  echo "$R/kubeconfig"
}

# ---------------------------------------------------------------- down
down() {
  [[ $(id -u) -eq 0 ]] || die "needs root"
  if [[ ! -d "$R/host" ]]; then
    local any=""
    for n in coredns kube-proxy kubelet containerd kube-scheduler kube-controller-manager kube-apiserver etcd; do alive $n && any=1; done
    [[ -n "$any" ]] || { log "not up"; wipe; return; }
  fi
  local bin; bin="$("$repo/hack/k8s/build.sh" kubectl kube-proxy)"
  local K=("$bin/kubectl" --kubeconfig="$R/admin.kubeconfig" --request-timeout=10s)
  # Pods first, while kubelet runs, so that it tears sandboxes and CNI down. Workload
  # controllers go first, while the controller manager can still remove their pods'
  # finalizers; then it stops, so that nothing recreates the pods deleted last.
  if alive kubelet && alive kube-apiserver; then
    "${K[@]}" delete deployments,daemonsets,cronjobs,jobs --all -A --wait=true --timeout=60s >/dev/null 2>&1 ||
      log "some workloads were not deleted in 60s"
    stop kube-controller-manager
    stop kube-scheduler
    "${K[@]}" delete pods --all -A --grace-period=2 --wait=true --timeout=60s >/dev/null 2>&1 || log "some pods did not stop in 60s"
  fi
  stop kube-controller-manager
  stop kube-scheduler
  stop coredns
  stop kube-proxy
  # Its iptables part is what matters here; its ipvs and nftables parts fail without
  # ipset and nft, which is fine: the KUBE-* chains are removed below and verified.
  "$bin/kube-proxy" --cleanup >"$R/logs/kube-proxy-cleanup.log" 2>&1 || true
  stop kubelet
  if alive containerd; then # whatever sandboxes remain: stop containers, CNI DEL, unmount
    local c
    for c in $(ctr -a "$CTR_SOCK" -n k8s.io tasks ls -q 2>/dev/null); do ctr -a "$CTR_SOCK" -n k8s.io tasks kill -s KILL "$c" 2>/dev/null || true; done
    sleep 1
    for c in $(ctr -a "$CTR_SOCK" -n k8s.io tasks ls -q 2>/dev/null); do ctr -a "$CTR_SOCK" -n k8s.io tasks delete -f "$c" >/dev/null 2>&1 || true; done
    for c in $(ctr -a "$CTR_SOCK" -n k8s.io containers ls -q 2>/dev/null); do ctr -a "$CTR_SOCK" -n k8s.io containers delete "$c" >/dev/null 2>&1 || true; done
  fi
  stop kube-apiserver
  stop etcd
  stop containerd
  local p
  for p in $(pgrep -f "containerd-shim-runc-v2 .*-address $CTR_SOCK" 2>/dev/null); do log "killing leftover shim $p"; kill -KILL "$p" 2>/dev/null || true; done
  # Mounts under the state dir, deepest first.
  # (Failures here are not fatal: verify reports what is left.)
  awk -v r="$R" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r | while read -r m; do
    if umount -l "$m"; then log "unmounted $m"; fi
  done
  # Network links the bridge plugin made (the bridge; its veths go with their netns).
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE" && log "deleted bridge $BRIDGE"; fi
  local l
  for l in $(comm -13 "$R/host/links" <(links) 2>/dev/null | grep '^veth' || true); do ip link del "$l" 2>/dev/null && log "deleted $l"; done
  # cgroups kubelet made (cgroupfs driver), leaf first.
  local cg
  for cg in $(comm -13 "$R/host/cgroups" <(kubepods) 2>/dev/null); do find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null || true; done
  # Sysctls back to their recorded values.
  if [[ -f "$R/host/sysctl" ]]; then
    local k v
    while read -r k _ v; do
      [[ "$(sysctl -n "$k" 2>/dev/null)" == "$v" ]] || { sysctl -qw "$k=$v" && log "restored $k = $v"; }
    done <"$R/host/sysctl"
  fi
  # iptables chains kubelet and kube-proxy made (KUBE-*), with the rules that jump to them.
  local ipt t ch
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null || continue
    for t in mangle nat filter; do
      for ch in $("$ipt" -t $t -S 2>/dev/null | awk '/^-N (KUBE-|CNI-)/{print $2}'); do
        grep -q -- "^$ipt :$ch " "$R/host/iptables" 2>/dev/null && continue # there before up
        { "$ipt" -t $t -S 2>/dev/null | grep -E -- "-j $ch( |$)" || true; } | sed 's/^-A/-D/' | while read -r rule; do
          eval "$ipt -t $t $rule" || true
        done
        "$ipt" -t $t -F "$ch" 2>/dev/null || true
        "$ipt" -t $t -X "$ch" 2>/dev/null && log "removed $ipt -t $t chain $ch"
      done
    done
  done
  # iptables-nft leaves the tables it made (ip nat, ip6 filter, ...) behind, empty.
  local fam tbl
  while read -r _ fam tbl; do
    grep -qx "table $fam $tbl" "$R/host/nftables" 2>/dev/null && continue
    local listing; listing="$(nft list table "$fam" "$tbl" 2>/dev/null || true)"
    if grep -vqE '^[[:space:]]*(table .*\{|chain .*\{|type .*policy accept;|\}|)$' <<<"$listing"; then
      log "nftables table $fam $tbl still has rules; left alone"
    else
      nft delete table "$fam" "$tbl" && log "removed empty nftables table $fam $tbl"
    fi
  done < <(nft_tables)
  # cgroup v2 controllers enabled at the root since up.
  local ctl
  for ctl in $(comm -13 <(tr ' ' '\n' <"$R/host/subtree_control" 2>/dev/null | sort) <(subtree_control | tr ' ' '\n' | sort) | grep . || true); do
    if echo "-$ctl" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then log "disabled cgroup controller $ctl at the root"; fi
  done
  if [[ -L "$CADVISOR_SOCK" && "$(readlink "$CADVISOR_SOCK")" == "$CTR_SOCK" ]]; then rm -f "$CADVISOR_SOCK"; fi
  # Fixed paths that were not there before up.
  for p in "${FIXED_PATHS[@]}"; do
    if [[ -e "$p" ]] && ! grep -qx -- "$p" "$R/host/paths" 2>/dev/null; then umount -R "$p" 2>/dev/null || true; rm -rf "$p" && log "removed $p"; fi
  done
  verify
  wipe
}

# cadvisor_socket points containerd's default socket at this cluster's: kubelet
# (since 1.35) no longer takes --containerd, and its embedded cAdvisor names
# containers (container, pod, namespace labels on /metrics/cadvisor, which broker CPU
# reads) by asking containerd at /run/containerd/containerd.sock. A socket of another
# containerd there is left alone, with a warning. /run/containerd is a fixed path:
# down removes it when up made it, and the link in any case.
CADVISOR_SOCK=/run/containerd/containerd.sock
cadvisor_socket() {
  [[ -L "$CADVISOR_SOCK" && "$(readlink "$CADVISOR_SOCK")" == "$CTR_SOCK" ]] && return
  if [[ -e "$CADVISOR_SOCK" || -L "$CADVISOR_SOCK" ]]; then
    log "WARNING: $CADVISOR_SOCK is another containerd's: kubelet's cAdvisor will not name this cluster's containers (no broker CPU)"
    return
  fi
  mkdir -p "$(dirname "$CADVISOR_SOCK")" && ln -s "$CTR_SOCK" "$CADVISOR_SOCK"
}

# verify compares the machine with the record taken at up and fails listing differences.
verify() {
  [[ -d "$R/host" ]] || return 0
  local bad=0 what
  check() { # NAME CMD...: CMD's output now against the record NAME
    local name=$1; shift
    [[ -f "$R/host/$name" ]] || return 0 # a record from an older version of this script
    "$@" >"$R/logs/now-$name"
    if ! diff -u "$R/host/$name" "$R/logs/now-$name" >"$R/logs/verify-$name.diff"; then
      log "the machine's $name differ from before up:"; sed -n '3,40p' "$R/logs/verify-$name.diff" >&2; bad=1
    fi
  }
  # Only keys the record has: a key that appeared meanwhile (a module loaded) is no change of ours.
  check sysctl sysctl_dump $(awk '{print $1}' "$R/host/sysctl")
  check iptables iptables_dump
  check nftables nft_tables
  check links links
  check mounts mounts
  check cgroups kubepods
  check subtree_control subtree_control
  for what in "${FIXED_PATHS[@]}"; do [[ -e "$what" ]] && echo "$what"; done >"$R/logs/paths.now" || true
  diff -q "$R/host/paths" "$R/logs/paths.now" >/dev/null || { log "paths outside the state dir remain: $(comm -13 "$R/host/paths" "$R/logs/paths.now" | tr '\n' ' ')"; bad=1; }
  if ((bad)); then die "the machine was not fully restored; the record is kept in $R/host"; fi
  rm -rf "$R/host"
  log "down: sysctls, iptables, network links, mounts and cgroups are as before up"
}

wipe() {
  [[ "${WIPE:-0}" == 1 ]] || return 0
  rm -rf "$R"
  log "state wiped ($R)"
}

status() {
  local n rc=0
  for n in etcd kube-apiserver kube-controller-manager kube-scheduler coredns containerd kubelet kube-proxy; do
    if alive $n; then echo "$n running (pid $(pidof_ $n))"; else echo "$n stopped"; rc=3; fi
  done
  [[ $rc == 0 ]] && echo "KUBECONFIG=$R/kubeconfig"
  return $rc
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  load) shift; load "$@" ;;
  node-ip) echo "$NODE_IP" ;;
  pause-image) echo "$PAUSE_REF" ;;
  *) echo "usage: $0 up|down|status|load TAR...|node-ip|pause-image" >&2; exit 2 ;;
esac
