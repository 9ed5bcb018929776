package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkLocalInboxFiles measures how fast `filebridge run` takes 1,000
// one-supplier files already waiting in a local inbox (an inbox that was
// down for a night) through to the simulator, with file_concurrency 1, 4
// and 16: files/s of each, beside the floor of the same machine: the
// lifecycle's file operations alone, done by a bare loop
// (bareLocalLifecycle).
func BenchmarkLocalInboxFiles(b *testing.B) {
	const n = 1000
	b.Run("bare_file_ops", func(b *testing.B) {
		for b.Loop() {
			inbox := b.TempDir()
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("SUPPLIERS_NIGHT_%04d.csv", i)
				writeAtomic(b, filepath.Join(inbox, names[i]), supplierFile(fmt.Sprintf("NT-%05d", i)))
			}
			took := bareLocalLifecycle(b, inbox, names)
			b.ReportMetric(float64(n)/took.Seconds(), "files/s")
			b.Logf("%d files through the lifecycle's file operations alone (%d at once, no journal, no portal): %.0f files/s (%s)",
				n, floorWorkers, float64(n)/took.Seconds(), took.Round(time.Millisecond))
		}
	})
	for _, fc := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("file_concurrency=%d", fc), func(b *testing.B) {
			for b.Loop() {
				s, dir, inbox := simAndInbox(b, "A")
				for i := range n {
					writeAtomic(b, filepath.Join(inbox, fmt.Sprintf("SUPPLIERS_NIGHT_%04d.csv", i)), supplierFile(fmt.Sprintf("NT-%05d", i)))
				}
				cfg := runConfig(b, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: fmt.Sprintf("settle = \"0s\"\npoll = \"60s\"\nfile_concurrency = %d", fc)})
				mustWrite(b, cfg, strings.Replace(readFile(b, cfg), `level = "debug"`, `level = "warn"`, 1))
				began := time.Now()
				p := start(b, "run", "run", "--config", cfg)
				for s.stats(b).Counts["connections"] < n {
					if time.Since(began) > 5*time.Minute {
						b.Fatalf("not through within 5 minutes")
					}
					time.Sleep(20 * time.Millisecond)
				}
				took := time.Since(began)
				p.stop(b, 25*time.Second)
				b.ReportMetric(float64(n)/took.Seconds(), "files/s")
				b.Logf("%d one-supplier files, file_concurrency %d: %.0f files/s (%s)", n, fc, float64(n)/took.Seconds(), took.Round(time.Millisecond))
			}
		})
	}
}
