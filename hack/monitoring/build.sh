#!/usr/bin/env bash
# The local cluster's monitoring: the kube-prometheus-stack chart users install, and
# the images it names, built from their Go modules at the chart's versions (no image
# can be pulled here).
#
#   hack/monitoring/build.sh chart    the chart, unpacked; prints its directory
#   hack/monitoring/build.sh [images] prometheus-operator, its config reloader,
#                                     Prometheus and Alertmanager as OCI image tars;
#                                     prints their directory, whose images.env holds
#                                     the references (by digest) under the chart's
#                                     own names and tags
#
# The chart comes from ../shared/vendor after a SHA-256 check, else from its release
# upstream (hack/lib/vendor.sh). Its version is the one pinned fact here: the images'
# versions are read from its render. Needs SERDEBENCH_HELM (make sets it).
# Cached by chart version under ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/monitoring-kps<version>/.
set -euo pipefail
shopt -s inherit_errexit

KPS_VERSION=88.5.3
KPS_SHA256=96699dedc68014c2d4410741a28ed832c1211bd4c1d6ce6991781dabd362aeaf
# The unpacked tree of the vendored file: an upstream download must unpack to it.
KPS_TREE=a19e8263a28b86c29a5d3e1ce510153950b1b6d4c0bca40b9f3e35525d733e89
KPS_URL="https://github.com/prometheus-community/helm-charts/releases/download/kube-prometheus-stack-$KPS_VERSION/kube-prometheus-stack-$KPS_VERSION.tgz"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Keyed by this script too: a changed build recipe rebuilds.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/monitoring-kps$KPS_VERSION-$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)"
log() { printf 'monitoring-build: %s\n' "$*" >&2; }
# shellcheck source=../lib/vendor.sh
source "$repo/hack/lib/vendor.sh"
# shellcheck source=../lib/gomod.sh
source "$repo/hack/lib/gomod.sh"
mkdir -p "$cache/bin" "$cache/src"

chart() {
  local dir="$cache/kube-prometheus-stack"
  if [[ ! -f "$dir/Chart.yaml" ]]; then
    vendor_extract "kube-prometheus-stack-$KPS_VERSION.tgz" "$KPS_SHA256" "$KPS_URL" "$KPS_TREE" "$dir"
  fi
  echo "$dir"
}

# chart_image RENDER NAME: the image reference the chart's RENDER names for NAME
# (e.g. prometheus-operator/prometheus-operator), tag included.
chart_image() {
  local ref
  ref="$(grep -o "quay.io/$2:[^\"' ]*" <<<"$1" | head -1)"
  [[ -n "$ref" ]] || { log "the chart's render names no quay.io/$2 image"; exit 1; }
  echo "$ref"
}

# module_copy MODULE VERSION DIR: a writable copy of a module's source (its own go.mod,
# replace directives and go.sum apply, as in its repository).
module_copy() {
  [[ -f "$3/.ready" ]] && return
  local dir
  dir="$(gomod_dir "$1@$2")"
  [[ -n "$dir" ]] || { log "cannot download $1@$2"; exit 1; }
  rm -rf "$3" && cp -r "$dir" "$3" && chmod -R u+w "$3"
  touch "$3/.ready"
}

build() { # SRC PACKAGE OUT LDFLAGS [TAGS]
  [[ -x "$cache/bin/$3" ]] && return
  local start=$SECONDS
  log "building $3 (a few minutes cold)"
  (cd "$1" && CGO_ENABLED=0 GOWORK=off GOFLAGS=-mod=mod go build -trimpath -tags "${5:-}" -ldflags "-s -w $4" -o "$cache/bin/$3.tmp" "$2")
  mv "$cache/bin/$3.tmp" "$cache/bin/$3"
  log "built $3 in $((SECONDS - start))s"
}

version_ldflags() { # VERSION
  echo "-X github.com/prometheus/common/version.Version=$1 -X github.com/prometheus/common/version.Branch=serdebench-local"
}

images() {
  local dir render po_ref reloader_ref prom_ref am_ref po_version prom_version am_version
  dir="$(chart)"
  : "${SERDEBENCH_HELM:?set SERDEBENCH_HELM (make sets it): the images are read from the chart render}"
  # Rendered for the local cluster's Kubernetes version (the chart checks it).
  local kube
  kube="$(. "$repo/hack/versions.env" && echo "$K8S_CURRENT")"
  render="$("$SERDEBENCH_HELM" template kube-prometheus-stack "$dir" --namespace monitoring --kube-version "${kube#v}")"
  po_ref="$(chart_image "$render" prometheus-operator/prometheus-operator)"
  reloader_ref="$(chart_image "$render" prometheus-operator/prometheus-config-reloader)"
  prom_ref="$(chart_image "$render" prometheus/prometheus)"
  am_ref="$(chart_image "$render" prometheus/alertmanager)"
  po_version="${po_ref##*:}" am_version="${am_ref##*:}"
  prom_version="${prom_ref##*:v}" && prom_version="${prom_version%%-*}" # v3.14.0-distroless -> 3.14.0
  [[ "${reloader_ref##*:}" == "$po_version" ]] || { log "the chart's config reloader ($reloader_ref) is not prometheus-operator's version $po_version"; exit 1; }

  local po_src="$cache/src/prometheus-operator"
  module_copy github.com/prometheus-operator/prometheus-operator "$po_version" "$po_src"
  # Its API and client are nested modules, replaced by local paths in its repository
  # but absent from the root module's zip: use their published versions instead.
  for m in pkg/apis/monitoring pkg/client; do
    (cd "$po_src" && go mod edit -replace "github.com/prometheus-operator/prometheus-operator/$m=github.com/prometheus-operator/prometheus-operator/$m@$po_version")
  done
  build "$po_src" ./cmd/operator operator "$(version_ldflags "${po_version#v}")"
  build "$po_src" ./cmd/prometheus-config-reloader prometheus-config-reloader "$(version_ldflags "${po_version#v}")"

  # Prometheus 3.x is published as the Go module's v0.3xx.y (3.14.0 -> v0.314.0).
  local prom_src="$cache/src/prometheus"
  module_copy github.com/prometheus/prometheus "v0.$(awk -F. '{printf "%d%02d.%d", $1, $2, $3}' <<<"$prom_version")" "$prom_src"
  # Only Kubernetes service discovery (what the chart's monitors use), by Prometheus'
  # own build tags, not the cloud SDKs of the full list; the web UI's assets are not
  # in the module either (the HTTP API is all serdebench and its tests use).
  build "$prom_src" ./cmd/prometheus prometheus "$(version_ldflags "$prom_version")" remove_all_sd,enable_kubernetes_sd

  # Alertmanager embeds its web UI from ui/app/dist, a JavaScript build the module does
  # not carry: a one-page placeholder stands in (its API, which Prometheus and the
  # tests use, is unchanged).
  local am_src="$cache/src/alertmanager"
  module_copy github.com/prometheus/alertmanager "$am_version" "$am_src"
  mkdir -p "$am_src/ui/app/dist"
  [[ -n "$(ls -A "$am_src/ui/app/dist")" ]] ||
    echo '<!doctype html><title>Alertmanager</title><p>Built without its web UI (serdebench local cluster): use the API under /api/v2.' >"$am_src/ui/app/dist/index.html"
  build "$am_src" ./cmd/alertmanager alertmanager "$(version_ldflags "${am_version#v}")"

  local out="$cache/images"
  mkdir -p "$out"
  if [[ ! -f "$out/images.env" ]]; then
    : >"$out/images.env.tmp"
    img() { # BINARY REF VERSION DESCRIPTION SOURCE VAR
      local ref
      ref="$(cd "$repo" && go run ./hack/image -binary "$cache/bin/$1" -dir bin -ref "$2" -out "$out/$1.tar" \
        -version "$3" -description "$4 (built from its Go module for serdebench's local cluster)" -source "$5")"
      echo "$6=$ref" >>"$out/images.env.tmp"
    }
    img operator "$po_ref" "$po_version" prometheus-operator https://github.com/prometheus-operator/prometheus-operator PROMETHEUS_OPERATOR_IMAGE
    img prometheus-config-reloader "$reloader_ref" "$po_version" prometheus-config-reloader https://github.com/prometheus-operator/prometheus-operator CONFIG_RELOADER_IMAGE
    img prometheus "$prom_ref" "$prom_version" Prometheus https://github.com/prometheus/prometheus PROMETHEUS_IMAGE
    img alertmanager "$am_ref" "$am_version" Alertmanager https://github.com/prometheus/alertmanager ALERTMANAGER_IMAGE
    mv "$out/images.env.tmp" "$out/images.env"
  fi
  echo "$out"
}

case "${1:-images}" in
  chart) chart ;;
  images) images ;;
  *) echo "usage: $0 [chart|images]" >&2; exit 2 ;;
esac
