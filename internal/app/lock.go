package app

import (
	"errors"
	"fmt"

	"filebridge/internal/config"
	"filebridge/internal/journal"
)

// LockJournal makes this process the one owner of cfg's journal (a lock
// file beside it) for as long as it runs. When another filebridge holds
// it, the error names that process's PID and says what to do.
func LockJournal(cfg *config.Config) (*journal.Lock, error) {
	lock, err := AcquireJournalLock(cfg)
	var le *journal.LockedError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("another filebridge is already running on journal %s (%s): only one process may own a journal; stop it first, or give this config another [journal] path in %s: %w",
			cfg.Journal.Path, pidText(le.PID), cfg.File, err)
	}
	return lock, err
}

func pidText(pid int) string {
	if pid <= 0 {
		return "PID unknown"
	}
	return fmt.Sprintf("PID %d", pid)
}
