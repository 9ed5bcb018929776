package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The journals of the release of commit f2cdbaa (schema version 1): its
// `filebridge demo --once --edition A` processed the twelve sample files of
// edition A into testdata/f2cdbaa.db (inbox "demo"); that release had no
// PostgreSQL backend, so testdata/f2cdbaa.pgsql is its schema (step 1,
// translated) holding the same rows, dumped with pg_dump.
const (
	oldSQLite   = "testdata/f2cdbaa.db"
	oldPostgres = "testdata/f2cdbaa.pgsql"
	oldFiles    = 12
)

// TestUpgradeFromF2cdbaa: a journal of that release is refused by the
// read-only opens with what to do, not an SQL error; a writer's Open
// migrates it; BackfillPortal gives its files their inbox's portal, so
// that a file processed before the upgrade is found again by its content
// (ProcessedHash: a duplicate dropped again is not submitted again).
func TestUpgradeFromF2cdbaa(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		var target string
		if backendOf(t) == "postgres" {
			target = pgDatabase(t)
			shared.cluster.Load(t, target, oldPostgres)
		} else {
			target = filepath.Join(t.TempDir(), "filebridge.db")
			data, err := os.ReadFile(oldSQLite)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(target, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, open := range []func() (*DB, error){
				func() (*DB, error) { return OpenReadOnly(ctx, target) },
				func() (*DB, error) { return OpenForNotes(ctx, target) },
			} {
				d, err := open()
				if !errors.Is(err, ErrSchemaOld) || !strings.Contains(err.Error(), "run `filebridge run` (or `filebridge process`) once to upgrade the journal") ||
					strings.Contains(err.Error(), "SQL") {
					if d != nil {
						_ = d.Close()
					}
					t.Fatalf("read-only open of a version 1 journal = %v; want ErrSchemaOld saying to run filebridge run once", err)
				}
			}
		}

		d := openTarget(t, target)
		files, err := d.Files(ctx, FileFilter{})
		if err != nil || len(files) != oldFiles {
			t.Fatalf("Files after the upgrade = %d files, %v; want %d", len(files), err, oldFiles)
		}
		sample, err := os.ReadFile("../../samples/A/good/SUPPLIERS_20260302.csv")
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(sample)
		const portal = "http://127.0.0.1:8080/api company 42"
		if _, found, err := d.ProcessedHash(ctx, "demo", portal, hex.EncodeToString(sum[:])); found || err != nil {
			t.Fatalf("ProcessedHash before the backfill = %v, %v; want not found (no portal recorded)", found, err)
		}
		if n, err := d.BackfillPortal(ctx, "demo", portal); n != oldFiles || err != nil {
			t.Fatalf("BackfillPortal = %d, %v; want %d", n, err, oldFiles)
		}
		if n, err := d.BackfillPortal(ctx, "demo", portal); n != 0 || err != nil {
			t.Fatalf("BackfillPortal again = %d, %v; want 0", n, err)
		}
		f, found, err := d.ProcessedHash(ctx, "demo", portal, hex.EncodeToString(sum[:]))
		if !found || err != nil || f.Name != "SUPPLIERS_20260302.csv" || f.State != FileDone {
			t.Fatalf("ProcessedHash of a sample processed before the upgrade = %+v, %v, %v; want SUPPLIERS_20260302.csv, done", f, found, err)
		}
		if backendOf(t) == "sqlite" {
			r, err := OpenReadOnly(ctx, target)
			if err != nil {
				t.Fatalf("OpenReadOnly after the upgrade: %v", err)
			}
			if got, err := r.Files(ctx, FileFilter{}); err != nil || len(got) != oldFiles {
				t.Errorf("read-only Files after the upgrade = %d, %v", len(got), err)
			}
			_ = r.Close()
		}
	})
}
