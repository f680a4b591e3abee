#!/usr/bin/env bash
# Builds the operator (manager) and worker images without Docker, as OCI image-layout
# tars in <repo>/.state/images, and writes <repo>/.state/images/images.env:
#
#   MANAGER_IMAGE=ghcr.io/serdebench/manager:v0.1.0-dev.<commit>@sha256:...
#   WORKER_IMAGE=ghcr.io/serdebench/worker:v0.1.0-dev.<commit>@sha256:...
#   JVM_WORKER_IMAGE=ghcr.io/serdebench/worker-jvm:v0.1.0-dev.<commit>@sha256:...
#
# (the JVM worker's image is hack/jvm/build.sh's, copied here as worker-jvm.tar).
#
# Deployments use these references by digest, never a mutable tag. The Dockerfile
# builds the same images (same entrypoint, user and labels) for users with Docker.
# Environment: IMAGE_REPO (default ghcr.io/serdebench), IMAGE_TAG (default
# v<VERSION>-dev.<commit>, v<VERSION> on a tagged release commit).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
out="${IMAGES_DIR:-$repo/.state/images}"
version="$(cat VERSION)"
rev="$(git rev-parse HEAD)"
if [[ -z "${IMAGE_TAG:-}" ]]; then
  if git describe --exact-match --tags --match "v$version" >/dev/null 2>&1 && [[ -z "$(git status --porcelain)" ]]; then
    IMAGE_TAG="v$version"
  else
    IMAGE_TAG="v$version-dev.${rev:0:12}"
    [[ -z "$(git status --porcelain --untracked-files=no)" ]] || IMAGE_TAG+=".dirty"
  fi
fi
created="$(git log -1 --format=%ct)"
arch="${GOARCH:-$(go env GOARCH)}"
mkdir -p "$out/bin"
: >"$out/images.env.tmp"
# The worker links librdkafka (client: librdkafka) through cgo: statically, against
# musl, with the musl build confluent-kafka-go bundles, so its image stays one
# static binary. Debian's musl-gcc, pinned here, is its only build tool.
MUSL_TOOLS_VERSION=1.2.3-1
command -v musl-gcc >/dev/null || "$repo/hack/apt-install.sh" "musl-tools=$MUSL_TOOLS_VERSION" >/dev/null
[[ "$arch" == "$(go env GOHOSTARCH)" ]] || {
  echo "build.sh: the worker links librdkafka with this machine's musl-gcc, which builds for $(go env GOHOSTARCH) only: build $arch images on a $arch machine" >&2
  exit 1
}
ldflags="-s -w -X github.com/serdebench/serdebench/internal/version.Version=$IMAGE_TAG -X github.com/serdebench/serdebench/internal/version.Commit=$rev"
for c in manager worker; do
  if [[ $c == worker ]]; then
    CGO_ENABLED=1 CC=musl-gcc GOOS=linux GOARCH="$arch" go build -tags musl -trimpath \
      -ldflags="$ldflags -linkmode external -extldflags -static" -o "$out/bin/$c" "./cmd/$c"
  else
    CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -ldflags="$ldflags" -o "$out/bin/$c" "./cmd/$c"
  fi
  case $c in
    manager) desc="serdebench operator: runs SerializationExperiments on Kafka" ;;
    worker) desc="serdebench worker: produces or consumes one trial's records" ;;
  esac
  ref="$(go run ./hack/image -binary "$out/bin/$c" -ref "${IMAGE_REPO:-ghcr.io/serdebench}/$c:$IMAGE_TAG" \
    -out "$out/$c.tar" -arch "$arch" -version "$version" -revision "$rev" -created "$created" -description "$desc")"
  echo "${c^^}_IMAGE=$ref" >>"$out/images.env.tmp"
  printf 'image: %s\n' "$ref" >&2
done
ref="$(IMAGE_REF="${IMAGE_REPO:-ghcr.io/serdebench}/worker-jvm:$IMAGE_TAG" "$repo/hack/jvm/build.sh" image)"
cp "$(IMAGE_REF="${IMAGE_REPO:-ghcr.io/serdebench}/worker-jvm:$IMAGE_TAG" "$repo/hack/jvm/build.sh" image tar)" "$out/worker-jvm.tar"
echo "JVM_WORKER_IMAGE=$ref" >>"$out/images.env.tmp"
printf 'image: %s\n' "$ref" >&2
mv "$out/images.env.tmp" "$out/images.env"
