package e2e

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

// TestCrashManySmallFiles kills `filebridge run` with SIGKILL at random
// (seeded) moments while it takes 80 one-supplier files through four at a
// time (file_concurrency = 4) against a simulator slowed down by
// --latency, restarts it, and repeats 6 times (2 with -short). At the end
// every file is in processed/ and every supplier exists exactly once.
func TestCrashManySmallFiles(t *testing.T) {
	t.Parallel()
	kills := 6
	if testing.Short() {
		kills = 2
	}
	const n = 80
	s, dir, inbox := simAndInbox(t, "A", "--latency", "40ms")
	var names []string
	for i := range n {
		name := fmt.Sprintf("SUPPLIERS_SMALL_%03d.csv", i)
		writeAtomic(t, filepath.Join(inbox, name), supplierFile(fmt.Sprintf("SM-%03d", i)))
		names = append(names, name)
	}
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: "settle = \"100ms\"\nfile_concurrency = 4"})
	rng := rand.New(rand.NewPCG(20261123, 7))
	killRuns(t, cfg, kills, rng, 200*time.Millisecond, 600*time.Millisecond, nil)
	finalRun(t, cfg, filepath.Join(inbox, "processed"), names)
	s.noRepeats(t)
	counts := s.keyCounts(t, "connections", "code")
	for i := range n {
		if c := counts[fmt.Sprintf("SM-%03d", i)]; c != 1 {
			t.Errorf("supplier SM-%03d exists %d times, want 1", i, c)
		}
	}
	if left := files(t, filepath.Join(inbox, "processing")); len(left) > 0 {
		t.Errorf("files left in processing/: %q", left)
	}
}
