// Package journal owns filebridge's durable state, kept in one SQLite file
// or, for several instances sharing it, one PostgreSQL database:
// every claimed inbound file (content hash, where it stands, how many of its
// documents went through), every document of those files (key, source rows,
// outcome, the id the portal gave it), and for the outboxes their cursors,
// file sequence numbers and past runs. Reports and health read from here.
//
// The database runs in WAL mode with synchronous=FULL, so a call that
// returned nil has its change on disk. Writes go through a single connection
// (one writer per process, transactions begun IMMEDIATE); reads use a small
// separate pool of read-only connections and never wait for the writer.
// On PostgreSQL (postgres.go) reads and writes share one pool, the schema
// is migrated under an advisory lock, and files carry leases (lease.go) so
// that instances share the work.
package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// busyTimeout is how long a connection waits for a lock held by another
// process (for example `filebridge status` while the daemon runs).
const busyTimeout = 10 * time.Second

// maxReaders bounds the read-only connection pool.
const maxReaders = 4

// ErrNotFound is returned when a file, document or run does not exist.
var ErrNotFound = errors.New("not found in the journal")

// ErrSchemaTooNew is returned by Open when the database was written by a
// newer filebridge than this one.
var ErrSchemaTooNew = errors.New("journal schema is newer than this filebridge")

// ErrSchemaOld is returned by OpenReadOnly when the file was written by an
// older filebridge and is not upgraded yet (only a writer migrates it).
var ErrSchemaOld = errors.New("the journal was written by an older filebridge")

// DB is an open journal. It is safe for concurrent use.
type DB struct {
	path     string // the SQLite file, or the PostgreSQL URL without password
	dl       dialect
	w        conn // SQLite: the single writer connection; PostgreSQL: the pool
	r        conn // SQLite: read-only connections; PostgreSQL: the same pool
	instance string
	lease    time.Duration // how long a claim stays this instance's without renewal
	now      func() time.Time

	group group // SQLite: the writes waiting for a commit

	probeMu  sync.Mutex
	probedAt time.Time // last write probe that went through (CheckWritable)

	instLock atomic.Pointer[instanceLock] // PostgreSQL: this process's instance lock (HoldInstance)
}

// utcNow is a journal's clock unless a test sets another.
func utcNow() time.Time { return time.Now().UTC() }

// Open opens the journal at path, creating the file and its parent directory
// when missing, and migrates its schema to the current version. A database
// whose schema is newer than this code knows is refused with ErrSchemaTooNew;
// one that cannot be written (CheckPath) with ErrNotWritable.
//
// A path that is a postgres:// or postgresql:// URL opens PostgreSQL
// instead (see OpenWith).
func Open(ctx context.Context, path string) (*DB, error) {
	if isPostgresURL(path) {
		return OpenWith(ctx, Options{URL: path})
	}
	return OpenWith(ctx, Options{Path: path})
}

func openSQLite(ctx context.Context, path, instance string, lease time.Duration) (*DB, error) {
	if path == "" {
		return nil, errors.New("opening journal: no path given: set path in the [journal] table of the config (e.g. \"var/filebridge.db\")")
	}
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("opening journal %s: the path must not contain '?': choose a [journal] path without it", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening journal %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o750); err != nil {
		return nil, fmt.Errorf("opening journal %s: creating its folder: %w", abs, err)
	}
	if err := CheckPath(abs); err != nil {
		return nil, fmt.Errorf("opening journal %s: %w", abs, err)
	}

	w, err := openPool(abs, false)
	if err != nil {
		return nil, fmt.Errorf("opening journal %s: %w", abs, err)
	}
	d := &DB{path: abs, dl: sqliteDialect, w: conn{w, sqliteDialect, newStmtCache()}, instance: instance, lease: lease, now: utcNow}

	if err := w.PingContext(ctx); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("opening journal %s: %w", abs, err)
	}
	unprepared := conn{db: w, dl: sqliteDialect} // the schema steps run once
	if err := migrate(ctx, func(ctx context.Context) (*txn, error) { return unprepared.BeginTx(ctx, nil) }, migrations); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("migrating journal %s: %w", abs, err)
	}

	r, err := openPool(abs, true)
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("opening journal %s for reading: %w", abs, err)
	}
	if err := r.PingContext(ctx); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, fmt.Errorf("opening journal %s for reading: %w", abs, err)
	}
	d.r = conn{db: r, dl: sqliteDialect, stmts: newStmtCache()}
	return d, nil
}

// openPool opens the SQLite file abs for writing, on one connection, or
// for reading only, on maxReaders.
func openPool(abs string, readOnly bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(abs, readOnly))
	if err != nil {
		return nil, err
	}
	n := 1
	if readOnly {
		n = maxReaders
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	return db, nil
}

// dsn builds the modernc.org/sqlite data source name: a plain path followed
// by _pragma parameters, which the driver runs on every new connection.
func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		// Writers take the write lock when the transaction begins, so the
		// busy timeout applies instead of a deferred upgrade failing at
		// once with SQLITE_BUSY.
		q.Set("_txlock", "immediate")
	}
	return path + "?" + q.Encode()
}

// Path is the absolute path of the database file, or for PostgreSQL the
// URL without its password (fit for logs).
func (d *DB) Path() string { return d.path }

// Backend is "sqlite" or "postgres".
func (d *DB) Backend() string { return d.dl.String() }

// Shared reports whether several instances may use the journal at once
// (PostgreSQL); a SQLite journal has one owner (AcquireLock).
func (d *DB) Shared() bool { return d.dl == postgresDialect }

// Close closes the journal. The last connection to close checkpoints the
// write-ahead log into the database file.
func (d *DB) Close() error {
	var errs []error
	if d.r.db != nil && d.r.db != d.w.db {
		errs = append(errs, d.r.stmts.close(), d.r.db.Close())
	}
	errs = append(errs, d.w.stmts.close(), d.w.db.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing journal %s: %w", d.path, err)
	}
	return nil
}

// exec runs one write statement through write, committed with the writes
// that come at the same time (group.go).
func (d *DB) exec(ctx context.Context, q string, args ...any) (res sql.Result, err error) {
	if d.dl != sqliteDialect {
		d.group.writes.Add(1) // one statement, one transaction
		d.group.commits.Add(1)
		d.group.statements.Add(1)
		return d.w.ExecContext(ctx, q, args...)
	}
	err = d.write(ctx, func(tx *txn) error {
		res, err = tx.ExecContext(ctx, q, args...)
		return err
	})
	return res, err
}

// timeLayout is RFC 3339 with a fixed nine-digit fraction, so that stored
// UTC times sort as text and round-trip to the nanosecond.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("reading stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// timeCol scans a stored time (see parseTime) into *t.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("reading stored time: unexpected %T", src)
	}
	t, err := parseTime(s)
	*c.t = t
	return err
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// found turns the sql.ErrNoRows of a one-row read into ok false.
func found(err error) (ok bool, _ error) {
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// notFound turns the sql.ErrNoRows of a one-row read into ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// affected is how many rows the statement that returned res and err
// changed.
func affected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// affectedOne reports ErrNotFound when an update touched no row.
func affectedOne(res sql.Result, err error) error {
	n, err := affected(res, err)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return err
}

// inList is the SQL list of n > 0 placeholders: "(?, ?, ?)".
func inList(n int) string { return "(?" + strings.Repeat(", ?", n-1) + ")" }

// anys is xs as query arguments.
func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// containing is the LIKE pattern (ESCAPE '\') of text that contains s.
func containing(s string) string {
	return "%" + likeEscaper.Replace(s) + "%"
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// inChunks calls fn with the keys a chunk at a time, well under SQLite's
// bound-parameter limit.
func inChunks(keys []string, fn func(part []string) error) error {
	const chunk = 500
	for start := 0; start < len(keys); start += chunk {
		if err := fn(keys[start:min(start+chunk, len(keys))]); err != nil {
			return err
		}
	}
	return nil
}
