# feedsh: a terminal feed explorer. `make demo` runs it offline; `make test` tests it.
SWIFT ?= swift
FEEDSH := .build/debug/feedsh
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Selenium, which drives Chromium through chromium-driver in the web page's tests.
SELENIUM := 4.51.0
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps test-deps build release strip demo test lint format clean bench completions man install uninstall

# The build that ships (make release, install, bench and the release half of make
# test): the Swift runtime linked in statically, so it runs where no toolchain is
# installed and starts 5 MiB lighter; each function in its own section, so that
# lld can lay out first the ones a start runs (Linker/feedsh.order), which spares
# another 4 MiB (docs/performance.md, "Start"); and libcurl not linked: FoundationNetworking
# (--engine urlsession, and the MCP SDK) calls it through CurlOnDemand, which loads it on
# the first call, so that no start of feedsh loads it and the thirty-odd libraries under
# it, 6 MiB (docs/performance.md, "Installed size"); and the metadata of generic types
# made by calls, not from their mangled names, whose generic requirements the runtime
# checks by scanning the binary's 13,000 protocol conformances: 1.5 ms of a 16 ms
# `podcast P; episodes` (docs/performance.md, "The largest libraries").
RELEASE := -c release --static-swift-stdlib -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xswiftc -Xfrontend -Xswiftc -disable-autolink-library -Xswiftc -Xfrontend -Xswiftc curl \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# What ships: the release binary without its symbol table and debug information
# (strip), more than half of its size; make install copies it and the release half
# of make test runs it, from a folder of the release build's own. The unstripped one
# stays beside it for profiles and Scripts/symbol-order.py.
SHIPPED := .build/release/shipped

all: build

# libedit's headers and pkg-config file (the CEditLine system library needs both),
# SQLite's for GRDB (the library), libxml2 for FoundationXML (the feed parser), and
# libcurl's for the static FoundationNetworking of the release build.
deps:
	@pkg-config --exists libedit sqlite3 libxml-2.0 libcurl 2>/dev/null || { \
		echo "installing libedit-dev, libsqlite3-dev, libxml2-dev, libcurl4-openssl-dev and pkg-config"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			libedit-dev libsqlite3-dev libxml2-dev libcurl4-openssl-dev pkg-config; }

build: deps
	$(SWIFT) build

# The shell against the built-in fixture server, offline: interactive in a
# terminal, reading commands from standard input otherwise.
demo: build
	$(FEEDSH) --demo

# tmux drives the end-to-end tests of the interactive shell (less is its pager); zsh
# and fish load the completion scripts; mpv is the player of the playback tests;
# newsboat's podboat downloads from `feedsh serve`; tinyproxy is the real proxy of
# the proxy tests; php-cli and php-sqlite3 run opodsync
# (../shared/sync-server), the real sync server of the sync tests; a venv with
# mygpoclient (PyPI), gPodder's own client library, is their reference client, and
# gPodder's podcastparser and Python's feedparser read the feeds of `feedsh serve`,
# and the MCP reference SDK for Python (`mcp`) drives `feedsh mcp`; ffmpeg is what
# `clip` and `copy` run (their tests read the files with ffprobe), Debian's
# python3-mutagen reads the tags `copy` writes, exfatprogs and exfat-fuse make and
# mount the exFAT card image it writes to (as root), and dbus (a private session
# bus) with playerctl drive `play`'s media keys.
test-deps: deps
	@command -v tmux >/dev/null && command -v zsh >/dev/null && command -v fish >/dev/null \
		&& command -v less >/dev/null && command -v mpv >/dev/null && command -v podboat >/dev/null \
		&& command -v curl >/dev/null && command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null \
		&& /usr/bin/python3 -c 'import mutagen' 2>/dev/null \
		&& test -x /usr/sbin/mkfs.exfat && test -x /usr/sbin/mount.exfat-fuse \
		&& command -v dbus-daemon >/dev/null && command -v playerctl >/dev/null \
		&& { command -v tinyproxy || test -x /usr/sbin/tinyproxy; } >/dev/null \
		&& test -x /usr/bin/chromium && test -x /usr/bin/chromedriver \
		&& php -r 'exit(extension_loaded("sqlite3") ? 0 : 1);' 2>/dev/null || { \
		echo "installing tmux, zsh, fish, less, mpv, newsboat (podboat), curl, tinyproxy, php-cli, php-sqlite3," \
			"chromium and chromium-driver (the web page's tests), ffmpeg and python3-mutagen (clips, copy)," \
			"exfatprogs and exfat-fuse (an exFAT card), dbus and playerctl (media keys)"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux zsh fish less mpv newsboat curl \
			tinyproxy php-cli php-sqlite3 chromium chromium-driver ffmpeg python3-mutagen exfatprogs exfat-fuse \
			dbus playerctl; }
	@test -x .build-venv/bin/python \
		&& .build-venv/bin/python -c 'import mygpoclient, feedparser, podcastparser, mcp, selenium' 2>/dev/null || { \
		echo "making .build-venv with mygpoclient (gPodder's client library, the sync tests' reference client)" \
			"with feedparser and podcastparser (the serve tests' feed readers), mcp (the MCP tests' client)" \
			"and selenium (drives Chromium for the web page's tests)"; \
		rm -rf .build-venv; \
		{ python3 -m venv .build-venv 2>/dev/null || { rm -rf .build-venv && \
			$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-pip && \
			python3 -m venv .build-venv; }; } && \
		.build-venv/bin/pip install -q mygpoclient==1.10 feedparser==6.0.14 podcastparser==0.6.11 mcp==1.26.0 \
			selenium==$(SELENIUM); }

# The whole suite on the debug build, then every end-to-end test again on the
# release binary that `make install` ships: the optimizer has changed behaviour
# before (DESIGN.md, "Facts"), so a green run must mean the shipped build works.
#
# The unit tests run on their own first: their timeouts are short (a 1 s stall, a
# rate-limited transfer), and the end-to-end tests' processes (background feedsh,
# mpv, tmux) running beside them on two cores made them miss.
#
# Each run has a deadline (Scripts/test-within), far above its usual time (unit
# tests about 15 s, end-to-end about 3 min): a test that hangs fails the run and is
# named, instead of using up CI's 90 minutes.
test: test-deps lint
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) Scripts/test-within 600 --skip-build --skip EndToEndTests
	SWIFT=$(SWIFT) Scripts/test-within 1200 --skip-build --filter EndToEndTests
	$(SWIFT) build $(RELEASE) --product feedsh
	$(MAKE) --no-print-directory strip
	FEEDSH_BINARY=$(CURDIR)/$(SHIPPED)/feedsh SWIFT=$(SWIFT) Scripts/test-within 1200 --skip-build --filter EndToEndTests

# The format, and every import declared in Package.swift with no arrow the wrong
# way (Scripts/check-imports.py).
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Fixtures/FixtureData.swift Package.swift
	python3 Scripts/check-imports.py $(SWIFT)

format:
	$(SWIFT) format --in-place --recursive Sources Tests Fixtures/FixtureData.swift Package.swift

clean:
	rm -rf .build

# The completion scripts are generated by swift-argument-parser from the real
# command; a test fails when the committed ones are stale.
completions: build
	$(FEEDSH) --generate-completion-script bash > completions/feedsh.bash
	$(FEEDSH) --generate-completion-script zsh > completions/_feedsh
	$(FEEDSH) --generate-completion-script fish > completions/feedsh.fish

# The man page's SHELL COMMANDS section is generated from the command specs, as
# `help` is; a test fails when the committed page is stale.
man: build
	$(FEEDSH) --generate-man-commands > .build/man-commands
	awk '/^\.SH SHELL COMMANDS/ { while ((getline line < ".build/man-commands") > 0) print line; skip = 1; next } \
		/^\.SH / { skip = 0 } !skip' feedsh.1 > .build/feedsh.1
	mv .build/feedsh.1 feedsh.1

release: deps
	$(SWIFT) build $(RELEASE) --product feedsh
	$(MAKE) --no-print-directory strip

# The release binary as it ships (SHIPPED), from the last release build.
strip:
	mkdir -p $(SHIPPED)
	strip -o $(SHIPPED)/feedsh .build/release/feedsh

# make install PREFIX=$HOME/.local (DESTDIR for packaging).
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(SHIPPED)/feedsh $(DESTDIR)$(PREFIX)/bin/feedsh
	# The helper programs of older versions, in feedsh now.
	rm -f $(DESTDIR)$(PREFIX)/bin/feedsh-mcp $(DESTDIR)$(PREFIX)/bin/feedsh-urlsession
	install -m 644 feedsh.1 $(DESTDIR)$(PREFIX)/share/man/man1/feedsh.1
	install -m 644 completions/feedsh.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/feedsh
	install -m 644 completions/_feedsh $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_feedsh
	install -m 644 completions/feedsh.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/feedsh.fish

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/feedsh $(DESTDIR)$(PREFIX)/bin/feedsh-mcp $(DESTDIR)$(PREFIX)/bin/feedsh-urlsession \
		$(DESTDIR)$(PREFIX)/share/man/man1/feedsh.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/feedsh \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_feedsh \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/feedsh.fish

# The speed and memory goals first, each as a ratio to its reference
# (bench-out/goals.md), then downloads against curl and aria2c on loopback nginx,
# the library, the shell, search and sync (not part of `make test`).
# It measures the release build, as make install ships it.
bench: release
	@command -v nginx >/dev/null && command -v aria2c >/dev/null && command -v curl >/dev/null \
		&& command -v newsboat >/dev/null && command -v wget >/dev/null && [ -x /usr/bin/time ] \
		&& command -v sqlite3 >/dev/null && command -v wrk >/dev/null || { \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			nginx-light aria2 curl wget time newsboat sqlite3 wrk; }
	$(MAKE) test-deps
	python3 Scripts/bench-goals.py --runs $${RUNS:-5} --feedsh $(SHIPPED)/feedsh \
		$${BASELINE:+--baseline $$BASELINE}
	python3 Scripts/bench.py --runs $${RUNS:-5} --feedsh $(SHIPPED)/feedsh \
		$${BASELINE:+--baseline $$BASELINE}
	python3 Scripts/bench-library.py --runs $${RUNS:-5} --feedsh $(SHIPPED)/feedsh
	python3 Scripts/bench-shell.py --runs $${RUNS:-5} --feedsh $(SHIPPED)/feedsh
	python3 Scripts/bench-find.py --runs $${RUNS:-5} --feedsh $(SHIPPED)/feedsh
	python3 Scripts/bench-sync.py --runs $${RUNS:-5} --feedsh $(SHIPPED)/feedsh
	python3 Scripts/bench-rate.py --runs $${RUNS:-5} --feedsh $(SHIPPED)/feedsh
