# feedsh: a terminal feed explorer. `make demo` runs it offline; `make test` tests it.
SWIFT ?= swift
FEEDSH := .build/debug/feedsh
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps test-deps build demo test lint format clean bench

all: build

# libedit's headers and pkg-config file (the CEditLine system library needs both).
deps:
	@pkg-config --exists libedit 2>/dev/null || { \
		echo "installing libedit-dev and pkg-config"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libedit-dev pkg-config; }

build: deps
	$(SWIFT) build

# The shell against the built-in fixture server, offline: interactive in a
# terminal, reading commands from standard input otherwise.
demo: build
	$(FEEDSH) --demo

# tmux drives the end-to-end tests of the interactive shell.
test-deps: deps
	@command -v tmux >/dev/null || { \
		echo "installing tmux"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux; }

test: test-deps lint
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Fixtures/FixtureData.swift Package.swift

format:
	$(SWIFT) format --in-place --recursive Sources Tests Fixtures/FixtureData.swift Package.swift

clean:
	rm -rf .build

# Downloads against curl and aria2c on loopback nginx (not part of `make test`).
# The binary is linked statically against the Swift runtime (as a release would be:
# it starts with ~5 MiB less resident memory); static FoundationNetworking needs
# libcurl's development files.
bench: deps
	@command -v nginx >/dev/null && command -v aria2c >/dev/null && command -v curl >/dev/null \
		&& [ -x /usr/bin/time ] && pkg-config --exists libcurl || { \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			nginx-light aria2 curl time libcurl4-openssl-dev; }
	$(SWIFT) build -c release --static-swift-stdlib --product feedsh --scratch-path .build-static
	python3 Scripts/bench.py --runs $${RUNS:-5} --feedsh .build-static/release/feedsh
