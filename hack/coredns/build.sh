#!/usr/bin/env bash
# Builds CoreDNS (the release hack/coredns/go.mod pins, with the plugins main.go
# imports) as a static binary for the local cluster's DNS, and prints its path.
# Cached by version under ${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/coredns-<version>-<hash>/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(go -C "$here" list -m -f '{{.Version}}' github.com/coredns/coredns)"
[[ -n "$version" ]] || { echo "coredns: no coredns version in $here/go.mod" >&2; exit 1; }
out="${XDG_CACHE_HOME:-$HOME/.cache}/serdebench/coredns-$version-$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-12)"
if [[ ! -x "$out/coredns" ]]; then
  mkdir -p "$out"
  echo "coredns: building CoreDNS $version (once)" >&2
  CGO_ENABLED=0 go -C "$here" build -trimpath -ldflags="-s -w" -o "$out/coredns.tmp" .
  mv "$out/coredns.tmp" "$out/coredns"
fi
echo "$out/coredns"
