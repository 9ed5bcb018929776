package outbox

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"filebridge/internal/journal"
)

// TestRunKeepsCopy: a run keeps a compressed copy of the file it wrote in
// the journal (what a re-send writes again); a file whose copy would pass
// the limit is written all the same, without a copy.
func TestRunKeepsCopy(t *testing.T) {
	h := newHarness(t)
	t1 := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	job := receiptJob()
	for i, limit := range []int{0, 64} {
		h.src.put(inbound(string(rune('A'+i))+"100", t1.Add(time.Duration(i)*time.Hour), 40))
		h.runner.CopyLimit = limit
		res, _ := h.run(job)
		written, err := os.ReadFile(filepath.Join(h.dir, res.File))
		if err != nil || res.File == "" {
			t.Fatalf("run %d wrote %q: %v", i, res.File, err)
		}
		runs, err := h.db.RecentRuns(t.Context(), "erp", string(job.Type), 1)
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs: %v, %v", runs, err)
		}
		gz, size, err := h.db.Copy(t.Context(), runs[0].ID)
		if limit > 0 {
			if !errors.Is(err, journal.ErrNotFound) {
				t.Errorf("a copy over the %d-byte limit was kept: %d bytes, %v", limit, len(gz), err)
			}
			continue
		}
		if err != nil || size != int64(len(written)) {
			t.Fatalf("copy: size %d, %v; want %d", size, err, len(written))
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, written) {
			t.Errorf("the copy differs from %s (%v)", res.File, err)
		}
	}
}
