package journal_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/testkit"
)

// TestJournalNotWritable: a journal whose file or folder cannot be
// written is refused by Open and CheckPath with ErrNotWritable, and an
// open journal that becomes unwritable fails CheckWritable until it is
// writable again.
func TestJournalNotWritable(t *testing.T) {
	ctx := context.Background()
	for _, which := range []string{"file", "folder"} {
		t.Run(which, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "var")
			path := filepath.Join(dir, "journal.db")
			db, err := journal.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.CheckWritable(ctx); err != nil {
				t.Fatalf("fresh journal: %v", err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			target := path
			if which == "folder" {
				target = dir
			}
			testkit.Immutable(t, target, true)
			if err := journal.CheckPath(path); !errors.Is(err, journal.ErrNotWritable) {
				t.Errorf("CheckPath: %v, want ErrNotWritable", err)
			}
			if db, err := journal.Open(ctx, path); !errors.Is(err, journal.ErrNotWritable) {
				if err == nil {
					_ = db.Close()
				}
				t.Fatalf("Open of a read-only journal: %v, want ErrNotWritable", err)
			}
			testkit.Immutable(t, target, false)
			db, err = journal.Open(ctx, path)
			if err != nil {
				t.Fatalf("Open after it became writable again: %v", err)
			}
			defer db.Close()

			testkit.Immutable(t, target, true)
			err = db.CheckWritable(ctx)
			if !errors.Is(err, journal.ErrNotWritable) {
				t.Fatalf("CheckWritable while read-only: %v, want ErrNotWritable", err)
			}
			t.Logf("message: %v", err)
			testkit.Immutable(t, target, false)
			if err := db.CheckWritable(ctx); err != nil {
				t.Errorf("CheckWritable once writable again: %v", err)
			}
		})
	}
}
