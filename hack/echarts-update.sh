#!/usr/bin/env bash
# Replaces third_party/echarts/ with another ECharts release from the npm registry,
# after checking the tarball against the registry's integrity (sha512).
# Usage: hack/echarts-update.sh VERSION INTEGRITY
set -euo pipefail
version="${1:?usage: $0 VERSION INTEGRITY}" integrity="${2:?usage: $0 VERSION INTEGRITY}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
curl -fsS --max-time 120 -o "$tmp/echarts.tgz" "https://registry.npmjs.org/echarts/-/echarts-$version.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tmp/echarts.tgz" | base64 -w0)"
[[ "$got" == "$integrity" ]] || { echo "integrity mismatch: got $got" >&2; exit 1; }
tar -xzf "$tmp/echarts.tgz" -C "$tmp"
cp "$tmp/package/dist/echarts.common.min.js" "$tmp/package/LICENSE" "$tmp/package/NOTICE" "$repo/third_party/echarts/"
echo "sha256 $(sha256sum "$repo/third_party/echarts/echarts.common.min.js" | cut -d' ' -f1): set Version and SHA256 in third_party/echarts/echarts.go"
