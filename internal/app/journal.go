package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/config"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

// InstanceEnv names the environment variable that names this instance in
// a shared journal (leases, export ticks, the console's instances); unset,
// the name is "<host>-<pid>-<random>".
const InstanceEnv = "FILEBRIDGE_INSTANCE"

// JournalOptions are the journal.Options of cfg: the SQLite file, or the
// PostgreSQL database with its resolved password.
func JournalOptions(cfg *config.Config) journal.Options {
	return journal.Options{Path: cfg.Journal.Path, URL: cfg.Journal.URL, Password: cfg.Journal.Password.Value(),
		Lease: cfg.Journal.Lease.Duration, Instance: os.Getenv(InstanceEnv)}
}

// OpenJournal opens cfg's journal.
func OpenJournal(ctx context.Context, cfg *config.Config) (*journal.DB, error) {
	return journal.OpenWith(ctx, JournalOptions(cfg))
}

// AcquireJournalLock takes the lock file of a SQLite journal (one owner
// per file). A PostgreSQL journal is shared by every instance: no lock,
// nil (whose Release does nothing).
func AcquireJournalLock(cfg *config.Config) (*journal.Lock, error) {
	if cfg.Journal.Postgres() {
		return nil, nil
	}
	return journal.AcquireLock(cfg.Journal.Path)
}

// LockJournal makes this process the one owner of cfg's journal (a lock
// file beside it) for as long as it runs. When another filebridge holds
// it, the error names that process's PID and says what to do.
func LockJournal(cfg *config.Config) (*journal.Lock, error) {
	lock, err := AcquireJournalLock(cfg)
	var le *journal.LockedError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("another filebridge is already running on journal %s (%s): only one process may own a journal; stop it first, or give this config another [journal] path in %s: %w",
			cfg.Journal.Path, PIDText(le.PID), cfg.File, err)
	}
	return lock, err
}

// PIDText names the process holding a journal lock: "PID 42".
func PIDText(pid int) string {
	if pid <= 0 {
		return "PID unknown"
	}
	return fmt.Sprintf("PID %d", pid)
}

// BackfillPortal gives the files of the inbox recorded by a filebridge
// older than the portal identity (an upgraded journal) the identity of the
// inbox's portal pc, so that a file processed before the upgrade is
// recognised as a duplicate when dropped again (journal.DB.BackfillPortal).
func BackfillPortal(ctx context.Context, j *journal.DB, inbox string, pc *portal.Client, log *slog.Logger) error {
	n, err := j.BackfillPortal(ctx, inbox, pc.Identity())
	if err != nil {
		return err
	}
	if n > 0 {
		log.Info("files recorded before the upgrade now carry their portal, for duplicate detection", "inbox", inbox, "files", n)
	}
	return nil
}

// OpenJournalReadOnly opens cfg's journal for the commands that only read
// it (files, show, exports) while a daemon may run: a SQLite file read-only
// and without its lock; a PostgreSQL journal as every instance opens it.
func OpenJournalReadOnly(ctx context.Context, cfg *config.Config) (*journal.DB, error) {
	if cfg.Journal.Postgres() {
		return OpenJournal(ctx, cfg)
	}
	return journal.OpenReadOnly(ctx, cfg.Journal.Path)
}

// OpenJournalForNotes opens cfg's journal to add replay requests while a
// daemon owns it (see journal.OpenForNotes); a PostgreSQL journal is
// shared anyway.
func OpenJournalForNotes(ctx context.Context, cfg *config.Config) (*journal.DB, error) {
	if cfg.Journal.Postgres() {
		return OpenJournal(ctx, cfg)
	}
	return journal.OpenForNotes(ctx, cfg.Journal.Path)
}

// journalCounters expose the journal's write counts as
// filebridge_journal_writes_total and filebridge_journal_commits_total:
// their ratio is how many writes share a commit.
//
// before is what earlier journals of the process wrote (a SIGHUP reload
// opens the journal again), so that the counters never go back.
func journalCounters(j *journal.DB, before func() journal.WriteStats) []prometheus.Collector {
	var out []prometheus.Collector
	for _, c := range []struct {
		name, help string
		count      func(journal.WriteStats) int64
	}{
		{"filebridge_journal_writes_total", "Writes to the journal (each step of a file and a document).",
			func(s journal.WriteStats) int64 { return s.Writes }},
		{"filebridge_journal_commits_total", "Transactions that committed the journal's writes (SQLite: writes that arrive together share one).",
			func(s journal.WriteStats) int64 { return s.Commits }},
	} {
		out = append(out, prometheus.NewCounterFunc(prometheus.CounterOpts{Name: c.name, Help: c.help},
			func() float64 { return float64(c.count(before()) + c.count(j.WriteStats())) }))
	}
	return out
}
