package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrNotWritable says the journal (its file or its folder) cannot be
// written: filebridge cannot record anything, so it processes nothing.
var ErrNotWritable = errors.New("the journal is not writable")

// notWritable wraps ErrNotWritable with what failed and what to do.
func notWritable(what, path string, err error) error {
	return fmt.Errorf("%w: %s %s: %v; make it writable by the user filebridge runs as (chmod, chown, chattr -i, or remount the disk read-write) or change journal.path",
		ErrNotWritable, what, path, err)
}

// CheckPath checks, without opening the database, that a journal at path
// can be written the way `run` writes it: the folder exists (or can be
// created) and is writable, since SQLite creates the -wal and -shm files
// beside the database, and the database file and those files, where they
// exist, are writable. `check` and Open use it, so they agree.
func CheckPath(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("checking journal %s: %w", path, err)
	}
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return notWritable("cannot create the folder", dir, err)
	}
	if err := canWrite(dir); err != nil {
		return notWritable("the folder", dir, err)
	}
	for _, p := range []string{abs, abs + "-wal", abs + "-shm"} {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return notWritable("cannot read", p, err)
		}
		if st.IsDir() {
			return notWritable("a folder is in the way of", p, errors.New("not a file"))
		}
		if err := canWrite(p); err != nil {
			return notWritable("the file", p, err)
		}
	}
	return nil
}

// probeEvery is how often CheckWritable also writes to the database while
// the last write went through; the file checks run every time.
const probeEvery = 5 * time.Second

// CheckWritable checks that the open journal can still be written: the
// file checks of CheckPath, and a one-row write transaction (at most every
// probeEvery while the journal is fine), which also catches a database
// SQLite had to open read-only or a disk that refuses writes.
func (d *DB) CheckWritable(ctx context.Context) error {
	if d.dl == sqliteDialect {
		if err := CheckPath(d.path); err != nil {
			return err
		}
	}
	d.probeMu.Lock()
	defer d.probeMu.Unlock()
	// The journal's clock is a wall clock: one set back probes again.
	if age := d.now().Sub(d.probedAt); !d.probedAt.IsZero() && age >= 0 && age < probeEvery {
		return nil
	}
	err := d.write(ctx, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at`, formatTime(d.now()))
		return err
	})
	if err != nil {
		d.probedAt = time.Time{}
		if ctx.Err() != nil {
			return err
		}
		if d.dl == postgresDialect {
			return fmt.Errorf("%w: writing to %s: %v; check that PostgreSQL runs, is not read-only (a standby) and grants this user INSERT and UPDATE", ErrNotWritable, d.path, err)
		}
		return notWritable("writing to", d.path, err)
	}
	d.probedAt = d.now()
	return nil
}
