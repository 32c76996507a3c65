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
test: lint build
	eval "$$(bash scripts/services.sh)" && swift test --skip-build

## Stops the PostgreSQL and Redis that `make test` started.
services-stop:
	bash scripts/services.sh stop

build:
	swift build --build-tests $(SWIFT_FLAGS)

## Fails when a file is not formatted per .swift-format; `make format` fixes it.
lint:
	swift format lint --strict --recursive Package.swift Sources Tests

format:
	swift format format --in-place --recursive Package.swift Sources Tests

clean:
	rm -rf .build
