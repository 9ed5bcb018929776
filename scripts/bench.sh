#!/usr/bin/env bash
# make bench: every Go benchmark, then the side-by-side comparisons.
set -euo pipefail
cd "$(dirname "$0")/.."
# The baselines: OpenSSH sshd, rclone, xlsx2csv and Miller, and openpyxl (Debian packages).
missing=()
command -v sshd >/dev/null 2>&1 || [ -x /usr/sbin/sshd ] || missing+=(openssh-server)
command -v rclone >/dev/null 2>&1 || missing+=(rclone)
command -v xlsx2csv >/dev/null 2>&1 || missing+=(xlsx2csv)
command -v mlr >/dev/null 2>&1 || missing+=(miller)
/usr/bin/python3 -c 'import openpyxl' >/dev/null 2>&1 || missing+=(python3-openpyxl) # writes the XLSX benchmarks' workbooks
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "bench: install ${missing[*]} for the baselines (their benchmarks are skipped otherwise)" >&2
  fi
fi
# The quick in-process comparisons and the validate command beside Miller
# (a keep target within noise of its bound) run three times (their medians
# count);
# so do the inbox runs beside rclone and the bare loops, whose single runs
# moved by a third between sittings on a 2-core machine, and the thousand
# tenants; the other end-to-end and export benchmarks, which take minutes,
# once.
quick="./internal/portal/ ./internal/formats/ ./cmd/filebridge/"
inboxes='BenchmarkSFTPInbox|BenchmarkSFTPRemote|BenchmarkLocalInboxFiles|BenchmarkTenants'
go test -run '^$' -bench . -benchmem -count=3 -timeout 30m $quick | tee bench.out
go test -run '^$' -bench . -skip "$inboxes" -benchmem -count=1 -timeout 30m $(go list ./... | grep -v -e '/internal/portal$' -e '/internal/formats$' -e '/cmd/filebridge$') | tee -a bench.out
go test -run '^$' -bench "$inboxes" -count=3 -timeout 30m ./e2e/ | tee -a bench.out

# --- end to end (e2e): the built binary against the simulator, OpenSSH sshd
# and rclone. Their figures are in bench.out above; this repeats them with
# their explanation lines (pickup latency vs settle, SFTP files/s vs
# rclone move, lines/s of a 100k-line order file, docs/s against a slow,
# throttling or failing portal).
echo
echo "== end-to-end figures =="
grep -E '^(Benchmark(PickupLatency|SFTPInbox|SFTPRemote|LocalInboxFiles|LargeOrderFile|SlowPortal|Tenants)|\s+(throughput_|files_|tenants_|remote_)?bench_test.go:)' bench.out || echo "(no e2e benchmark ran)"

# --- memory: `run` on a generated 300 MB order file of 200-line orders,
# valid and all invalid (limit 400 MiB), and on 1,000,000 order lines
# (200,000 orders of 5 lines) validated and submitted, the lines of each
# order together and scattered over the file (limit 250 MiB); peak RSS
# from /proc, and the RSS once the file is done.
echo
echo "== memory of a 300 MB order file and of 1M order lines =="
FILEBRIDGE_MEMTEST_MB=300 FILEBRIDGE_MEMTEST_LINES=1000000 go test -count=1 -timeout 60m -run '^(TestLargeFileMemory|TestManyOrdersMemory)$' -v ./e2e/ | tee mem.out | grep -E '^(memory |--- |\s+reliability_test.go:)' || echo "(memory drill failed: see mem.out)"

# --- side by side: each figure beside the baseline measured in this run,
# and each peak RSS beside its target.
echo
echo "== ratios against the baselines of this run =="
go run ./scripts/benchratio bench.out mem.out
