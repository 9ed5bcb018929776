package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"filebridge/internal/redact"
)

// Options say which journal to open.
type Options struct {
	// Path is the SQLite file (the default backend).
	Path string
	// URL, when set, is a postgres:// or postgresql:// URL: the journal is
	// that PostgreSQL database, shared by every instance using it.
	URL string
	// Password for URL, kept out of it so that the URL can be logged. It
	// replaces a password written in the URL.
	Password string
	// Instance names this process in leases (lease.go); empty means
	// "<host>-<pid>-<random>".
	Instance string
	// Lease is how long a claim stays this instance's without renewal
	// (lease.go); zero means DefaultLease.
	Lease time.Duration
	// Now replaces the clock of leases and timestamps (tests); nil means
	// time.Now.
	Now func() time.Time
}

// poolSize bounds the connections an instance opens to PostgreSQL.
const poolSize = 8

// migrateLockKey is the pg_advisory_lock key under which an instance
// migrates the schema, so that instances starting at once take turns.
const migrateLockKey int64 = 0x66627269_64676501 // "fbridge", 1

// OpenWith opens the journal the options name: PostgreSQL when URL is set,
// else the SQLite file at Path (see Open).
func OpenWith(ctx context.Context, o Options) (*DB, error) {
	if o.Instance == "" {
		o.Instance = defaultInstance()
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	var d *DB
	var err error
	if o.URL == "" {
		d, err = openSQLite(ctx, o.Path, o.Instance, o.Lease)
	} else {
		d, err = openPostgres(ctx, o)
	}
	if err == nil && o.Now != nil {
		d.now = func() time.Time { return o.Now().UTC() }
	}
	return d, err
}

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

func openPostgres(ctx context.Context, o Options) (*DB, error) {
	shown := redact.URL(o.URL)
	if !isPostgresURL(o.URL) {
		return nil, fmt.Errorf("opening journal %s: the url must start with postgres:// or postgresql://", shown)
	}
	cfg, err := o.pgConfig()
	if err != nil {
		return nil, fmt.Errorf("opening journal %s: %w", shown, err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(poolSize)
	db.SetMaxIdleConns(poolSize)
	db.SetConnMaxIdleTime(5 * time.Minute)
	c := conn{db: db, dl: postgresDialect}
	d := &DB{path: shown, dl: postgresDialect, w: c, r: c, instance: o.Instance, lease: o.Lease,
		now: utcNow}
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("opening journal %s: %w"+pgHint, shown, err)
	}
	if err := migratePostgres(ctx, db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrating journal %s: %w", shown, err)
	}
	return d, nil
}

// migratePostgres migrates the schema on one connection holding the
// advisory lock migrateLockKey: an instance starting while another
// migrates waits, then finds the schema current.
func migratePostgres(ctx context.Context, db *sql.DB) (err error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrateLockKey); err != nil {
		_ = c.Close()
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	defer func() {
		// The lock must go even when ctx ended: unlockSession has its own.
		if uerr := unlockSession(c, migrateLockKey); uerr != nil && err == nil {
			err = fmt.Errorf("releasing the migration lock: %w", uerr)
		}
	}()
	if _, err := c.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS journal_schema (
		id      INTEGER PRIMARY KEY CHECK (id = 1),
		version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("creating the schema version table: %w", err)
	}
	begin := func(ctx context.Context) (*txn, error) {
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &txn{Tx: tx, dl: postgresDialect}, nil
	}
	return migrate(ctx, begin, migrations)
}

// pgHint follows an error connecting to PostgreSQL.
const pgHint = " (check that PostgreSQL runs there and the user, password and database are right)"

// pgConfig reads the URL, with Password in place of one written in it.
func (o Options) pgConfig() (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(o.URL)
	if err != nil {
		// pgx's message may quote the URL: do not repeat it.
		return nil, errors.New("the url cannot be read: check its form (postgres://user@host:5432/db?sslmode=...)")
	}
	if o.Password != "" {
		cfg.Password = o.Password
	}
	return cfg, nil
}

// defaultInstance names this process: host, pid and a random suffix, so
// that a restarted process with a recycled pid is still another instance.
func defaultInstance() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "host"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Instance is the name this process uses in leases.
func (d *DB) Instance() string { return d.instance }

// Ping connects to the PostgreSQL journal the options name and runs one
// query, without migrating anything (for `check`, which must not change a
// journal others run on).
func Ping(ctx context.Context, o Options) error {
	shown := redact.URL(o.URL)
	cfg, err := o.pgConfig()
	if err != nil {
		return fmt.Errorf("journal %s: %w", shown, err)
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("journal %s: %w"+pgHint, shown, err)
	}
	defer c.Close(context.WithoutCancel(ctx))
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("journal %s: %w", shown, err)
	}
	return nil
}
