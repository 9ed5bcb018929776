#!/usr/bin/env bash
# Runs every Fuzz* target of every package for the given time (default 10s).
set -euo pipefail
t=${1:-10s}
cd "$(dirname "$0")/.."
found=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    found=1
    echo "fuzz $pkg $f ($t)"
    go test -run '^$' -fuzz "^${f}\$" -fuzztime "$t" "$pkg"
  done
done
[ "$found" = 1 ] || echo "no fuzz targets yet"
