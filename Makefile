# The two commands of the README live here: `make demo` and `make test`.
# Both run scripts/setup.sh first, which installs whatever is missing.
SHELL := /bin/bash
SWIFT_DIR := $(shell scripts/setup.sh)
ifeq ($(SWIFT_DIR),)
$(error scripts/setup.sh could not prepare this machine; see its message above)
endif
export PATH := $(SWIFT_DIR):$(PATH)
SWIFT_FLAGS := -Xswiftc -warnings-as-errors

.PHONY: demo test build lint format clean services-stop

## Runs the main job: the server, a simulated city of drivers and riders on Monaco's roads, and the live map.
demo:
	swift build --product hail
	.build/debug/hail demo

## Lints, builds everything with warnings as errors, starts PostgreSQL and Redis on loopback for the
## scaled-backend tests (scripts/services.sh installs them when missing), and runs every test.
## At most TEST_WIDTH tests run at once: the integration tests start real servers, databases, browsers and
## child processes, and with all 500 started together on 2 cores their failure deadlines (never waits) expire.
## Then the fault suite's short form (faults-ci, root), once nothing else of the suite runs beside it.
TEST_WIDTH ?= 4
test: lint build fuzz-short contract rules docs availability app-closure fault-checkers
	eval "$$(bash scripts/services.sh)" && \
		SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) swift test --skip-build
	$(MAKE) --no-print-directory faults-ci

## Stops the PostgreSQL and Redis that `make test` started.
services-stop:
	bash scripts/services.sh stop

build:
	swift build --build-tests $(SWIFT_FLAGS)

.PHONY: contract
## Fuzzes the API contract (docs/openapi.yaml) against a real `hail server` with schemathesis, once per role
## (rider, driver, operator, share), every check and phase, a fixed seed and a bounded example count; any
## failure fails. scripts/contract.sh installs schemathesis from PyPI into .build/contract-venv on first use;
## CONTRACT_EXAMPLES and CONTRACT_SEED change the bound and the seed.
contract: build
	bash scripts/contract.sh .build/debug/hail

.PHONY: availability
## Fails when a module an app product links (HailRider, HailDriver, HailClient, HailAppSeams, HailAppStore,
## HailAppDoubles, HailProtocol and their closure) uses a declaration newer on iOS or macOS than Package.swift's
## minimum, outside `if #available`: the compiler's type-checked AST against the toolchain's own availability
## data. First proves on a fixture that it reports planted uses and passes guarded ones. See scripts/availability.py.
availability: build
	python3 scripts/availability.py --self-test
	python3 scripts/availability.py

.PHONY: app-closure
## Fails when an app product links a C system library other than SQLite's on Linux, or any on Apple platforms, or
## when an app-core test target (HailRiderTests, HailDriverTests, ...) depends on a module outside the app products:
## `swift package describe --type json` with the manifest's platform conditions. First proves on a planted package
## that it reports exactly its problems. See scripts/app_closure.py.
app-closure:
	python3 scripts/app_closure.py --self-test
	python3 scripts/app_closure.py

.PHONY: fault-checkers
## The fault suite's I8 and I10 checkers (scripts/faults/check.py) on hand-written `hail fleet` logs: a pass and a
## fail of each. No root, no namespaces: the suite itself is `make faults`.
fault-checkers:
	python3 scripts/faults/check.py --self-test

.PHONY: docs
## Builds the DocC documentation of HailRider, HailDriver and HailCore (with the articles on binding the models to
## SwiftUI) with the toolchain's docc into .build/docs/; a DocC warning fails it. See scripts/docs.sh.
docs:
	bash scripts/docs.sh

.PHONY: rules
## Checks the alerting rules in deploy/prometheus/ and runs their unit tests (promtool, Debian prometheus).
rules:
	promtool check rules deploy/prometheus/hail-rules.yml
	promtool test rules deploy/prometheus/hail-rules.test.yml

.PHONY: faults
## The fault-injection suite of docs/RELIABILITY.md (Linux, root: network namespaces, iptables, tc): three
## release `hail server` nodes on PostgreSQL and Redis, each in a namespace, behind nginx, under real rider and
## driver apps, while a nemesis partitions, pauses, crashes and skews them; the checkers' tables land in
## .build/faults/. `make test` runs its short form (faults-ci). FAULTS_ARGS picks the runs (scripts/faults/run.sh --help).
FAULTS_ARGS ?= --all --seed 1
faults:
	swift build -c release --product hail
	bash scripts/faults/run.sh $(FAULTS_ARGS)

.PHONY: faults-short faults-ci
## The fault suite's short form (root, 11-14 minutes): redis-pause-30s, pg-crash-restart,
## node1-redis-dropped-30s and node2-clock-plus-120s, seed 1, with dedicated canary drivers; exits non-zero
## when an invariant fails and names each run's report under .build/faults-short/. On a release build.
faults-short:
	swift build -c release --product hail
	bash scripts/faults/run.sh --short

## The short form as `make test` runs it: a release build of the `hail` product only (the debug build's nodes
## missed the 4 s deadline under load, docs/RELIABILITY.md), in namespaces of its own (hft<pid>-*, after removing
## any an interrupted run left); fails at once, saying so, when not root.
## FAULTS_SCRATCH moves that build out of .build (a developer's own release tree).
FAULTS_SCRATCH ?= .build
faults-ci:
	@[ "$$(id -u)" = 0 ] || { echo "make test ends with the fault suite's short form, which needs root (network namespaces, veth, iptables): run it as root"; exit 1; }
	swift build -c release --product hail --scratch-path $(FAULTS_SCRATCH)
	bash scripts/faults/run.sh --short --ci --hail $(FAULTS_SCRATCH)/release/hail

.PHONY: fuzz fuzz-short
FUZZ_SECONDS ?= 300

## Fuzzes every input the server reads from the network (Fuzz/, libFuzzer with the address sanitizer): each
## fuzzer runs FUZZ_SECONDS (default 300); new corpus entries go to .build-fuzz/corpus, never to the checked-in
## seeds; a crash fails the run and names the input that caused it. See docs/SECURITY.md, "Fuzzing".
fuzz:
	bash Fuzz/fuzz.sh $(FUZZ_SECONDS)

## The short form `make test` runs: each fuzzer for 5 s, starting from the checked-in seeds in Fuzz/Corpus.
fuzz-short:
	FUZZ_FRESH=1 bash Fuzz/fuzz.sh 5

## Fails when a file is not formatted per .swift-format (`make format` fixes it), and when Sources, Tests or Fuzz
## start a Foundation `Process`, which crashes now and then on Linux (HailProcess's ChildProcess says why; use it).
lint:
	swift format lint --strict --recursive Package.swift Sources Tests Fuzz
	@if grep -rnE --include='*.swift' '\bProcess(\(\)|\.run\()' Sources Tests Fuzz; then \
		echo "Foundation's Process is not used in Hail: start children with HailProcess's ChildProcess"; exit 1; fi

format:
	swift format format --in-place --recursive Package.swift Sources Tests Fuzz

clean:
	rm -rf .build
