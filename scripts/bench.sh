#!/usr/bin/env bash
# make bench: every Go benchmark, then the side-by-side comparisons.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -run '^$' -bench . -benchmem -count=1 -timeout 30m ./... | tee bench.out
