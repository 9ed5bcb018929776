#!/usr/bin/env bash
# Runs `go test` with the given arguments and, when it fails, repeats at the
# end what failed: the "--- FAIL" lines and the messages of t.Error/t.Fatal.
# A failing end-to-end test logs the output of every process it started,
# which buries its own message far above the end of a CI log.
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/filebridge-test.XXXXXX")
trap 'rm -f "$log"' EXIT
"${GO:-go}" test "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo
  echo "=== what failed (repeated from above) ==="
  # A test's own messages are indented 4 spaces per level (subtests 8);
  # the output of processes it logs is indented further, under the message.
  grep -E '^\s*--- FAIL|^(    )+[A-Za-z0-9_]+\.go:[0-9]+: |^FAIL|^panic:' "$log" | grep -vE '^(    )+[a-z_]+\.go:[0-9]+: (--- output of|sshd output)' | cut -c1-400 | tail -n 60
fi
exit "$rc"
