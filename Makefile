# filebridge — see README.md.
GO        ?= go
BIN       := bin/filebridge
PKGS      := ./...
FUZZTIME  ?= 10s
FUZZCOUNT ?= 20000x
TESTFLAGS ?= -count=1 -timeout 12m
# VERSION names the build in `filebridge version` (go build also stamps the VCS revision when it can).
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: all build test lint demo bench fuzz fuzz-short clean man

all: build

build:
	$(GO) build -buildvcs=auto -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/filebridge

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# test: lint, every package's tests (end-to-end tests build the binary
# themselves), then each fuzz target briefly.
test: lint build
	GO=$(GO) scripts/gotest.sh $(TESTFLAGS) $(PKGS)
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZCOUNT)

# fuzz: run every Fuzz* target for FUZZTIME each (a duration, or a count such as 20000x).
fuzz:
	@scripts/fuzz.sh $(FUZZTIME)

# man: man pages (docs/man/man1) and bash/zsh/fish completions
# (docs/man/completion) generated from the commands.
man: build
	rm -rf docs/man
	$(BIN) man docs/man

demo: build
	$(BIN) demo

bench: build
	scripts/bench.sh

clean:
	rm -rf bin filebridge-demo
