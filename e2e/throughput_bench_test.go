package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowPortal is one run of a file of suppliers through `filebridge
// process` against a simulator that misbehaves as its flags say.
type slowPortal struct {
	n           int
	concurrency int
	simFlags    []string
}

// slowRun is what a slowPortal run measured and found on the portal.
type slowRun struct {
	took              time.Duration
	requests, creates int // API requests the simulator served, suppliers of the file on it
	once              int // suppliers of the file on the portal exactly once
	repeated          int // creates sent again and refused as already used
	throttled         int
}

// suppliersFile is an Edition A file of n suppliers.
func suppliersFile(prefix string, n int) []byte {
	var b strings.Builder
	b.WriteString("code,name,relationship\n")
	for i := range n {
		fmt.Fprintf(&b, "%s%05d,Supplier %d,Manufacturer\n", prefix, i, i)
	}
	return []byte(b.String())
}

// run processes the file and checks, with the faults off, how many times
// each supplier landed on the portal.
func (sp slowPortal) run(t testing.TB) slowRun {
	t.Helper()
	s, dir, inbox := simAndInbox(t, "A", sp.simFlags...)
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox})
	text := strings.Replace(readFile(t, cfg), `level = "debug"`, `level = "warn"`, 1)
	text = strings.Replace(text, "concurrency = 8", fmt.Sprintf("concurrency = %d", sp.concurrency), 1)
	mustWrite(t, cfg, text)
	const prefix = "SP-"
	file := filepath.Join(inbox, "SUPPLIERS_SLOW.csv")
	writeAtomic(t, file, suppliersFile(prefix, sp.n))

	begin := time.Now()
	out, code := runCmd(t, 10*time.Minute, "process", "--config", cfg, "--inbox", "erp", "SUPPLIERS_SLOW.csv")
	took := time.Since(begin)
	if code != 0 {
		t.Fatalf("process exited with %d:\n%s", code, tail(out, 4000))
	}
	st := s.stats(t)
	s.setFaults(t, 0, 0, 0)
	r := slowRun{took: took, requests: st.Requests, throttled: st.Faults.Throttled, repeated: st.RepeatedCreates}
	for k, c := range s.keyCounts(t, "connections", "code") {
		if strings.HasPrefix(k, prefix) {
			r.creates += c
			if c == 1 {
				r.once++
			}
		}
	}
	return r
}

// landedOnce fails the test unless every supplier of the run is on the
// portal exactly once.
func (r slowRun) landedOnce(t testing.TB, n int) {
	t.Helper()
	if r.once != n || r.creates != n {
		t.Errorf("%d of %d suppliers on the portal exactly once (%d in all)", r.once, n, r.creates)
	}
	if r.repeated != 0 {
		t.Errorf("%d create(s) were sent again and refused as already used, want 0", r.repeated)
	}
}

// TestSlowPortalLandsOnce: a file of suppliers taken through a throttling
// portal (20% 429 with Retry-After), and through one that fails 5% and
// drops 5% of the requests, lands every supplier exactly once; under
// throttling alone every request beyond one per supplier is a 429's retry.
func TestSlowPortalLandsOnce(t *testing.T) {
	const n = 150
	tests := []struct {
		name  string
		flags []string
	}{
		{"throttle", []string{"--latency", "5ms", "--throttle", "0.2"}},
		{"fail and drop", []string{"--latency", "5ms", "--fail-rate", "0.05", "--drop-rate", "0.05"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := slowPortal{n: n, concurrency: 8, simFlags: tt.flags}.run(t)
			r.landedOnce(t, n)
			if tt.name == "throttle" {
				if r.throttled == 0 {
					t.Error("the simulator throttled nothing")
				}
				if want := n + r.throttled; r.requests != want {
					t.Errorf("%d API requests for %d suppliers and %d 429s, want %d", r.requests, n, r.throttled, want)
				}
			}
		})
	}
}

// BenchmarkSlowPortal takes a file of 2,000 suppliers through `filebridge
// process` with concurrency 16 against a simulator answering after 50 ms:
// as it is ("latency": ideally 16 / 50 ms = 320 docs/s), answering 20% of
// the requests 429 with Retry-After ("throttle"), and failing 5% and
// dropping 5% of them ("faults"). Each reports docs/s and how many
// suppliers landed exactly once.
func BenchmarkSlowPortal(b *testing.B) {
	const n, concurrency = 2000, 16
	const latency = 50 * time.Millisecond
	cases := []struct {
		name  string
		flags []string
	}{
		{"latency", nil},
		{"throttle", []string{"--throttle", "0.2"}},
		{"faults", []string{"--fail-rate", "0.05", "--drop-rate", "0.05"}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				flags := append([]string{"--latency", latency.String()}, c.flags...)
				r := slowPortal{n: n, concurrency: concurrency, simFlags: flags}.run(b)
				r.landedOnce(b, n)
				rate := float64(n) / r.took.Seconds()
				b.ReportMetric(rate, "docs/s")
				b.ReportMetric(float64(concurrency)/latency.Seconds(), "docs/s-ideal")
				b.ReportMetric(float64(r.once), "docs-once")
				b.ReportMetric(n, "docs")
				b.ReportMetric(float64(r.requests)/n, "requests/doc")
				b.Logf("%s: %d suppliers in %s, %.0f docs/s (ideal %.0f), %d landed once, %d requests (%d throttled)",
					c.name, n, r.took.Round(time.Millisecond), rate, float64(concurrency)/latency.Seconds(), r.once, r.requests, r.throttled)
			}
		})
	}
}
