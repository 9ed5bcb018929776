package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// tenantsConfig writes dir/config.toml for `filebridge run` with n tenants
// on the one portal of s: each an inbox tNNNN (settle 300ms, the default
// poll of 60s) and an outbox tNNNN-out with a daily stock export. It
// returns the config and the inbox folders.
func tenantsConfig(b *testing.B, dir string, s *sim, listen string, n int) (string, []string) {
	specs := make([]inboxSpec, n)
	inboxes := make([]string, n)
	for i := range specs {
		inboxes[i] = mkdir(b, dir, "tenants", fmt.Sprintf("t%04d", i), "in")
		specs[i] = inboxSpec{name: fmt.Sprintf("t%04d", i), url: inboxes[i], extra: "settle = \"300ms\"\npoll = \"60s\""}
	}
	cfg := runConfig(b, dir, s, listen, specs...)
	var out strings.Builder
	out.WriteString(strings.Replace(readFile(b, cfg), `level = "debug"`, `level = "warn"`, 1))
	for i := range n {
		fmt.Fprintf(&out, "\n[[outboxes]]\nname = \"t%04d-out\"\nportal = \"main\"\nurl = %q\n\n  [[outboxes.exports]]\n  type = \"stock\"\n  schedule = \"0 2 * * *\"\n  filename = \"STOCK_{date}.csv\"\n",
			i, mkdir(b, dir, "tenants", fmt.Sprintf("t%04d", i), "out"))
	}
	mustWrite(b, cfg, out.String())
	return cfg, inboxes
}

// inotifyWatches counts the folders process pid watches through its
// inotify instances (the "inotify wd:" lines of their fdinfo).
func inotifyWatches(b *testing.B, pid int) int {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if link, err := os.Readlink(filepath.Join(dir, e.Name())); err != nil || link != "anon_inode:inotify" {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
		if err == nil {
			n += strings.Count(string(info), "inotify wd:")
		}
	}
	return n
}

// cpuTime is the CPU time (user and system) process pid used so far,
// from /proc/PID/stat (in the kernel's clock ticks, 100 a second).
func cpuTime(b *testing.B, pid string) time.Duration {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command name in parentheses: state is the
	// first, utime the 12th and stime the 13th.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("reading the CPU time in /proc/%s/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100
}

// BenchmarkTenants runs 1,000 tenants (an inbox and an outbox each, one
// portal) in one `filebridge run` and measures: the idle RSS once every
// inbox watches its folder, the seconds from the first of 2,000 files
// dropped (2 a tenant) until the simulator holds all their documents,
// and the daemon's CPU seconds meanwhile (which say more than the wall
// time on a loaded machine),
// the process's inotify instances and open descriptors, and the size and
// time of the console's dashboard.
func BenchmarkTenants(b *testing.B) {
	const n, perTenant = 1000, 2
	for b.Loop() {
		s := startSim(b, "A")
		dir := b.TempDir()
		listen := testkit.FreeAddr(b)
		cfg, inboxes := tenantsConfig(b, dir, s, listen, n)
		p := start(b, "run", "run", "--config", cfg)
		pid := strconv.Itoa(p.cmd.Process.Pid)
		waitFor(b, 60*time.Second, "every inbox watching its folder", func() bool { return inotifyWatches(b, p.cmd.Process.Pid) >= n })
		waitFor(b, 60*time.Second, "every inbox's first round over", func() bool {
			_, body := healthz(listen)
			var h struct {
				Inboxes map[string]struct {
					LastRound *struct{ Ended time.Time } `json:"last_round"`
				} `json:"inboxes"`
			}
			if json.Unmarshal([]byte(body), &h) != nil || len(h.Inboxes) < n {
				return false
			}
			for _, in := range h.Inboxes {
				if in.LastRound == nil {
					return false
				}
			}
			return true
		})
		idle, err := testkit.RSS(pid)
		if err != nil {
			b.Fatal(err)
		}
		cpu0 := cpuTime(b, pid)
		began := time.Now()
		for k := range perTenant {
			for i, in := range inboxes {
				code := fmt.Sprintf("T%04d-%d", i, k)
				writeAtomic(b, filepath.Join(in, fmt.Sprintf("SUPPLIERS_%d.csv", k)), supplierFile(code))
			}
		}
		waitFor(b, 5*time.Minute, "every file's supplier on the portal", func() bool {
			return s.stats(b).Counts["connections"] >= n*perTenant
		})
		took := time.Since(began)
		cpu := cpuTime(b, pid) - cpu0
		instances, err := testkit.InotifyInstances(pid)
		if err != nil {
			b.Fatal(err)
		}
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%s/fd", pid))
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		code, page, err := get("http://" + listen + "/")
		dash := time.Since(t0)
		if err != nil || code != http.StatusOK {
			b.Fatalf("dashboard: %d %v", code, err)
		}
		if st := s.stats(b); st.RepeatedCreates != 0 {
			b.Errorf("%d repeated creates", st.RepeatedCreates)
		}
		if out := p.out.String(); strings.Contains(out, "file-system events unavailable") {
			b.Errorf("an inbox fell back to polling:\n%s", tail(out, 2000))
		}
		p.stop(b, 25*time.Second)
		mib := float64(idle) / (1 << 20)
		b.ReportMetric(took.Seconds(), "s-all-files")
		b.ReportMetric(5, "s-target")
		b.ReportMetric(cpu.Seconds(), "s-cpu-daemon")
		b.ReportMetric(float64(instances), "inotify")
		b.ReportMetric(mib, "MiB-idle")
		b.ReportMetric(float64(len(page))/1000, "KB-dashboard")
		b.Logf("%d tenants, %d files: all through in %s (target 5s), %s of the daemon's CPU; %d inotify instances (target ≤ 4), %d open descriptors; idle RSS %.0f MiB (target ≤ 150); dashboard %.0f KB (target ≤ 100) in %s",
			n, n*perTenant, took.Round(time.Millisecond), cpu.Round(10*time.Millisecond), instances, len(fds), mib, float64(len(page))/1000, dash.Round(time.Millisecond))
	}
}
