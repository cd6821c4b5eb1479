# restorebench: `make run` builds and runs the quick profile on the embedded
# broker; `make test` installs what is missing, starts a real Kafka broker and
# runs every test against both brokers. Nothing needs doing by hand first.

SHELL := /bin/bash
GO ?= go
# SUDO is empty as root (CI, the dev machines) and sudo otherwise.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN ?= bin/restorebench
ROCKSDB_HEADER := /usr/include/rocksdb/c.h
ROCKSDB_VERSION = $(shell sed -n 's/^\#define ROCKSDB_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' /usr/include/rocksdb/version.h 2>/dev/null | paste -sd.)
LDFLAGS = -X github.com/restorebench/restorebench/engine.rocksDBVersion=$(ROCKSDB_VERSION)
# ROCKSDB_LINK is which RocksDB every binary and test binary built here
# holds:
#   release (the default) links the release build of RocksDB that Kafka
#     Streams runs: the native library of the org.rocksdb:rocksdbjni jar
#     (ROCKSDB_RELEASE_VERSION, Kafka Streams 3.9's; scripts/rocksdb.sh
#     fetches it from Maven Central and checks its pinned SHA-256). It
#     exports the same 784 rocksdb_* C functions as Debian's 7.8.3, so
#     grocksdb compiled against Debian's headers links to it unchanged.
#     make build puts it beside bin/restorebench, which finds it there
#     (rpath $ORIGIN) or in .cache/rocksdb, where test binaries find it.
#   static links Debian's librocksdb.a (librocksdb-dev), an assertion
#     build: about 120 key comparisons a memtable insert against 31-35 in
#     the release build, the model's restore of small records 1.7x slower.
#   shared links Debian's librocksdb.so (grocksdb's own flags), which also
#     reaches RocksDB's thread-local perf_context through __tls_get_addr on
#     every key comparison (13% of the model's CPU on small records).
# The CGO_LDFLAGS come before grocksdb's -lrocksdb on the link line, so the
# library named here satisfies RocksDB's symbols and Debian's shared one is
# not needed. The results record which one ran (host.rocksdb_linkage,
# host.rocksdb_build, host.rocksdb_version).
ROCKSDB_LINK ?= release
export ROCKSDB_RELEASE_VERSION := 7.9.2
ROCKSDB_RELEASE_DIR := $(CURDIR)/.cache/rocksdb/$(ROCKSDB_RELEASE_VERSION)
ROCKSDB_RELEASE_LIB := librocksdbjni-$(ROCKSDB_RELEASE_VERSION).so
ifeq ($(ROCKSDB_LINK),release)
export CGO_LDFLAGS := -L$(ROCKSDB_RELEASE_DIR) -l:$(ROCKSDB_RELEASE_LIB) -Wl,-rpath,$$ORIGIN -Wl,-rpath,$(ROCKSDB_RELEASE_DIR) -lstdc++ -lm -lpthread -ldl
else ifeq ($(ROCKSDB_LINK),static)
export CGO_LDFLAGS := -l:librocksdb.a -lgflags -lsnappy -lz -lbz2 -llz4 -lzstd -lstdc++ -lm -lpthread -ldl
else ifneq ($(ROCKSDB_LINK),shared)
$(error ROCKSDB_LINK=$(ROCKSDB_LINK): it is release, static or shared)
endif
export ROCKSDB_LINK
# The real broker make test starts (scripts/kafka.sh; PLAINTEXT listener).
KAFKA_BOOTSTRAP := 127.0.0.1:19092
# Its SASL_PLAINTEXT listener (users made by scripts/kafka.sh).
KAFKA_SASL_BOOTSTRAP := 127.0.0.1:19094
# Its SSL and SASL_SSL listeners, and the CA (made at up) they chain to.
KAFKA_SSL_BOOTSTRAP := 127.0.0.1:19095
KAFKA_SASL_SSL_BOOTSTRAP := 127.0.0.1:19096
KAFKA_TLS_CA := $(CURDIR)/.cache/kafka/run/tls/ca.pem
PROFILE ?= quick
# -timeout bounds one package. The integration package (real broker, JVMs)
# runs beside the others, without the race detector: its Go paths (agents,
# scenarios, the driver's client) run under -race in their own packages'
# tests. It is make test's longest (26 minutes here on 2 cores at
# 3c4f3bb, 20-23 before the audit and user-application tests); its
# timeout leaves CI's 30 minutes room for the set-up before it.
GOTEST_FLAGS ?= -count=1 -race -timeout 27m
INTEGRATION_TEST_FLAGS ?= -count=1 -timeout 28m
# RACE_FREE_PKGS run without the race detector: the chart and report
# renderers start no goroutine of their own, and the command's end-to-end
# tests drive the engine, scenario, agent and metrics code whose own
# packages' tests run under -race. Under -race these took 12x as long (the
# saved runs' renderings 42 s against 3.4 s alone; the command's tests
# 448 s beside the integration tests), CPU the integration tests' JVMs
# share on CI's 2 cores.
NORACE_TEST_FLAGS ?= -count=1 -timeout 15m
RACE_FREE_PKGS := ./plots ./report ./cmd/restorebench
# FUZZTIME is how long each fuzz target runs: briefly in make test, longer
# in make fuzz (FUZZTIME=10m make fuzz).
FUZZTIME ?= 2m
FUZZ_TARGETS := FuzzParse:./profiles FuzzParseSize:./config FuzzParse:./internal/javaprops \
	FuzzClientProperties:./cluster FuzzJAAS:./cluster FuzzRunFileReader:./engine/extsort FuzzDecode:./audit

.PHONY: all deps deps-kafka deps-chromium kstreams kstreams-test build run docs test test-hermetic fuzz fuzz-brief kafka-up kafka-down bench vet clean image image-test

all: build

# deps installs Debian's RocksDB (7.8.3) headers and library when missing
# (grocksdb v1.7.15 compiles against the headers), and with
# ROCKSDB_LINK=release the release library it links (scripts/rocksdb.sh;
# Maven fetches it, so deps-kafka's JDK and Maven come first).
deps: $(if $(filter release,$(ROCKSDB_LINK)),deps-kafka)
	@if [ ! -f $(ROCKSDB_HEADER) ]; then \
		echo "installing librocksdb-dev (RocksDB headers and library)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq librocksdb-dev >/dev/null; \
	fi
	@if [ "$(ROCKSDB_LINK)" = static ] && [ "$$($$($(GO) env CC) -print-file-name=librocksdb.a)" = librocksdb.a ]; then \
		echo "ROCKSDB_LINK=static: the linker finds no librocksdb.a (Debian's librocksdb-dev ships it); install it, or link the shared library with ROCKSDB_LINK=shared" >&2; exit 1; \
	fi
	@if [ "$(ROCKSDB_LINK)" = release ]; then scripts/rocksdb.sh install $(ROCKSDB_RELEASE_VERSION); fi

# deps-kafka installs what the real broker needs: a JDK 17+ and Maven, and
# openssl (scripts/kafka.sh exports the TLS client key as PEM with it:
# keytool cannot write a private key out).
deps-kafka:
	@if ! command -v java >/dev/null || ! command -v mvn >/dev/null || ! command -v openssl >/dev/null; then \
		echo "installing a JDK, Maven and openssl for the local Kafka broker"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq default-jdk-headless maven openssl >/dev/null; \
	fi

# deps-chromium installs Debian's Chromium for the report's browser test
# (the test drives it headless over the DevTools protocol; no browser download).
deps-chromium:
	@if ! command -v chromium >/dev/null; then \
		echo "installing chromium (headless browser for the report test)"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; \
	fi

# KSTREAMS_VERSIONS are the Kafka Streams versions make kstreams builds the
# driver for (default: 4.4.0, the default version of a case):
# make kstreams KSTREAMS_VERSIONS="3.9.1 4.0.2 4.4.0".
KSTREAMS_VERSIONS ?= 4.4.0
# KSTREAMS_TEST_VERSION is the one other version make test builds, for the
# integration test that runs a non-default version (another build costs a
# minute, so one).
KSTREAMS_TEST_VERSION := 4.0.2

# kstreams builds the Kafka Streams driver (Java, kstreams/pom.xml) into
# .cache/kstreams/<version>/lib for each of KSTREAMS_VERSIONS, for the
# kafka-streams engine; a no-op for a version that is up to date.
kstreams: deps-kafka
	@scripts/kstreams.sh build $(KSTREAMS_VERSIONS)

# kstreams-test builds the driver for make test: the default version and
# KSTREAMS_TEST_VERSION.
kstreams-test: deps-kafka
	@scripts/kstreams.sh build 4.4.0 $(KSTREAMS_TEST_VERSION)

# build: the binary, and with ROCKSDB_LINK=release the RocksDB library it
# loads beside it (bin/), where the binary looks first.
build: deps
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/restorebench
	@if [ "$(ROCKSDB_LINK)" = release ]; then install -m 0644 $(ROCKSDB_RELEASE_DIR)/$(ROCKSDB_RELEASE_LIB) $(dir $(BIN)); fi

# run: the quick profile on the embedded broker; results land in results/<run-id>/.
run: build
	./$(BIN) run $(PROFILE)

# docs: regenerates the command reference in docs/cli (one page per command,
# cobra's generator) from the commands themselves, and docs/json.md's
# answer-id table from the planner's declarations (capacity.AnswerIDTable);
# a test fails while either is stale.
docs: build
	./$(BIN) gendocs docs/cli
	$(GO) test -count=1 -run '^TestAnswerIDTableIsTheDeclarations$$' ./docs -update

vet: deps
	$(GO) vet ./...

# test: every test, hermetic ones on the in-process broker and integration
# ones on a real Kafka broker started here and stopped afterwards, and the
# Helm chart's (deploy/helm, a module of its own: Helm's dependencies stay
# out of restorebench's).
# A broker that was already running (make kafka-up) is left running.
# CI=true: everything the tests need is installed and started above, so a
# test that would skip for a missing dependency fails instead.
# The integration package, the longest, starts first; vet, the other
# packages, the Helm chart's tests and the brief fuzzing run beside it, one
# after the other. The integration tests run two at a time
# (integration/doc.go), which keeps both cores busy: the side jobs take
# their fair share (at nice 10 they were starved, and timing-sensitive
# unit tests failed: an agent's heartbeat 8 s late, a topic read's first
# fetch past its idle).
test: deps deps-kafka deps-chromium kstreams-test
	@started=0; if ! scripts/kafka.sh status >/dev/null 2>&1; then scripts/kafka.sh up || exit 1; started=1; fi; \
	if [ ! -f $(KAFKA_TLS_CA) ]; then echo "the running broker has no TLS listeners (an older scripts/kafka.sh started it): run scripts/kafka.sh down, then make test" >&2; exit 1; fi; \
	set -o pipefail; status=0; \
	CI=true RESTOREBENCH_BROKERS=$(KAFKA_BOOTSTRAP) RESTOREBENCH_SASL_BROKERS=$(KAFKA_SASL_BOOTSTRAP) \
		RESTOREBENCH_SSL_BROKERS=$(KAFKA_SSL_BOOTSTRAP) RESTOREBENCH_SASL_SSL_BROKERS=$(KAFKA_SASL_SSL_BOOTSTRAP) \
		RESTOREBENCH_TLS_CA=$(KAFKA_TLS_CA) RESTOREBENCH_KSTREAMS_TEST_VERSION=$(KSTREAMS_TEST_VERSION) sh -c ' \
		$(GO) test $(INTEGRATION_TEST_FLAGS) ./integration/ & it=$$!; st=0; \
		$(GO) vet ./... || st=1; \
		$(GO) test $(GOTEST_FLAGS) $$($(GO) list ./... | grep -v -e "/integration$$" $(patsubst ./%,-e "/%$$",$(RACE_FREE_PKGS))) || st=1; \
		$(GO) test $(NORACE_TEST_FLAGS) $(RACE_FREE_PKGS) || st=1; \
		(cd deploy/helm && $(GO) test -count=1 ./...) || st=1; \
		[ $$st = 0 ] && { $(MAKE) --no-print-directory fuzz-brief || st=1; }; \
		wait $$it || st=1; exit $$st' || status=$$?; \
	[ $$started = 1 ] && scripts/kafka.sh down; exit $$status

# fuzz-brief runs every fuzz target for a few seconds (part of make test);
# fuzz runs each for FUZZTIME. Inputs that fail are kept in the package's
# testdata/fuzz and replayed by every go test.
fuzz-brief:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=8s

fuzz: deps
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; \
		echo "fuzz $$name in $$pkg for $(FUZZTIME)"; \
		log=$$(mktemp); \
		if $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg >$$log 2>&1; then :; \
		elif grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log; then \
			echo "fuzz $$name: the fuzzing engine missed its own deadline, no failing input found; once more"; \
			$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg >$$log 2>&1 || \
				{ grep -v '^fuzz: elapsed' $$log | tail -30; rm -f $$log; exit 1; }; \
		else grep -v '^fuzz: elapsed' $$log | tail -30; rm -f $$log; exit 1; fi; \
		rm -f $$log; \
	done

# test-hermetic: only what needs no real broker.
test-hermetic: deps
	$(GO) test $(GOTEST_FLAGS) ./...

kafka-up: deps-kafka
	scripts/kafka.sh up

kafka-down:
	scripts/kafka.sh down

# image: the restorebench image (deploy/image/Containerfile) built with
# podman on a base made from Debian's packages, no registry (scripts/image.sh;
# installs podman, buildah and mmdebstrap when missing). image-test builds it
# and runs `agent --help`, `run quick` and a kafka-streams restore on each
# driver in it; where podman cannot run a
# container it says why and tests nothing (IMAGE_TEST_REQUIRED=1 fails
# instead). Neither is part of make test.
image: deps deps-kafka
	scripts/image.sh build

image-test: deps deps-kafka
	scripts/image.sh test

# bench: Go benchmarks of the hot paths (figures, not pass/fail).
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
