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
	seedFiles(b, d, 20000, func(i int) (string, string, FileState, string) {
		state := FileDone
		if i%10 == 0 {
			state = FileFailed
		}
		return "erp", fmt.Sprintf("ORDERS_%05d.csv", i), state, formatTime(t0.Add(time.Duration(i) * time.Minute))
	})
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

// BenchmarkTenantFiles reads what a round and /healthz read of one inbox
// (its open files, its counts by state) from a journal of 1,000 inboxes
// holding 20 files each, two of them open.
func BenchmarkTenantFiles(b *testing.B) {
	d := openTest(b)
	ctx := b.Context()
	at := formatTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	seedFiles(b, d, 20000, func(i int) (string, string, FileState, string) {
		state := FileDone
		if i < 2000 { // two open files an inbox
			state = FileClaimed
		}
		return fmt.Sprintf("t%04d", i%1000), fmt.Sprintf("SUPPLIERS_%05d.csv", i), state, at
	})
	for b.Loop() {
		open, err := d.OpenFiles(ctx, "t0500")
		if err != nil || len(open) != 2 {
			b.Fatalf("%d open files, %v", len(open), err)
		}
		states, err := d.FileStates(ctx, "t0500")
		if err != nil || states[FileDone] != 18 {
			b.Fatalf("states %v, %v", states, err)
		}
	}
}

// seedFiles records n files in one write, file i as row says: its inbox,
// name, state and claim time.
func seedFiles(b *testing.B, d *DB, n int, row func(i int) (inbox, name string, state FileState, at string)) {
	b.Helper()
	ctx := b.Context()
	err := d.write(ctx, func(tx *txn) error {
		for i := range n {
			inbox, name, state, at := row(i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO files (inbox, name, state, claimed_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
				inbox, name, state, at, at); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPrune prunes half of a journal of 20,000 files with ten
// documents each (a tenth of them open failures, 1,000 replays), as the
// daemon's hourly pass does the first time journal.retention is set: the
// time the one write transaction holds the journal.
func BenchmarkPrune(b *testing.B) {
	ctx := b.Context()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		b.StopTimer()
		d := openTest(b)
		seedFiles(b, d, 20000, func(i int) (string, string, FileState, string) {
			state := FileDone
			if i%10 == 0 {
				state = FileFailed
			}
			return "erp", fmt.Sprintf("ORDERS_%05d.csv", i), state, formatTime(t0.Add(time.Duration(i) * time.Minute))
		})
		err := d.write(ctx, func(tx *txn) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO documents (file_id, key, result, updated_at)
				SELECT f.id, 'K' || f.id || '-' || n.n, 'created', f.updated_at FROM files f,
				(SELECT 1 AS n UNION SELECT 2 UNION SELECT 3 UNION SELECT 4 UNION SELECT 5
				 UNION SELECT 6 UNION SELECT 7 UNION SELECT 8 UNION SELECT 9 UNION SELECT 10) n`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO replays (inbox, name, original_id, replay_id, requested_at)
				SELECT inbox, name, id, id + 1, updated_at FROM files WHERE id % 20 = 1`)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		n, err := d.Prune(ctx, t0.Add(10000*time.Minute))
		if err != nil || n < 8000 {
			b.Fatalf("Prune = %d, %v", n, err)
		}
	}
}
