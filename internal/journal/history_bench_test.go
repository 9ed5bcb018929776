package journal

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkFilesPage reads one page of the history (newest first, with a
// state filter, as `files --state failed` and the console do) from a
// journal of 20,000 files.
func BenchmarkFilesPage(b *testing.B) {
	d := openTest(b)
	ctx := b.Context()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	err := d.write(ctx, func(tx *txn) error {
		for i := range 20000 {
			state := FileDone
			if i%10 == 0 {
				state = FileFailed
			}
			at := formatTime(t0.Add(time.Duration(i) * time.Minute))
			if _, err := tx.ExecContext(ctx, `INSERT INTO files (inbox, name, state, claimed_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
				"erp", fmt.Sprintf("ORDERS_%05d.csv", i), state, at, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	f := FileFilter{States: []FileState{FileFailed}, Limit: 25, Offset: 50}
	b.ResetTimer()
	for b.Loop() {
		fs, err := d.Files(ctx, f)
		if err != nil || len(fs) != 25 {
			b.Fatalf("%d files, %v", len(fs), err)
		}
		if _, err := d.CountFiles(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
}
