# planq: make install sets up everything (jj and a git jj can fetch with, when
# missing, then planq); make test runs the whole test suite against real jj,
# git, MCP and Claude Code; make dist writes the release archives.

SHELL := /bin/bash
GO ?= go
# Where `make install` puts planq: /usr/local/bin for root, else ~/.local/bin.
BINDIR ?= $(shell if [ -w /usr/local/bin ]; then echo /usr/local/bin; else echo $(HOME)/.local/bin; fi)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/planq-dev/planq/internal/version.stamp=$(VERSION)
# Static binaries, as the release archives are (scripts/dist.sh): no dynamic
# loader at start, which is a measurable share of a hook's or the status
# line's run (about 0.9 of 3.9 ms for planq-hook statusline here).
STATIC := CGO_ENABLED=0
# Tests and tools find a jj installed by scripts/install-jj.sh for a non-root user.
export PATH := $(HOME)/.local/bin:$(PATH)
TEST_TIMEOUT ?= 45m

.PHONY: all build install jj git chromium test test-short test-faults bench lint fmt vet dist clean

all: build

# Where `make build` writes planq, planq-hook and planq-sandbox.
BUILDDIR ?= .

build:
	$(STATIC) $(GO) build -ldflags '$(LDFLAGS)' -o $(BUILDDIR)/planq ./cmd/planq
	$(STATIC) $(GO) build -ldflags '$(LDFLAGS)' -o $(BUILDDIR)/planq-hook ./cmd/planq-hook
	$(STATIC) $(GO) build -ldflags '$(LDFLAGS)' -o $(BUILDDIR)/planq-sandbox ./cmd/planq-sandbox

## install: jj and a git >= 2.42 for it (when missing), then planq, planq-hook (the fast tool-hook binary) and planq-sandbox (the OS sandbox a locked shell command runs in) into $(BINDIR)
install: jj git
	mkdir -p $(BINDIR)
	$(STATIC) $(GO) build -ldflags '$(LDFLAGS)' -o $(BINDIR)/planq ./cmd/planq
	$(STATIC) $(GO) build -ldflags '$(LDFLAGS)' -o $(BINDIR)/planq-hook ./cmd/planq-hook
	$(STATIC) $(GO) build -ldflags '$(LDFLAGS)' -o $(BINDIR)/planq-sandbox ./cmd/planq-sandbox
	@echo "planq, planq-hook and planq-sandbox installed in $(BINDIR)"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "add $(BINDIR) to your PATH: export PATH=\"$(BINDIR):\$$PATH\"";; esac

jj:
	bash scripts/install-jj.sh

# jj 0.46 fetches with `git fetch --porcelain` (git >= 2.42); Debian 12 has 2.39.
# Points jj's git.executable-path at a suitable git (after jj is there).
git: jj
	bash scripts/install-git.sh

# The headless Chromium the `planq ui` browser tests drive (Debian's chromium
# package, installed when missing and root; the tests skip loudly otherwise).
chromium:
	@bash scripts/install-chromium.sh || { rc=$$?; if [ $$rc -eq 3 ]; then echo "no Chromium here: the planq ui browser tests will skip"; else exit $$rc; fi; }

## test: the whole suite (installs jj, its git and Chromium when missing; tests install Claude Code and MCP Inspector with npm themselves)
test: jj git chromium
	$(GO) vet ./...
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

## test-short: the loop to iterate in, under a minute: go test -short ./... (Go, git and the repo's files only; what drives jj, a host CLI, a browser, npm or a corpus's real commands skips, saying so)
test-short:
	$(GO) test -short ./...

## test-faults: planq's kill tests (cmd/planq TestKilled*) with the larger round counts make test leaves out: 300 killed state commands, 30 rounds of killed session pushes, pulls and lazy fetches (PLANQ_FAULT_ITERATIONS, PLANQ_FAULT_SESSION_ROUNDS; PLANQ_FAULT_SEED replays a run)
test-faults: jj git
	PLANQ_FAULT_ITERATIONS=$${PLANQ_FAULT_ITERATIONS:-300} PLANQ_FAULT_SESSION_ROUNDS=$${PLANQ_FAULT_SESSION_ROUNDS:-30} \
		$(GO) test -count=1 -run '^TestKilled' -timeout 90m ./cmd/planq/

## bench: every benchmark; each reports p50 (and ratios or MB/s) via custom metrics
bench: jj git
	# The hook processes (planq-hook and planq hook) vs one `jj log -r @` process, measured in the same run.
	$(GO) test -run '^$$' -bench PreToolUseHook -benchtime 100x -timeout 30m ./cmd/planq/
	# The OS sandbox: a trivial command run by planq-sandbox vs by bash alone (goal: at most 3 ms more), and the
	# pre-tool-use hook while locked (it rewrites every shell call) vs one `jj log -r @` process (goal: at most 0.20).
	$(GO) test -run '^$$' -bench Sandbox -benchtime 100x -timeout 30m ./cmd/planq/
	# The status line (planq-hook statusline, planq statusline) vs one `jj log -r @` process, in the same run.
	$(GO) test -run '^$$' -bench StatusLine -benchtime 100x -timeout 30m ./cmd/planq/
	# Search, context, log add, session-start on generated states of 10k and 100k entries; packed reads; workspaces of parallel agents.
	$(GO) test -run '^$$' -bench . -skip Growth -benchtime 20x -benchmem -timeout 60m ./search/ ./staterepo/ ./hooks/ ./workflow/ ./gate/
	# State repo growth: 100k entries written one at a time with automatic maintenance (disk use, write
	# latency), then `planq state gc` as a child process (time, peak RSS), and before and after it a fresh `planq mcp serve`'s
	# first planq_search (goal 300 ms) and planq_context p50 (goal 10 ms). Several minutes; PLANQ_BENCH_ENTRIES changes the
	# count, PLANQ_BENCH_GROWN=DIR keeps the grown state there and measures it again on later runs.
	$(GO) test -run '^$$' -bench Growth -benchtime 1x -timeout 120m ./staterepo/
	# Transcript search over a generated 1 GB file (PLANQ_BENCH_TRANSCRIPT_MB to change the size).
	$(GO) test -run '^$$' -bench . -benchtime 3x -benchmem -timeout 30m ./transcript/
	# Shared sessions: 1,000 lineages, 2 GB of generated transcripts (PLANQ_BENCH_SESSIONS, PLANQ_BENCH_SESSIONS_MB),
	# pushed once; then what `planq state push` of one more session sends (goal: sent/zlib <= 2), a teammate's lazy
	# fetch of one lineage (goal: fetch-max-ms <= 2000), and context, log add and first search beside the lineages as
	# ratios of the same before them (goal: about 1). About 10 minutes and 8 GB of temp space.
	$(GO) test -run '^$$' -bench Lineages -benchtime 1x -timeout 60m ./transcript/share/
	# planq ui pages over HTTP from a running server (first byte, whole page, first request, CPU): Changes at
	# 10,000 changes and 10,000 lineages beside `jj log` of the same revset, Overview and Transcript there, State at
	# 100,000 entries, first page of a 1 GB transcript (PLANQ_BENCH_TRANSCRIPT_MB); goals 200, 200, 200, 200, 50 ms (p50-ms).
	$(GO) test -run '^$$' -bench 'UI' -benchtime 20x -timeout 30m ./ui/

# Platforms planq builds for; `make lint` compiles planq and its tests for each.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64

# staticcheck, at the version tools/go.mod pins (a module of its own, so the
# linter's dependencies never move planq's); built from the module proxy.
STATICCHECK := .tools/staticcheck

## lint: formatting, go.mod tidiness, a doc comment on every package, vet and a build (with tests) for every platform, staticcheck (staticcheck.conf) over every OS
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@# Every package says what it holds: "// Package NAME …" (a command: "// Command NAME …").
	@out=$$($(GO) list -f '{{.ImportPath}} {{.Name}} {{.Doc}}' ./... | awk '!(($$3 == "Package" && $$4 == $$2) || ($$2 == "main" && $$3 == "Command")) {print $$1}'); \
		if [ -n "$$out" ]; then echo "packages without a doc comment (// Package NAME … or // Command NAME …):"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	cd tools && $(GO) mod tidy -diff
	$(GO) vet ./...
	@set -e; for p in $(PLATFORMS); do \
		echo "vet (builds code and tests) for $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./...; \
	done
	$(GO) build -modfile=tools/go.mod -o $(STATICCHECK) honnef.co/go/tools/cmd/staticcheck
	@# One run over every OS (-matrix): code is reported unused only when no
	@# platform uses it, and each finding names the platforms it holds on.
	for os in $$(for p in $(PLATFORMS); do echo $${p%/*}; done | sort -u); do \
		echo "$$os: GOOS=$$os"; \
	done | $(STATICCHECK) -matrix ./...

## dist: release archives for $(PLATFORMS) and their SHA-256 sums in dist/
dist:
	VERSION=$(VERSION) PLATFORMS="$(PLATFORMS)" GO=$(GO) bash scripts/dist.sh dist

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -f planq planq-hook planq-sandbox
