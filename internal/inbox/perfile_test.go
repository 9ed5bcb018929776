package inbox_test

import (
	"fmt"
	"runtime"
	"testing"

	"filebridge/internal/portal"
)

// TestBytesPerSmallFile: a file of one row does not cost the batches of
// a large one: decode's two batches and submit's settled documents grow
// with the file instead of starting at batchSize (106 kB a file before,
// more than half of what the whole round allocated, simulator included).
// The bytes the process allocates for a round of such files, after a
// first round, stay under a bound with room for the journal and the
// simulator.
func TestBytesPerSmallFile(t *testing.T) {
	const files, maxPerFile = 20, 150 << 10
	e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers")})
	round := func(r int) (bytes, allocs uint64) {
		for i := range files {
			e.drop(fmt.Sprintf("SUPPLIERS_%d_%02d.csv", r, i), suppliersFile(fmt.Sprintf("SUP-%d-%02d-", r, i), 1))
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rr := e.runOnce()
		runtime.ReadMemStats(&after)
		if len(rr.Files) != files {
			t.Fatalf("%d files processed, want %d", len(rr.Files), files)
		}
		return (after.TotalAlloc - before.TotalAlloc) / files, (after.Mallocs - before.Mallocs) / files
	}
	round(0) // the first round prepares the journal's statements
	perFile, allocs := round(1)
	e.onceEach(portal.Connections, "SUP-1-00-", 1)
	t.Logf("%d bytes allocated a file, in %d allocations", perFile, allocs)
	if perFile > maxPerFile {
		t.Errorf("a round of %d one-row files allocated %d bytes a file, want at most %d", files, perFile, maxPerFile)
	}
}
