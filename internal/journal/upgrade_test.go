package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestUpgradeOneRunHistory: the step that makes export_runs the one
// history moves a journal's export_ticks over, SQLite and PostgreSQL
// alike: the run of a claimed tick takes the tick's record (one row, its
// id, and so its kept copy, unchanged), a tick without a run (skipped)
// becomes a row of its own, and the claims go on working on the one table.
func TestUpgradeOneRunHistory(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		target := journalTarget(t)
		old := openBeforeLastStep(t, target)
		at := func(h, m, s int) string { return formatTime(time.Date(2026, 11, 20, h, m, s, 0, time.UTC)) }
		var ids []int64
		run := func(export, started, finished string, rows int, file, runErr string, resentFrom int64) {
			t.Helper()
			var id int64
			if err := old.w.QueryRowContext(ctx, `INSERT INTO export_runs (outbox, export, started_at, finished_at, row_count,
				file_name, error, resent_from) VALUES ('erp', ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				export, started, finished, rows, file, runErr, resentFrom).Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		tick := func(tk, state, owner, claimed, finished string, attempts, rows int, file, msg string) {
			t.Helper()
			if _, err := old.w.ExecContext(ctx, `INSERT INTO export_ticks (outbox, export, tick, state, owner, lease_until,
				claimed_at, finished_at, attempts, row_count, file_name, message) VALUES ('erp', 'shipments', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				tk, state, owner, claimed, claimed, finished, attempts, rows, file, msg); err != nil {
				t.Fatal(err)
			}
		}
		run("stock", at(1, 0, 0), at(1, 0, 5), 3, "STOCK_1.csv", "", 0) // one instance, no tick
		if err := old.KeepCopy(ctx, ids[0], 10, []byte("gz")); err != nil {
			t.Fatal(err)
		}
		tick(at(2, 0, 0), "done", "i1", at(2, 0, 0), at(2, 0, 4), 1, 5, "SHIP_1.csv", "")
		run("shipments", at(2, 0, 1), at(2, 0, 3), 5, "SHIP_1.csv", "", 0)
		tick(at(2, 15, 0), "skipped", "i2", at(2, 15, 0), at(2, 15, 0), 1, 0, "", "the run of tick 02:00 was still going on at instance i1")
		tick(at(2, 30, 0), "failed", "i2", at(2, 30, 0), at(2, 30, 2), 1, 0, "", "portal down")
		run("shipments", at(2, 30, 1), at(2, 30, 2), 0, "", "portal down", 0)
		// i1 died during the run of 03:00; i2 took it over at 03:10.
		tick(at(3, 0, 0), "done", "i2", at(3, 10, 0), at(3, 11, 0), 2, 6, "SHIP_2.csv", "taken over from instance i1")
		run("shipments", at(3, 0, 1), "", 0, "", "", 0)
		run("shipments", at(3, 10, 1), at(3, 10, 59), 6, "SHIP_2.csv", "", 0)
		run("stock", at(4, 0, 0), at(4, 0, 0), 3, "STOCK_1.1.csv", "", ids[0]) // a re-send
		if err := old.Close(); err != nil {
			t.Fatal(err)
		}

		d := openTarget(t, target)
		var n int
		if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM export_ticks`).Scan(&n); err == nil {
			t.Errorf("export_ticks is still there after the step (%d rows)", n)
		}
		runs, err := d.RecentRuns(ctx, "", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 7 {
			t.Fatalf("%d runs after the step, want 7 (6 runs, and the skipped tick): %+v", len(runs), runs)
		}
		ticks, err := d.Ticks(ctx, "erp", "shipments", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []ExportRun{
			{ID: ids[4], Tick: time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC), State: RunDone, Owner: "i2", Attempts: 2, Rows: 6, FileName: "SHIP_2.csv", Note: "taken over from instance i1"},
			{ID: ids[2], Tick: time.Date(2026, 11, 20, 2, 30, 0, 0, time.UTC), State: RunFailed, Owner: "i2", Attempts: 1, Error: "portal down"},
			{Tick: time.Date(2026, 11, 20, 2, 15, 0, 0, time.UTC), State: RunSkipped, Owner: "i2", Attempts: 1, Note: "the run of tick 02:00 was still going on at instance i1"},
			{ID: ids[1], Tick: time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC), State: RunDone, Owner: "i1", Attempts: 1, Rows: 5, FileName: "SHIP_1.csv"},
		}
		if len(ticks) != len(want) {
			t.Fatalf("ticks after the step = %+v; want %d", ticks, len(want))
		}
		for i, w := range want {
			g := ticks[i]
			if w.ID != 0 && g.ID != w.ID || !g.Tick.Equal(w.Tick) || g.State != w.State || g.Owner != w.Owner || g.Attempts != w.Attempts ||
				g.Rows != w.Rows || g.FileName != w.FileName || g.Error != w.Error || g.Note != w.Note || g.FinishedAt.IsZero() {
				t.Errorf("tick %d after the step = %+v\nwant %+v", i, g, w)
			}
		}
		dead, err := d.Run(ctx, ids[3])
		if err != nil || !dead.Tick.IsZero() || dead.State != RunRunning {
			t.Errorf("the run of the dead instance = %+v, %v; want left as it was, running, no tick", dead, err)
		}
		if r, err := d.Run(ctx, ids[5]); err != nil || r.State != RunDone || r.ResentFrom != ids[0] {
			t.Errorf("the re-send = %+v, %v; want done, from run %d", r, err, ids[0])
		}
		if _, size, err := d.Copy(ctx, ids[0]); err != nil || size != 10 {
			t.Errorf("the kept copy of run %d = %d, %v", ids[0], size, err)
		}
		s, err := d.ExportSummary(ctx, "erp", "shipments")
		if err != nil || s.Last.ID != ids[4] || s.LastSuccess.ID != ids[4] || s.LastError.ID != ids[2] {
			t.Errorf("summary after the step = last %d, success %d, error %d, %v; want %d, %d, %d",
				s.Last.ID, s.LastSuccess.ID, s.LastError.ID, err, ids[4], ids[4], ids[2])
		}
		// The claims go on on the one table: a tick recorded before the step
		// is not claimed again, a new one is.
		if got, won, err := d.ClaimTick(ctx, "erp", "shipments", time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)); won || err != nil || got.ID != ids[1] {
			t.Errorf("ClaimTick of a tick moved over = %+v, %v, %v; want its record, not won", got, won, err)
		}
		if _, won, err := d.ClaimTick(ctx, "erp", "shipments", time.Date(2026, 11, 20, 3, 15, 0, 0, time.UTC)); !won || err != nil {
			t.Errorf("ClaimTick of a new tick = %v, %v; want won", won, err)
		}
	})
}

// openBeforeLastStep opens the journal at target as the release before
// the last schema step.
func openBeforeLastStep(tb testing.TB, target string) *DB {
	tb.Helper()
	all := migrations
	migrations = all[:len(all)-1]
	old, err := Open(tb.Context(), target)
	migrations = all
	if err != nil {
		tb.Fatal(err)
	}
	return old
}

// BenchmarkUpgradeOneRunHistory times the step that moves export_ticks
// into export_runs on a journal of 20,000 scheduled runs of one export
// (two weeks of a run a minute), each a tick and the run that ended it:
// every match is an index seek, not a scan of the export's ticks.
func BenchmarkUpgradeOneRunHistory(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			ctx := b.Context()
			const n = 20000
			t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for b.Loop() {
				b.StopTimer()
				target := journalTarget(b)
				old := openBeforeLastStep(b, target)
				err := old.write(ctx, func(tx *txn) error {
					for i := range n {
						at := t0.Add(time.Duration(i) * time.Minute)
						if _, err := tx.ExecContext(ctx, `INSERT INTO export_ticks (outbox, export, tick, state, owner, lease_until,
							claimed_at, finished_at, row_count, file_name) VALUES ('erp', 'stock', ?, 'done', 'i1', ?, ?, ?, 1, 'STOCK.csv')`,
							formatTime(at), formatTime(at), formatTime(at), formatTime(at.Add(5*time.Second))); err != nil {
							return err
						}
						if _, err := tx.ExecContext(ctx, `INSERT INTO export_runs (outbox, export, started_at, finished_at, row_count, file_name)
							VALUES ('erp', 'stock', ?, ?, 1, 'STOCK.csv')`, formatTime(at.Add(time.Second)), formatTime(at.Add(4*time.Second))); err != nil {
							return err
						}
					}
					return nil
				})
				if cerr := old.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				d, err := Open(ctx, target)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if runs, err := d.RecentRuns(ctx, "erp", "stock", 0); err != nil || len(runs) != n {
					b.Fatalf("%d runs after the step, %v; want %d", len(runs), err, n)
				}
				_ = d.Close()
				b.StartTimer()
			}
		})
	}
}
