# syntax=docker/dockerfile:1
# The operator (manager) and worker images, for users with Docker:
#
#   docker build --target manager -t ghcr.io/serdebench/manager:v0.1.0 .
#   docker build --target worker  -t ghcr.io/serdebench/worker:v0.1.0 .
#
# The same images as the Docker-free build (hack/image/build.sh): one static binary
# on distroless/static, user 65532, the same entrypoints and OCI labels. Pin the base
# images by digest in your release pipeline (e.g. with Renovate).
ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
# go.mod replaces zenhack.net/go/util with this directory (third_party/zenhack-util/README.md).
COPY third_party/ third_party/
RUN go mod download
COPY . .
ARG VERSION=0.1.0
# The worker links librdkafka statically against musl (hack/image/build.sh).
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends musl-tools=1.2.3-1
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath \
      -ldflags="-s -w -X github.com/serdebench/serdebench/internal/version.Version=v${VERSION}" \
      -o /out/manager ./cmd/manager && \
    CGO_ENABLED=1 CC=musl-gcc GOOS=linux go build -tags musl -trimpath \
      -ldflags="-s -w -X github.com/serdebench/serdebench/internal/version.Version=v${VERSION} -linkmode external -extldflags -static" \
      -o /out/worker ./cmd/worker

FROM gcr.io/distroless/static-debian12:nonroot AS base
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.source="https://github.com/serdebench/serdebench" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
USER 65532:65532

FROM base AS manager
LABEL org.opencontainers.image.title="serdebench-manager" \
      org.opencontainers.image.description="serdebench operator: runs SerializationExperiments on Kafka"
COPY --from=build /out/manager /manager
ENTRYPOINT ["/manager"]

FROM base AS worker
LABEL org.opencontainers.image.title="serdebench-worker" \
      org.opencontainers.image.description="serdebench worker: produces or consumes one trial's records"
COPY --from=build /out/worker /worker
ENTRYPOINT ["/worker"]
