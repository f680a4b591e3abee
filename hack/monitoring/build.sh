#!/usr/bin/env bash
# Builds the monitoring stack for the local cluster from Go modules (no image can be
# pulled here): prometheus-operator, its config reloader, and a Prometheus server with
# Kubernetes service discovery, each as an OCI image tar. Prints the tars' directory;
# it holds images.env with the three image references (by digest).
#
# Cached by version under ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/monitoring-<versions>/.
set -euo pipefail

PROMETHEUS_OPERATOR_VERSION="${PROMETHEUS_OPERATOR_VERSION:-v0.85.0}"
# Prometheus 3.5.0 (the Go module's v0.305.0): the newest release prometheus-operator
# v0.85.0 lists as compatible, and its default.
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-3.5.0}"
PROMETHEUS_MODULE_VERSION="v0.$(echo "$PROMETHEUS_VERSION" | awk -F. '{printf "%d%02d.%d", $1, $2, $3}')"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/monitoring-po$PROMETHEUS_OPERATOR_VERSION-prom$PROMETHEUS_VERSION"
log() { printf 'monitoring-build: %s\n' "$*" >&2; }
mkdir -p "$cache/bin" "$cache/src"

# module_copy MODULE VERSION DIR: a writable copy of a module's source (its own go.mod,
# replace directives and go.sum apply, as in its repository).
module_copy() {
  [[ -f "$3/.ready" ]] && return
  local dir
  dir="$(GOFLAGS=-mod=mod go mod download -json "$1@$2" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')"
  [[ -n "$dir" ]] || { log "cannot download $1@$2"; exit 1; }
  rm -rf "$3" && cp -r "$dir" "$3" && chmod -R u+w "$3"
  touch "$3/.ready"
}

build() { # SRC PACKAGE OUT LDFLAGS
  [[ -x "$cache/bin/$3" ]] && return
  local start=$SECONDS
  log "building $3 (a few minutes cold)"
  (cd "$1" && CGO_ENABLED=0 GOWORK=off GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w $4" -o "$cache/bin/$3.tmp" "$2")
  mv "$cache/bin/$3.tmp" "$cache/bin/$3"
  log "built $3 in $((SECONDS - start))s"
}

po_src="$cache/src/prometheus-operator"
module_copy github.com/prometheus-operator/prometheus-operator "$PROMETHEUS_OPERATOR_VERSION" "$po_src"
# Its API and client are nested modules, replaced by local paths in its repository but
# absent from the root module's zip: use their published versions instead.
for m in pkg/apis/monitoring pkg/client; do
  (cd "$po_src" && go mod edit -replace "github.com/prometheus-operator/prometheus-operator/$m=github.com/prometheus-operator/prometheus-operator/$m@$PROMETHEUS_OPERATOR_VERSION")
done
pv="-X github.com/prometheus/common/version.Version=${PROMETHEUS_OPERATOR_VERSION#v} -X github.com/prometheus/common/version.Branch=serdebench-local"
build "$po_src" ./cmd/operator operator "$pv"
build "$po_src" ./cmd/prometheus-config-reloader prometheus-config-reloader "$pv"

prom_src="$cache/src/prometheus"
module_copy github.com/prometheus/prometheus "$PROMETHEUS_MODULE_VERSION" "$prom_src"
# Only Kubernetes service discovery (what PodMonitors use), not the cloud SDKs the
# full plugin list compiles in; the web UI's assets are not in the module either (the
# HTTP API is all serdebench uses).
cat >"$prom_src/plugins/plugins.go" <<'GO'
// Package plugins registers the service discoveries this build includes: Kubernetes
// only (serdebench's local cluster build).
package plugins

import (
	_ "github.com/prometheus/prometheus/discovery/kubernetes" // Register kubernetes plugin.
)
GO
build "$prom_src" ./cmd/prometheus prometheus "-X github.com/prometheus/common/version.Version=$PROMETHEUS_VERSION -X github.com/prometheus/common/version.Branch=serdebench-local"

images="$cache/images"
mkdir -p "$images"
if [[ ! -f "$images/images.env" ]]; then
  : >"$images/images.env.tmp"
  img() { # NAME REF VERSION DESCRIPTION
    local ref
    ref="$(cd "$repo" && go run ./hack/image -binary "$cache/bin/$1" -dir bin -ref "$2" -out "$images/$1.tar" \
      -version "$3" -description "$4 (built from its Go module for serdebench's local cluster)" \
      -source "https://github.com/prometheus-operator/prometheus-operator")"
    echo "$5=$ref" >>"$images/images.env.tmp"
  }
  img operator "quay.io/prometheus-operator/prometheus-operator:$PROMETHEUS_OPERATOR_VERSION" "$PROMETHEUS_OPERATOR_VERSION" "prometheus-operator" PROMETHEUS_OPERATOR_IMAGE
  img prometheus-config-reloader "quay.io/prometheus-operator/prometheus-config-reloader:$PROMETHEUS_OPERATOR_VERSION" "$PROMETHEUS_OPERATOR_VERSION" "prometheus-config-reloader" CONFIG_RELOADER_IMAGE
  img prometheus "quay.io/prometheus/prometheus:v$PROMETHEUS_VERSION" "$PROMETHEUS_VERSION" "Prometheus" PROMETHEUS_IMAGE
  mv "$images/images.env.tmp" "$images/images.env"
fi
echo "$images"
