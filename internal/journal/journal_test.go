package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for UpdatedAt assertions.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func useClock(d *DB, t time.Time) *fakeClock {
	c := &fakeClock{t: t}
	d.now = c.now
	return c
}

// openAt opens a fresh journal of the test's backend (openTest) on a fake
// clock set to t0.
func openAt(t testing.TB, t0 time.Time) (*DB, *fakeClock) {
	t.Helper()
	d := openTest(t)
	return d, useClock(d, t0)
}

func TestOpenMigratesFromEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "journal.db") // parents do not exist yet
	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer d.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	var v int
	if err := d.r.db.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() || v != len(migrations) {
		t.Errorf("user_version = %d, want %d", v, SchemaVersion())
	}
	for _, table := range []string{"files", "documents", "cursors", "sequences", "export_runs"} {
		var n int
		err := d.r.db.QueryRowContext(t.Context(),
			"SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", table).Scan(&n)
		if err != nil || n != 1 {
			t.Errorf("table %s: count %d, err %v", table, n, err)
		}
	}
	var ok string
	if err := d.r.db.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check = %q, %v", ok, err)
	}
}

func TestPragmasTakeEffect(t *testing.T) {
	d := openTest(t)
	tests := []struct {
		name   string
		db     *sql.DB
		pragma string
		want   string
	}{
		{"writer journal_mode", d.w.db, "journal_mode", "wal"},
		{"writer synchronous", d.w.db, "synchronous", "2"}, // FULL
		{"writer busy_timeout", d.w.db, "busy_timeout", "10000"},
		{"writer foreign_keys", d.w.db, "foreign_keys", "1"},
		{"writer query_only", d.w.db, "query_only", "0"},
		{"reader journal_mode", d.r.db, "journal_mode", "wal"},
		{"reader synchronous", d.r.db, "synchronous", "2"},
		{"reader busy_timeout", d.r.db, "busy_timeout", "10000"},
		{"reader query_only", d.r.db, "query_only", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			if err := tt.db.QueryRowContext(t.Context(), "PRAGMA "+tt.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("PRAGMA %s = %q, want %q", tt.pragma, got, tt.want)
			}
		})
	}
	t.Run("writer has one connection", func(t *testing.T) {
		if got := d.w.db.Stats().MaxOpenConnections; got != 1 {
			t.Errorf("MaxOpenConnections = %d, want 1", got)
		}
	})
	t.Run("reader refuses writes", func(t *testing.T) {
		_, err := d.r.db.ExecContext(t.Context(), "INSERT INTO sequences (outbox, export, value) VALUES ('o', 'e', 1)")
		if err == nil {
			t.Fatal("write through a read-only connection succeeded")
		}
	})
}

func TestReopenKeepsData(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		ctx := t.Context()
		path := journalTarget(t)
		d, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		id := claimFile(t, d, File{Inbox: "in", Name: "A.csv", SHA256: "h"})
		if err := d.AddDocuments(ctx, id, []Document{{Key: "K1"}, {Key: "K2"}}); err != nil {
			t.Fatal(err)
		}
		if err := d.SaveCursor(ctx, Cursor{Outbox: "o", Export: "stock", Keys: []string{"x"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := d.NextSequence(ctx, "o", "stock"); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}

		d, err = Open(ctx, path)
		if err != nil {
			t.Fatalf("reopening: %v", err)
		}
		defer d.Close()
		f, err := d.File(ctx, id)
		if err != nil || f.Name != "A.csv" {
			t.Errorf("File after reopen = %+v, %v", f, err)
		}
		docs, err := d.Documents(ctx, id)
		if err != nil || len(docs) != 2 {
			t.Errorf("Documents after reopen = %+v, %v", docs, err)
		}
		if c, ok, err := d.Cursor(ctx, "o", "stock"); err != nil || !ok || len(c.Keys) != 1 {
			t.Errorf("Cursor after reopen = %+v, %v, %v", c, ok, err)
		}
		if n, err := d.NextSequence(ctx, "o", "stock"); err != nil || n != 2 {
			t.Errorf("NextSequence after reopen = %d, %v; want 2", n, err)
		}
	})
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "journal.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	future := SchemaVersion() + 1
	if _, err := d.w.db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", future)); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open of a newer schema: err = %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("version %d", future)) || !strings.Contains(err.Error(), "upgrade filebridge") {
		t.Errorf("error does not say what and what to do: %v", err)
	}
}

func TestMigrateSteps(t *testing.T) {
	ctx := t.Context()
	steps := []migration{
		{name: "one", sql: "CREATE TABLE t1 (a INTEGER); CREATE TABLE t2 (b INTEGER);"},
		{name: "two", sql: "ALTER TABLE t1 ADD COLUMN c TEXT NOT NULL DEFAULT 'x';"},
	}
	broken := append(steps[:2:2], migration{name: "broken", sql: "CREATE TABLE t3 (a INTEGER); SELECT * FROM nowhere;"})

	db, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "m.db"), false))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	defer db.Close()
	version := func() int {
		var v int
		if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	tableExists := func(name string) bool {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = ?", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	tests := []struct {
		name        string
		steps       []migration
		wantErr     bool
		wantVersion int
		wantT3      bool
	}{
		{"first step only", steps[:1], false, 1, false},
		{"second step on top", steps, false, 2, false},
		{"again is a no-op", steps, false, 2, false},
		{"failing step rolls back", broken, true, 2, false},
		{"fewer known steps than applied", steps[:1], true, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := migrate(ctx, func(ctx context.Context) (*txn, error) {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					return nil, err
				}
				return &txn{Tx: tx, dl: sqliteDialect}, nil
			}, tt.steps)
			if (err != nil) != tt.wantErr {
				t.Fatalf("migrate: err = %v, wantErr %v", err, tt.wantErr)
			}
			if got := version(); got != tt.wantVersion {
				t.Errorf("user_version = %d, want %d", got, tt.wantVersion)
			}
			if got := tableExists("t3"); got != tt.wantT3 {
				t.Errorf("table t3 exists = %v, want %v", got, tt.wantT3)
			}
		})
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t1 (a) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	var c string
	if err := db.QueryRowContext(ctx, "SELECT c FROM t1").Scan(&c); err != nil || c != "x" {
		t.Errorf("column from step two: %q, %v", c, err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	notDB := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
	}{
		{"empty path", ""},
		{"question mark", filepath.Join(dir, "a?b.db")},
		{"parent is a file", filepath.Join(blocker, "journal.db")},
		{"not a database", notDB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Open(t.Context(), tt.path)
			if err == nil {
				d.Close()
				t.Fatal("Open succeeded")
			}
		})
	}
}

func TestTimeRoundTrip(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	tests := []time.Time{
		{},
		time.Date(2026, 11, 21, 10, 4, 5, 123456789, time.UTC),
		time.Date(2026, 3, 29, 2, 30, 0, 1, paris),
		time.Now(), // carries a monotonic reading
		time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", -7*3600-30*60)),
	}
	for _, in := range tests {
		t.Run(in.String(), func(t *testing.T) {
			out, err := parseTime(formatTime(in))
			if err != nil {
				t.Fatal(err)
			}
			if !out.Equal(in) || out.Location() != time.UTC {
				t.Errorf("round trip of %v gave %v", in, out)
			}
		})
	}
	t.Run("stored text sorts as time", func(t *testing.T) {
		a := formatTime(time.Date(2026, 1, 1, 0, 0, 0, 9, time.UTC))
		b := formatTime(time.Date(2026, 1, 1, 0, 0, 0, 10, time.UTC))
		if a >= b {
			t.Errorf("%q >= %q", a, b)
		}
	})
}

func TestClosedDBErrors(t *testing.T) {
	d, err := Open(context.Background(), filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ClaimFile(t.Context(), File{Inbox: "i", Name: "n"}); err == nil {
		t.Error("ClaimFile on a closed journal succeeded")
	}
	if _, err := d.RecentFiles(t.Context(), "", 0); err == nil {
		t.Error("RecentFiles on a closed journal succeeded")
	}
}

// TestCheckWritableProbesOnTheClock: the write probe runs at most every
// probeEvery of the journal's clock (and again when that clock is set
// back), and records that clock's time.
func TestCheckWritableProbesOnTheClock(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		t0 := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		d, clock := openAt(t, t0)
		ctx := t.Context()
		for _, step := range []struct{ at, probed time.Time }{
			{at: t0, probed: t0},
			{at: t0.Add(probeEvery - time.Second), probed: t0},
			{at: t0.Add(probeEvery), probed: t0.Add(probeEvery)},
			{at: t0, probed: t0}, // the clock was set back
		} {
			clock.set(step.at)
			if err := d.CheckWritable(ctx); err != nil {
				t.Fatalf("CheckWritable at %s: %v", step.at, err)
			}
			var at string
			if err := d.r.QueryRowContext(ctx, `SELECT at FROM probe WHERE id = 1`).Scan(&at); err != nil {
				t.Fatal(err)
			}
			if want := formatTime(step.probed); at != want {
				t.Errorf("after CheckWritable at %s, probe at = %s, want %s", step.at, at, want)
			}
		}
	})
}
