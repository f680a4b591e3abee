# serdebench — see README.md. Every target installs what it needs, idempotently, with
# pinned versions; downloads and built tools are cached by version under $(CACHE).

SHELL := /usr/bin/env bash -o pipefail
.DEFAULT_GOAL := build

CACHE          ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/serdebench
TOOLS          := $(CACHE)/tools
# The tested versions of Kafka, Kubernetes and etcd: one place, which the scripts read too.
include hack/versions.env
KAFKA_VERSION  ?= $(KAFKA_CURRENT)
# The JVM worker's kafka-clients (hack/jvm/build.sh): the current line, whatever broker runs.
KAFKA_CLIENT_VERSION ?= $(KAFKA_CURRENT)
export KAFKA_CLIENT_VERSION
KAFKA_PORT     ?= 9092
export KAFKA_VERSION KAFKA_PORT
export SERDEBENCH_KAFKA ?= 127.0.0.1:$(KAFKA_PORT)
export SERDEBENCH_KAFKA_SASL ?= 127.0.0.1:$(shell echo $$(($(KAFKA_PORT) + 2)))
export SERDEBENCH_KAFKA_TLS ?= 127.0.0.1:$(shell echo $$(($(KAFKA_PORT) + 3)))
export SERDEBENCH_KAFKA_TLS_CA ?= $(CURDIR)/.state/kafka-$(KAFKA_PORT)/tls/ca.crt
export SERDEBENCH_KAFKA_VERSION := $(KAFKA_VERSION)
# The apiserver envtest must run (its suites fail on another): the current line but
# under test-envtest-oldest.
export SERDEBENCH_K8S_VERSION ?= $(K8S_CURRENT)
REGISTRY_PORT  ?= 8081
export REGISTRY_PORT
export SERDEBENCH_SCHEMA_REGISTRY ?= http://127.0.0.1:$(REGISTRY_PORT)/apis/ccompat/v7

PROTOC_VERSION         := 3.21.12-3+deb12u1
THRIFT_VERSION         := 0.17.0-2+b2
FLATC_VERSION          := 2.0.8+dfsg1-2
CAPNP_VERSION          := 0.9.2-2
# The capnpc-go plugin is built from the capnp module go.mod requires: keep them equal.
CAPNP_GO_VERSION       := v3.0.0-alpha.30
PROMETHEUS_VERSION     := 2.42.0+ds-5+deb12u1
CHROMIUM_VERSION       := 156.0.8078.*
OPENSSL_VERSION        := 3.0.19-1~deb12u2
PROTOC_GEN_GO_VERSION  := v1.36.12
VTPROTO_VERSION        := v0.6.0
MSGP_VERSION           := v1.6.5
GOLANGCI_LINT_VERSION  := v2.6.2
CONTROLLER_GEN_VERSION := v0.18.0
HELM_VERSION           := v3.19.0
HELM_DOCS_VERSION      := v1.14.2
PROTOC_GEN_GO          := $(TOOLS)/protoc-gen-go-$(PROTOC_GEN_GO_VERSION)/protoc-gen-go
GOLANGCI_LINT          := $(TOOLS)/golangci-lint-$(GOLANGCI_LINT_VERSION)/golangci-lint
CONTROLLER_GEN         := $(TOOLS)/controller-gen-$(CONTROLLER_GEN_VERSION)/controller-gen
CAPNPC_GO              := $(TOOLS)/capnpc-go-$(CAPNP_GO_VERSION)/capnpc-go
PROTOC_GEN_VTPROTO     := $(TOOLS)/protoc-gen-go-vtproto-$(VTPROTO_VERSION)/protoc-gen-go-vtproto
MSGP                   := $(TOOLS)/msgp-$(MSGP_VERSION)/msgp
HELM                   := $(TOOLS)/helm-$(HELM_VERSION)/helm
HELM_DOCS              := $(TOOLS)/helm-docs-$(HELM_DOCS_VERSION)/helm-docs
export SERDEBENCH_HELM := $(HELM)
CHART                  := charts/serdebench-operator

BIN := bin
VERSION    := $(shell cat VERSION)
IMAGE_REPO ?= ghcr.io/serdebench
GO_PACKAGES := ./...

# The commit `serdebench version` prints, also where Go does not stamp it (-buildvcs=false).
VERSION_LDFLAGS := -X github.com/serdebench/serdebench/internal/version.Commit=$(shell git rev-parse HEAD 2>/dev/null)

.PHONY: build
build: ## Build serdebench, the worker and the operator's manager into bin/.
	go build -ldflags "$(VERSION_LDFLAGS)" -o $(BIN)/serdebench ./cmd/serdebench
	go build -ldflags "$(VERSION_LDFLAGS)" -o $(BIN)/worker ./cmd/worker
	go build -ldflags "$(VERSION_LDFLAGS)" -o $(BIN)/manager ./cmd/manager

# A count, not a duration: Go 1.26's fuzz coordinator can report "context deadline
# exceeded" when a wall-clock -fuzztime ends mid-run (golang/go#75804, fixed in 1.27).
FUZZ_TIME ?= 10000x
# make faults: the experiment, and extra serdebench run flags (e.g. -o json).
EXPERIMENT ?= config/samples/local/iov-network.yaml
RUN_FLAGS  ?=

# Test artifacts (the report's screenshots) are kept here.
export SERDEBENCH_ARTIFACTS ?= $(CURDIR)/.state/artifacts

# The unit stage's longest packages, started first (go test runs two at a time, in
# the order given): internal/cli/runner's real-broker trials run 18–20 min under
# -race, controllers' envtest 12 min; the rest, started behind them, end sooner.
UNIT_FIRST := ./internal/cli/runner,./controllers,./workers/conformance

.PHONY: test-unit
test-unit: test-deps ## The Go suites alone (real Kafka, Prometheus, kube-apiserver/etcd) and a short fuzz run: `make test`'s first stage.
	@# The full log goes to .state/test.log; the screen gets each package's line as go test
	@# prints it, and on a failure what failed and why (CI shows only the output's tail).
	@# The race detector where concurrency lives (hack/racepkgs says where); the other
	@# packages, pure codecs and statistics, without it: it multiplies their time and
	@# finds nothing there. Both sets run; either failing fails the stage.
	mkdir -p .state && : >.state/test.log
	KUBEBUILDER_ASSETS="$$(hack/k8s/build.sh)"; export KUBEBUILDER_ASSETS; \
	race="$$(go run ./hack/racepkgs -race -first $(UNIT_FIRST) $(GO_PACKAGES))" && \
	  norace="$$(go run ./hack/racepkgs -norace -first $(UNIT_FIRST) $(GO_PACKAGES))" || exit 1; \
	r=0; n=0; { [ -z "$$race" ] || go test -race -count=1 -timeout 40m -v $$race || r=1; \
	  [ -z "$$norace" ] || go test -count=1 -timeout 20m -v $$norace || n=1; exit $$(( r || n )); } 2>&1 | \
	  tee .state/test.log | grep --line-buffered -E '^(ok|FAIL|panic:|--- FAIL)|^\?' || { hack/failures.sh .state/test.log; exit 1; }
	go test -run '^$$' -fuzz FuzzAdmitAndPlan -fuzztime $(FUZZ_TIME) ./internal/cli/experiment/

# The suites that check what a Kubernetes version decides: the CRDs' schemas and CEL
# rules (admission), the shipped RBAC (the operator's flows run as its ServiceAccount),
# the chart and kustomize applied server-side.
OLDEST_K8S_TESTS := ^(TestAdmissionTable|TestDefaultsAgree|TestSamplesDryRun|TestScheduleAdmission|TestFaultKindsServedAndAllowed|TestStrimzi|TestSchedule|TestChart|TestKustomize)$$

.PHONY: test-envtest-oldest
test-envtest-oldest: test-deps ## envtest on the oldest Kubernetes minor AKS supports (K8S_OLDEST in hack/versions.env): CRDs, CEL rules, RBAC, chart.
	mkdir -p .state
	KUBEBUILDER_ASSETS="$$(K8S_VERSION=$(K8S_OLDEST) hack/k8s/build.sh)" || exit 1; export KUBEBUILDER_ASSETS; \
	  SERDEBENCH_K8S_VERSION=$(K8S_OLDEST) go test -count=1 -timeout 20m -v -run '$(OLDEST_K8S_TESTS)' ./controllers/ 2>&1 | tee .state/test-oldest.log | \
	  grep --line-buffered -E '^(ok|FAIL|panic:|--- FAIL)|envtest ready' || { hack/failures.sh .state/test-oldest.log; exit 1; }

# The broker-facing suites run again on the previous Kafka line: each client (Go's
# three, Kafka's Java client), transactions, share groups, the consumer group protocols.
PREVIOUS_KAFKA_TESTS := ^(TestClientMatrixAcrossRuntimes|TestFranzGoClient|TestRdkafkaClient|TestTransactionsBrokerKill|TestShareGroupRedeliveries|TestClientSecurity|TestGroupProtocols|TestBrokerRelease)$$
PREVIOUS_KAFKA_PORT  := 9292

.PHONY: test-kafka-previous
test-kafka-previous: test-deps ## The broker suites again on the previous Kafka line (KAFKA_PREVIOUS in hack/versions.env), on a broker of their own (port 9292).
	mkdir -p .state
	export KAFKA_VERSION=$(KAFKA_PREVIOUS) KAFKA_PORT=$(PREVIOUS_KAFKA_PORT); \
	  trap 'hack/kafka/kafka.sh down' EXIT; trap 'exit 130' INT TERM; \
	  hack/kafka/kafka.sh up || exit 1; p=$$KAFKA_PORT; \
	  SERDEBENCH_KAFKA_VERSION=$$KAFKA_VERSION SERDEBENCH_KAFKA=127.0.0.1:$$p SERDEBENCH_KAFKA_SASL=127.0.0.1:$$((p + 2)) \
	  SERDEBENCH_KAFKA_TLS=127.0.0.1:$$((p + 3)) SERDEBENCH_KAFKA_TLS_CA=$(CURDIR)/.state/kafka-$$p/tls/ca.crt \
	  go test -count=1 -timeout 20m -v -run '$(PREVIOUS_KAFKA_TESTS)' ./internal/cli/runner/ ./workers/kafkaconn/ 2>&1 | tee .state/test-kafka-previous.log | \
	  grep --line-buffered -E '^(ok|FAIL|panic:|--- FAIL)' || { hack/failures.sh .state/test-kafka-previous.log; exit 1; }

# The upgrade replay: the nightly sample's experiment on a broker of the previous
# Kafka line (its own, port 9292), then on the current one (kafka-up's), judged by
# compare with the sample's options (cmd/serdebench's TestUpgradeReplay). REPLAY_ENV
# sets its length: short in make test, the sample as written in upgrade-replay.
REPLAY_ENV ?=
define replay
	mkdir -p .state
	export KAFKA_VERSION=$(KAFKA_PREVIOUS) KAFKA_PORT=$(PREVIOUS_KAFKA_PORT); \
	  trap 'hack/kafka/kafka.sh down' EXIT; trap 'exit 130' INT TERM; \
	  hack/kafka/kafka.sh up || exit 1; \
	  SERDEBENCH_KAFKA_PREVIOUS=127.0.0.1:$$KAFKA_PORT SERDEBENCH_KAFKA_PREVIOUS_VERSION=$$KAFKA_VERSION \
	  SERDEBENCH_KAFKA=127.0.0.1:$(KAFKA_PORT) SERDEBENCH_KAFKA_VERSION=$(KAFKA_VERSION) $(REPLAY_ENV) go test -tags replay -count=1 -timeout $(1) -v -run '^TestUpgradeReplay$$' ./cmd/serdebench/ 2>&1 | \
	  tee .state/$(2).log | grep --line-buffered -E '^(ok|FAIL|panic:|--- FAIL)|^    replay_test.go|^\s*\|' || { hack/failures.sh .state/$(2).log; exit 1; }
endef

.PHONY: test-upgrade-replay
test-upgrade-replay: kafka-up ## A short upgrade replay: the nightly sample's experiment, 5 runs on the previous Kafka line then 2 on the current, judged by compare (never EnvironmentShifted).
	$(call replay,10m,test-upgrade-replay)

.PHONY: upgrade-replay
upgrade-replay: REPLAY_ENV = SERDEBENCH_REPLAY_FULL=1 SERDEBENCH_REPLAY_BEFORE=$(REPLAY_BEFORE) SERDEBENCH_REPLAY_AFTER=$(REPLAY_AFTER)
upgrade-replay: kafka-up ## The upgrade replay at full length: the nightly sample as written, REPLAY_BEFORE (5) runs on the previous Kafka line, REPLAY_AFTER (3) on the current; its table in .state/artifacts/upgrade-replay.md (docs/schedules.md).
	$(call replay,300m,upgrade-replay)

REPLAY_BEFORE ?= 5
REPLAY_AFTER  ?= 3

# The nightly replay (cmd/serdebench's TestNightlyReplay): the nightly sample run
# unchanged NIGHTS times on kafka-up's broker, kept in a directory named by the
# sample's experiment template and the broker's release (a later call runs only
# the nights missing), then judged as the schedule judges: false alarms, each
# trial's between-night spread, and the smallest planted drop found within 3
# nights (docs/schedules.md). The sample's nights (about 16 minutes each) are
# kept in the repository, the data behind docs/schedules.md's table: 20 of them
# outlast a sitting, and a new machine starts without .state. NIGHTLY_SHORT=1
# runs 5 s windows instead of the sample's (a quick look, not the figures, kept
# in .state).
NIGHTS        ?= 20
NIGHTLY_SHORT ?=
NIGHTLY_NAME  := kafka-$(KAFKA_VERSION)-$(shell sed -n '/experimentTemplate:/,$$p' config/samples/nightly-schedule.yaml | sha256sum | cut -c1-12)
NIGHTLY_DIR   := $(if $(NIGHTLY_SHORT),$(CURDIR)/.state/nightly-replay/$(NIGHTLY_NAME)-short,$(CURDIR)/cmd/serdebench/testdata/nightly-replay/$(NIGHTLY_NAME))

.PHONY: nightly-replay
nightly-replay: kafka-up ## The nightly sample's measured between-night spread and the smallest drop it finds in 3 nights: NIGHTS (20) unchanged runs, resumable; its table in .state/artifacts/nightly-replay.md.
	SERDEBENCH_KAFKA=127.0.0.1:$(KAFKA_PORT) SERDEBENCH_KAFKA_VERSION=$(KAFKA_VERSION) SERDEBENCH_REPLAY_NIGHTS=$(NIGHTS) SERDEBENCH_REPLAY_DIR=$(NIGHTLY_DIR) \
	  $(if $(NIGHTLY_SHORT),,SERDEBENCH_REPLAY_FULL=1) go test -tags replay -count=1 -timeout 600m -v -run '^TestNightlyReplay$$' ./cmd/serdebench/ 2>&1 | \
	  tee .state/nightly-replay.log | grep --line-buffered -E '^(ok|FAIL|panic:|--- FAIL)|^    replay_test.go|^\s*\|' || { hack/failures.sh .state/nightly-replay.log; exit 1; }

.PHONY: test
test: ## Unit, integration and envtest suites (real Kafka, Prometheus, kube-apiserver/etcd), a short fuzz run, the calibration, then the e2e suite on a real cluster; then each stage's time.
	@mkdir -p .state && rm -f .state/stage-times.tsv
	@hack/stage.sh installs $(MAKE) --no-print-directory test-deps
	@hack/stage.sh unit $(MAKE) --no-print-directory test-unit
	@# The two version stages check different parts (the API server's rules, the broker's
	@# protocol) and mostly wait on them: they run side by side (each keeps its own log).
	@hack/stage.sh k8s-oldest+kafka-previous $(MAKE) --no-print-directory -j2 --output-sync=line test-envtest-oldest test-kafka-previous
	@# Alone: its verdict must not see another stage's load come or go between runs.
	@hack/stage.sh upgrade-replay $(MAKE) --no-print-directory test-upgrade-replay
	@# The cluster is up during the calibration, as it is after `make demo`: anything the
	@# calibration leaves on the host then fails the cluster's own check in `make down`.
	@hack/stage.sh stack sh -c 'hack/stack/stack.sh up >/dev/null'
	@hack/stage.sh calibration $(MAKE) --no-print-directory calibrate
	@hack/stage.sh e2e $(MAKE) --no-print-directory test-e2e
	@hack/suite-times.sh

.PHONY: calibrate
calibrate: ## Latency calibration (root): a broker behind a known injected delay; both clients and Kafka's Java tools must move as docs/measurement.md predicts.
	mkdir -p .state
	go test -tags calibration -count=1 -timeout 20m -v ./e2e/calibration/ 2>&1 | tee .state/calibrate.log || { hack/failures.sh .state/calibrate.log; exit 1; }

.PHONY: faults
faults: ## An experiment with network faults without Kubernetes (root): EXPERIMENT=config/samples/local/iov-network.yaml behind the local rig (docs/faults.md).
	hack/faults.sh -f $(EXPERIMENT) $(RUN_FLAGS)

.PHONY: test-e2e
test-e2e: $(HELM) ## The chart's operator on a real cluster (KUBECONFIG's, else a local one) with real pods, broker and Prometheus; three brokers as pods and Chaos Mesh for the fault tests.
	set -a && source "$$(SERDEBENCH_STACK_FAULTS=1 hack/stack/stack.sh up)" && set +a && \
	  go test -tags e2e -count=1 -timeout 40m -v ./e2e/ 2>&1 | tee .state/e2e.log || { hack/failures.sh .state/e2e.log; exit 1; }

.PHONY: up
up: $(HELM) ## Bring up what e2e and demo use: cluster (or KUBECONFIG's), images, Kafka for pods, prometheus-operator.
	hack/stack/stack.sh up

.PHONY: down
down: ## Stop the local cluster and its broker, and the host Kafka `make test` started, and restore the machine (sysctls, iptables, links, mounts).
	hack/stack/stack.sh down
	hack/kafka/kafka.sh down
	KAFKA_VERSION=$(KAFKA_PREVIOUS) KAFKA_PORT=$(PREVIOUS_KAFKA_PORT) hack/kafka/kafka.sh down
	hack/registry/registry.sh down

.PHONY: worker-jvm
worker-jvm: ## The JVM worker (workers/jvm: Kafka's Java client) with Maven, cached by its sources; its launcher is bin/worker-jvm.
	hack/jvm/build.sh

.PHONY: images
images: ## The operator and worker images as OCI tars, without Docker (.state/images).
	hack/image/build.sh

.PHONY: docker-build
docker-build: ## The same images with Docker, for users who have it.
	docker build --target manager --build-arg VERSION=$(VERSION) --build-arg REVISION=$$(git rev-parse HEAD) -t $(IMAGE_REPO)/manager:v$(VERSION) .
	docker build --target worker --build-arg VERSION=$(VERSION) --build-arg REVISION=$$(git rev-parse HEAD) -t $(IMAGE_REPO)/worker:v$(VERSION) .

.PHONY: test-deps
test-deps: kafka-up registry-up prometheus chromium envtest-assets strimzi $(HELM) ## Everything the tests need, installed, built and started.

.PHONY: strimzi
strimzi: ## Strimzi's Topic Operator built from its release source (cached): the current line and the previous one.
	hack/strimzi/build.sh >/dev/null
	STRIMZI_VERSION=0.51.0 hack/strimzi/build.sh >/dev/null

.PHONY: envtest-assets
envtest-assets: ## kube-apiserver, etcd and kubectl built from source (cached) for K8S_CURRENT and K8S_OLDEST, and third-party CRDs.
	hack/k8s/build.sh >/dev/null
	K8S_VERSION=$(K8S_OLDEST) hack/k8s/build.sh >/dev/null
	hack/crds/fetch.sh >/dev/null

.PHONY: prometheus
prometheus: ## Debian's Prometheus server and promtool (pinned) for the Prometheus query and rule tests.
	hack/apt-install.sh prometheus=$(PROMETHEUS_VERSION)

.PHONY: chromium
chromium: ## Debian's Chromium (pinned), headless, for the HTML report test.
	hack/apt-install.sh 'chromium=$(CHROMIUM_VERSION)'

.PHONY: demo
demo: build $(HELM) ## The thesis batch experiment through the operator on a real cluster; prints the SerializationResult's table.
	hack/demo.sh

.PHONY: demo-local
demo-local: build kafka-up ## The thesis batch experiment without Kubernetes (serdebench run); prints the 12-row table.
	$(BIN)/serdebench run -f config/samples/thesis-batch.yaml --bootstrap $(SERDEBENCH_KAFKA)

.PHONY: bench
bench: build kafka-up registry-up envtest-assets ## Codec micro-benchmarks, producer throughput and fixed-rate latency vs the Java client, the operator at 100 and 1,000 experiments.
	go test -run '^$$' -bench . -benchmem -benchtime 2000x ./workers/codec/ ./workers/compress/
	go test -run '^$$' -bench 'HotPath|PacerLateness' -benchmem ./workers/producer/
	hack/bench/producer-vs-kafka.sh
	hack/bench/latency-vs-java.sh
	KUBEBUILDER_ASSETS="$$(hack/k8s/build.sh)" SERDEBENCH_ARTIFACTS="$(CURDIR)/.state/artifacts" go test -run '^$$' -bench OperatorScale -benchtime 1x -timeout 60m ./controllers/

.PHONY: lint
lint: $(GOLANGCI_LINT) verify-generated ## gofmt, go vet, golangci-lint, and generated files up to date.
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	go vet -tags e2e,calibration,replay $(GO_PACKAGES)
	$(GOLANGCI_LINT) run --build-tags e2e,calibration,replay $(GO_PACKAGES)

GENERATED_TREES := api config/crd config/rbac config/azure workers/payload $(CHART)/files $(CHART)/README.md
tree_hash = find $(GENERATED_TREES) -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum

.PHONY: verify-generated
verify-generated: ## Fail if regenerating changes any generated code, CRD or RBAC file.
	@before="$$($(tree_hash))"; \
	$(MAKE) --no-print-directory generate manifests >/dev/null; \
	after="$$($(tree_hash))"; \
	if [ "$$before" != "$$after" ]; then echo "generated files were stale (now regenerated): run make generate manifests and commit"; exit 1; fi

.PHONY: generate
generate: $(PROTOC_GEN_GO) $(PROTOC_GEN_VTPROTO) $(MSGP) $(CONTROLLER_GEN) $(CAPNPC_GO) protoc schema-compilers ## Regenerate DeepCopy, the business record, and every format's schema and code.
	@# spec.producer, the matrix, their defaults and sweeps, and the trial-count CEL rule
	@# come from one table (api/trial.Table).
	go run ./hack/gensettings api/v1alpha1
	$(CONTROLLER_GEN) object paths=./api/...
	go run ./hack/genbusiness workers/payload
	@# msgpack/msgp: tinylib/msgp's methods on the payload structs, by their msgpack tags; decoding
	@# refuses more than 2^20 list or map entries (codec.maxElements).
	for f in business_gen sike; do $(MSGP) -file workers/payload/$$f.go -o workers/payload/$${f}_msgp.go \
	  -io=false -tests=false -d "tag msgpack" -d newtime -d "limit arrays:1048576 maps:1048576" >/dev/null || exit 1; done
	@# protobuf/vtproto: planetscale/vtprotobuf's fast paths beside the generated messages.
	PATH="$(dir $(PROTOC_GEN_GO)):$(dir $(PROTOC_GEN_VTPROTO)):$$PATH" protoc -I workers/payload/proto \
	  --go_out=workers/payload/pb --go_opt=paths=source_relative \
	  --go-vtproto_out=workers/payload/pb --go-vtproto_opt=paths=source_relative,features=marshal+unmarshal+size \
	  workers/payload/proto/*.proto
	@# Thrift, FlatBuffers and Cap'n Proto schemas come from the payload structs (payload.Types).
	@test "$$(go list -m -f '{{.Version}}' capnproto.org/go/capnp/v3)" = "$(CAPNP_GO_VERSION)" || { echo "go.mod's capnp is not CAPNP_GO_VERSION $(CAPNP_GO_VERSION)"; exit 1; }
	@# So do the JVM worker's Java records and Avro schemas (its Thrift and protobuf classes are
	@# generated when it is built: hack/jvm/build.sh).
	rm -rf workers/jvm/src/main/java/serdebench/payload/pojo workers/jvm/src/main/avro
	go run ./hack/genformats workers/payload workers/jvm/src/main
	rm -f workers/payload/thriftgen/payload*.go workers/payload/fbgen/[A-Z]*.go workers/payload/capnpgen/*.capnp.go
	thrift --gen go:package_prefix=github.com/serdebench/serdebench/workers/payload/,skip_remote \
	  -out workers/payload workers/payload/thriftgen/payload.thrift
	flatc --go -o workers/payload workers/payload/fbgen/payload.fbs
	cd workers/payload/capnpgen && PATH="$(dir $(CAPNPC_GO)):$$PATH" \
	  capnp compile -I "$$(go list -m -f '{{.Dir}}' capnproto.org/go/capnp/v3)/std" -ogo payload.capnp
	gofmt -w workers/payload/thriftgen workers/payload/fbgen workers/payload/capnpgen

.PHONY: manifests
manifests: $(CONTROLLER_GEN) $(HELM_DOCS) ## Regenerate the CRDs (config/crd/bases) and RBAC (config/rbac) from markers; copy them, the PodMonitor and the dashboard into the chart; the chart's README from its values.
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=serdebench-manager paths=./controllers/... output:rbac:artifacts:config=config/rbac
	@# The chart renders the same CRDs, RBAC rules and PodMonitor from copies.
	mkdir -p $(CHART)/files/crds $(CHART)/files/rbac
	cp config/crd/bases/*.yaml $(CHART)/files/crds/
	cp config/rbac/role.yaml $(CHART)/files/rbac/role.yaml
	cp config/prometheus/podmonitor.yaml $(CHART)/files/podmonitor.yaml
	cp config/grafana/serdebench-dashboard.json $(CHART)/files/serdebench-dashboard.json
	cp config/prometheus/rules.yaml $(CHART)/files/rules.yaml
	@# The same rules as Azure Monitor rule groups (AKS's managed Prometheus).
	go run ./hack/genazurerules config/prometheus/rules.yaml config/azure/serdebench-rule-groups.json
	@# The chart's README: README.md.gotmpl and values.yaml's "# --" comments.
	$(HELM_DOCS) --chart-search-root $(CHART) --skip-version-footer --sort-values-order file --log-level warning

.PHONY: kafka-up kafka-down kafka-status
kafka-up: ## Start the local single-node Kafka (KRaft) on 127.0.0.1:$(KAFKA_PORT).
	@command -v openssl >/dev/null || hack/apt-install.sh openssl=$(OPENSSL_VERSION)
	hack/kafka/kafka.sh up
kafka-down: ## Stop the local Kafka started by kafka-up.
	hack/kafka/kafka.sh down
kafka-status:
	hack/kafka/kafka.sh status

.PHONY: registry-up registry-down
registry-up: ## Start the local schema registry (Apicurio, Confluent-compatible API) on 127.0.0.1:$(REGISTRY_PORT) for the registry codecs.
	hack/registry/registry.sh up
registry-down: ## Stop the schema registry started by registry-up.
	hack/registry/registry.sh down

.PHONY: schema-compilers
schema-compilers: ## Debian's Thrift, FlatBuffers and Cap'n Proto compilers, pinned.
	@hack/apt-install.sh thrift-compiler=$(THRIFT_VERSION) flatbuffers-compiler=$(FLATC_VERSION) capnproto=$(CAPNP_VERSION) >/dev/null

$(CAPNPC_GO):
	@# Built from the module go.mod requires (its zenhack.net/go/util comes from third_party/).
	go build -o $@ capnproto.org/go/capnp/v3/capnpc-go

.PHONY: protoc
protoc: ## protoc and the well-known types it imports (google/protobuf/*.proto, in libprotobuf-dev).
	@hack/apt-install.sh protobuf-compiler=$(PROTOC_VERSION) libprotobuf-dev=$(PROTOC_VERSION) >/dev/null

$(PROTOC_GEN_GO):
	GOBIN=$(dir $@) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

$(MSGP):
	GOBIN=$(dir $@) go install github.com/tinylib/msgp@$(MSGP_VERSION)

$(PROTOC_GEN_VTPROTO):
	GOBIN=$(dir $@) go install github.com/planetscale/vtprotobuf/cmd/protoc-gen-go-vtproto@$(VTPROTO_VERSION)

$(CONTROLLER_GEN):
	GOBIN=$(dir $@) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)

$(HELM):
	GOBIN=$(dir $@) go install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

$(HELM_DOCS):
	GOBIN=$(dir $@) go install github.com/norwoodj/helm-docs/cmd/helm-docs@$(HELM_DOCS_VERSION)

$(GOLANGCI_LINT):
	GOBIN=$(dir $@) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

.PHONY: clean
clean: ## Remove build output (not caches, not broker data).
	rm -rf $(BIN)

.PHONY: help
help:
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "%-14s %s\n", $$1, $$2}'
