#!/usr/bin/env bash
# Builds Kubernetes control-plane binaries and etcd from Go source (no prebuilt
# binaries can be downloaded here) and prints the directory holding them.
#
#   hack/k8s/build.sh [kube-apiserver etcd kubectl kube-controller-manager kube-scheduler kubelet kube-proxy]
#
# Default: kube-apiserver, etcd and kubectl (what envtest and its tests need). Output is cached by version
# under ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/k8s-<version>/bin; a binary that
# exists is not rebuilt.
set -euo pipefail

# shellcheck source=../versions.env
. "$(dirname "${BASH_SOURCE[0]}")/../versions.env"
K8S_VERSION="${K8S_VERSION:-$K8S_CURRENT}"
ETCD_VERSION="${ETCD_VERSION:-$ETCD_CURRENT}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench"
out="$cache/k8s-$K8S_VERSION/bin"
src="$cache/k8s-$K8S_VERSION/src"
components=("$@")
((${#components[@]})) || components=(kube-apiserver etcd kubectl)

log() { printf 'k8s-build: %s\n' "$*" >&2; }
mkdir -p "$out"

kube_module() {
  [[ -f "$src/kube/.ready" ]] && return
  log "preparing a build module for k8s.io/kubernetes $K8S_VERSION"
  rm -rf "$src/kube" && mkdir -p "$src/kube"
  local gomod
  gomod="$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  local staging="v0.${K8S_VERSION#v1.}"
  {
    echo "module serdebench.local/k8sbuild"
    echo
    grep -E '^go [0-9.]+' "$gomod"
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    echo "replace ("
    # Every staging repo the kubernetes module replaces with a local path.
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod" | while read -r m; do
      echo "	$m => $m $staging"
    done
    echo ")"
  } >"$src/kube/go.mod"
  cat >"$src/kube/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  (cd "$src/kube" && GOFLAGS=-mod=mod GOWORK=off go mod tidy -e >/dev/null 2>&1 || true
   GOFLAGS=-mod=mod GOWORK=off go mod download >/dev/null)
  touch "$src/kube/.ready"
}

# etcd is cached by its own version, shared by every Kubernetes version's bin.
etcd_dir="$cache/etcd-$ETCD_VERSION"
etcd_module() {
  [[ -f "$etcd_dir/src/.ready" ]] && return
  rm -rf "$etcd_dir/src" && mkdir -p "$etcd_dir/src"
  cat >"$etcd_dir/src/go.mod" <<GOMOD
module serdebench.local/etcdbuild

go 1.23

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
GOMOD
  cat >"$etcd_dir/src/main.go" <<'GO'
// Command etcd is etcd's own main, built from the module proxy.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  (cd "$etcd_dir/src" && GOFLAGS=-mod=mod GOWORK=off go mod tidy >/dev/null)
  touch "$etcd_dir/src/.ready"
}

minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"

# etcd_link builds etcd ETCD_VERSION once (cached by its own version) and links
# each Kubernetes version's bin to it: a new ETCD_VERSION reaches every bin.
etcd_link() {
  if [[ ! -x "$etcd_dir/etcd" ]]; then
    etcd_module
    log "building etcd $ETCD_VERSION"
    local tmp; tmp="$(mktemp -d "$etcd_dir/build.XXXXXX")"
    (cd "$etcd_dir/src" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOWORK=off go build -trimpath -ldflags "-s -w" -o "$tmp/etcd" .)
    mv "$tmp/etcd" "$etcd_dir/etcd" && rmdir "$tmp"
  fi
  [[ "$(readlink "$out/etcd" 2>/dev/null)" == "$etcd_dir/etcd" ]] || ln -sfn "$etcd_dir/etcd" "$out/etcd"
}

for c in "${components[@]}"; do
  if [[ "$c" == etcd ]]; then etcd_link; continue; fi
  if [[ -x "$out/$c" ]]; then continue; fi
  start=$SECONDS
  case "$c" in
    kube-apiserver | kube-controller-manager | kube-scheduler | kubelet | kube-proxy | kubectl)
      kube_module
      log "building $c $K8S_VERSION (several minutes cold)"
      (cd "$src/kube" && CGO_ENABLED=0 GOFLAGS=-mod=mod GOWORK=off go build -trimpath -ldflags "$ldflags" -o "$out/$c.tmp" "k8s.io/kubernetes/cmd/$c")
      ;;
    *) log "unknown component $c"; exit 2 ;;
  esac
  mv "$out/$c.tmp" "$out/$c"
  log "built $c in $((SECONDS - start))s"
done
echo "$out"
