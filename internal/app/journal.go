package app

import (
	"context"

	"filebridge/internal/config"
	"filebridge/internal/journal"
)

// JournalOptions are the journal.Options of cfg: the SQLite file, or the
// PostgreSQL database with its resolved password.
func JournalOptions(cfg *config.Config) journal.Options {
	return journal.Options{Path: cfg.Journal.Path, URL: cfg.Journal.URL, Password: cfg.Journal.Password.Value()}
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
