package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// DefaultLease is how long a claimed file stays with the instance that
// claimed it without that instance renewing the lease: after it, another
// instance sharing the journal may take the file over (TakeOver).
const DefaultLease = 30 * time.Second

// Lease says which instance holds an open file and until when.
type Lease struct {
	FileID int64
	Inbox  string
	Name   string
	Path   string
	State  FileState
	Owner  string    // instance name (Options.Instance); "" for claims older than leases
	Until  time.Time // zero for claims older than leases: expired
}

// Expired reports whether the lease ran out at now.
func (l Lease) Expired(now time.Time) bool { return !l.Until.After(now) }

// openStates is the SQL list of the states of a file still being worked on.
const openStates = `('claimed', 'submitting')`

// Lease is how long this instance's claims last without renewal.
func (d *DB) Lease() time.Duration { return d.lease }

// Now is the journal's clock: the time leases are measured against.
func (d *DB) Now() time.Time { return d.now() }

// RenewLeases extends the lease of every open file this instance holds to
// Lease from now, and returns how many it holds. An instance renews well
// within Lease (every Lease/3) while it works; a file it no longer holds
// (taken over after its lease ran out) is not renewed, so the count tells
// it. Every write here is one conditional UPDATE: atomic on both backends.
func (d *DB) RenewLeases(ctx context.Context) (int64, error) {
	return d.setLeases(ctx, fileLeases, d.now().Add(d.lease), "renewing the leases")
}

// fileLeases sets the end of the leases of an instance's open files.
const fileLeases = `UPDATE files SET lease_until = ? WHERE owner = ? AND state IN ` + openStates

// setLeases sets the end of this instance's leases the update q names
// (its arguments: until, the instance) and returns how many it changed;
// doing names the change in errors.
func (d *DB) setLeases(ctx context.Context, q string, until time.Time, doing string) (int64, error) {
	n, err := affected(d.w.ExecContext(ctx, q, formatTime(until), d.instance))
	if err != nil {
		return 0, fmt.Errorf("%s of instance %s: %w", doing, d.instance, err)
	}
	return n, nil
}

// ReleaseLeases ends this instance's leases now, for a clean stop once its
// work is done: the other instances take its open files over at their next
// poll instead of after the lease. It returns how many it released.
func (d *DB) ReleaseLeases(ctx context.Context) (int64, error) {
	return d.setLeases(ctx, fileLeases, d.now(), "releasing the leases")
}

// Holds reports whether this instance holds the open file id with a lease
// that has not run out: a worker checks it before each step that must be
// done once (sending a document), and stops when it lost the file.
func (d *DB) Holds(ctx context.Context, id int64) (bool, error) {
	var n int
	err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM files
		WHERE id = ? AND owner = ? AND lease_until > ? AND state IN `+openStates,
		id, d.instance, formatTime(d.now())).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("checking the lease of file %d: %w", id, err)
	}
	return n == 1, nil
}

// TakeOver makes this instance the holder of the open file id if its lease
// has run out, and reports whether it did. The check and the change are
// one UPDATE ... WHERE lease_until <= now: of several instances trying at
// once exactly one wins (PostgreSQL re-checks the condition on the locked
// row; SQLite has one writer at a time). The winner resumes the file from
// the journal, looking its documents up before sending any again.
func (d *DB) TakeOver(ctx context.Context, id int64) (bool, error) {
	now := d.now()
	n, err := affected(d.w.ExecContext(ctx, `UPDATE files SET owner = ?, lease_until = ?, updated_at = ?
		WHERE id = ? AND lease_until <= ? AND state IN `+openStates,
		d.instance, formatTime(now.Add(d.lease)), formatTime(now), id, formatTime(now)))
	if err != nil {
		return false, fmt.Errorf("taking over file %d: %w", id, err)
	}
	return n == 1, nil
}

// Leases lists the open files of the inbox ("" for all) with who holds
// them and until when, oldest claim first: for status and for finding
// files to take over (Lease.Expired).
func (d *DB) Leases(ctx context.Context, inbox string) ([]Lease, error) {
	out, err := queryAll(ctx, d.r, scanLease, `SELECT `+leaseColumns+` FROM files`+byInbox(inbox)+
		` AND state IN `+openStates+` ORDER BY id`, inboxArgs(inbox)...)
	if err != nil {
		return nil, fmt.Errorf("listing the leases of inbox %q: %w", inbox, err)
	}
	return out, nil
}

const leaseColumns = `id, inbox, name, path, state, owner, lease_until`

func scanLease(sc scanner) (Lease, error) {
	var l Lease
	err := sc.Scan(&l.FileID, &l.Inbox, &l.Name, &l.Path, &l.State, &l.Owner, timeCol{&l.Until})
	return l, err
}

// ErrClaimed is returned by ClaimExclusive when the file is already an
// open file of the journal (another instance, or this one, recorded it).
var ErrClaimed = errors.New("already claimed in the journal")

// ClaimedError says which open file holds the path, and who holds it.
type ClaimedError struct{ Lease Lease }

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("%s of inbox %s is file %d, held by instance %s until %s: %v",
		e.Lease.Path, e.Lease.Inbox, e.Lease.FileID, e.Lease.Owner, formatTime(e.Lease.Until), ErrClaimed)
}

func (e *ClaimedError) Is(target error) bool { return target == ErrClaimed }

// ClaimExclusive records f like ClaimFile, unless an open file of the
// same inbox already has f.Path: then it fails with a *ClaimedError
// (errors.Is ErrClaimed) naming it. Of several instances recording the
// same processing/ file at once exactly one succeeds. On PostgreSQL the
// transaction first takes the row of (inbox, path) in claim_locks (an
// upsert, locked until commit); SQLite has one writer at a time and one
// process per journal, so there the insert that looks for an open file
// of the path (claimFree) is enough.
func (d *DB) ClaimExclusive(ctx context.Context, f File) (int64, error) {
	if err := checkClaim(&f, f.Path == "", "inbox, name and path"); err != nil {
		return 0, err
	}
	var id int64
	err := d.write(ctx, func(tx *txn) error {
		if d.Shared() {
			if _, err := tx.ExecContext(ctx, `INSERT INTO claim_locks (inbox, path) VALUES (?, ?)
				ON CONFLICT (inbox, path) DO UPDATE SET n = claim_locks.n + 1`, f.Inbox, f.Path); err != nil {
				return err
			}
		}
		err := tx.QueryRowContext(ctx, claimFree, append(d.fileInsertArgs(f), f.Inbox, f.Path)...).Scan(&id)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		l, err := scanLease(tx.QueryRowContext(ctx, `SELECT `+leaseColumns+` FROM files
			WHERE inbox = ? AND path = ? AND state IN `+openStates+` ORDER BY id LIMIT 1`, f.Inbox, f.Path))
		if err != nil {
			return err
		}
		return &ClaimedError{Lease: l}
	})
	if err != nil {
		return 0, fmt.Errorf("claiming %s in the journal: %w", f.Path, err)
	}
	return id, nil
}

// claimFree inserts a file (fileInsertArgs, then its inbox and path) unless
// an open file of the inbox has its path, in one statement: a claim that
// finds the path free, as most do, reads nothing before it writes. The
// integer columns are cast: PostgreSQL types a bare parameter of a SELECT
// as text.
const claimFree = fileInsert + ` SELECT ?, ?, ?, CAST(? AS BIGINT), ?, ?, ?,
		CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), ?, ?, ?, ?, ?, ?,
		?, ?, ?, ?
	WHERE NOT EXISTS (SELECT 1 FROM files WHERE inbox = ? AND path = ? AND state IN ` + openStates + `) RETURNING id`

// KeepLeases renews this instance's leases (RenewLeases) at every beat of
// the channel until ctx ends; give it a ticker of Lease/3. A failed
// renewal is logged and retried at the next beat: the lease has room for
// two misses.
func (d *DB) KeepLeases(ctx context.Context, every <-chan time.Time, log *slog.Logger) {
	onBeats(ctx, every, func() {
		if _, err := d.RenewLeases(ctx); err != nil && ctx.Err() == nil {
			log.Warn("renewing the leases of this instance's files failed; retrying at the next beat",
				"instance", d.instance, "journal", d.path, "lease", d.lease, "error", err)
		}
	})
}

// onBeats calls fn at every beat of the channel until ctx ends.
func onBeats(ctx context.Context, every <-chan time.Time, fn func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-every:
			fn()
		}
	}
}
