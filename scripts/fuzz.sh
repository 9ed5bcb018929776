#!/usr/bin/env bash
# Runs every Fuzz* target of every package for a budget: a duration ("10s")
# or an execution count ("2000x", what `make test` uses).
#
# Go 1.26's fuzz coordinator can fail a duration-bounded run with a bare
# "context deadline exceeded" when the clock runs out while a worker is busy
# (go.dev/issue/75804, fixed in Go 1.27). Such a run wrote no failing input,
# so it is reported as a flake and not as a failure; a run that saved a new
# input under testdata/fuzz/ always fails.
set -euo pipefail
budget=${1:-10s}
# Targets that zip and open a whole workbook for every input (about 10 ms
# each: 20000x took 188 s of a 7.5-minute CI run) get a tenth of an
# execution count.
slow=" FuzzXLSXSheet "
cd "$(dirname "$0")/.."
found=0 failed=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    found=1
    corpus="$dir/testdata/fuzz/$f"
    before=$( (ls "$corpus" 2>/dev/null || true) | wc -l)
    b=$budget
    if [[ $slow == *" $f "* && $budget == *x ]]; then
      b=$(( ${budget%x} / 10 ))x
    fi
    echo "fuzz $pkg $f ($b)"
    if out=$(go test -run '^$' -fuzz "^${f}\$" -fuzztime "$b" "$pkg" 2>&1); then
      echo "$out" | tail -n 1
      continue
    fi
    after=$( (ls "$corpus" 2>/dev/null || true) | wc -l)
    if [ "$after" = "$before" ] && echo "$out" | grep -q 'context deadline exceeded'; then
      echo "$out" | tail -n 4
      echo "flake: $f stopped with go.dev/issue/75804 (no failing input written)"
      continue
    fi
    echo "$out"
    failed=1
  done
done
[ "$found" = 1 ] || echo "no fuzz targets"
exit $failed
