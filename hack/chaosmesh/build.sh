#!/usr/bin/env bash
# Builds Chaos Mesh's chaos-controller-manager (the version hack/chaosmesh/go.mod
# and go.sum pin) as a static binary in an image without Docker, and prints the image tar's
# path and its reference (name@digest) on one line. Cached by version under
# ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/chaos-mesh-<version>-<go.mod and go.sum's hash>/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version="$(go -C "$here" list -m -f '{{.Version}}' github.com/chaos-mesh/chaos-mesh)"
[[ -n "$version" ]] || { echo "chaosmesh: no chaos-mesh version in $here/go.mod" >&2; exit 1; }
# Keyed by the module's requirements too (the api module's version among them).
out="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/chaos-mesh-$version-$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)"
ref="ghcr.io/chaos-mesh/chaos-mesh:$version"
log() { printf 'chaosmesh: %s\n' "$*" >&2; }
if [[ ! -f "$out/ref" ]]; then
  mkdir -p "$out"
  arch="$(go env GOARCH)"
  log "building chaos-controller-manager $version (a few minutes, once)"
  CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go -C "$here" build -trimpath -ldflags="-s -w" -o "$out/chaos-controller-manager" \
    github.com/chaos-mesh/chaos-mesh/cmd/chaos-controller-manager
  go -C "$repo" run ./hack/image -binary "$out/chaos-controller-manager" -dir usr/local/bin -ref "$ref" -out "$out/chaos-mesh.tar" -arch "$arch" \
    -version "${version#v}" -source https://github.com/chaos-mesh/chaos-mesh -title chaos-controller-manager \
    -description "Chaos Mesh's controller-manager $version, built from its Go module for serdebench's local cluster" >"$out/ref.tmp"
  mv "$out/ref.tmp" "$out/ref"
fi
echo "$out/chaos-mesh.tar $(cat "$out/ref")"
