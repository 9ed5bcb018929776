package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockSuffix is appended to the journal's path to name its lock file.
const LockSuffix = ".lock"

// ErrLocked is matched (errors.Is) by a *LockedError.
var ErrLocked = errors.New("journal is owned by another filebridge process")

// LockedError says which process owns the journal.
type LockedError struct {
	Path string // the lock file
	PID  int    // the owner's process id (0: unknown)
}

func (e *LockedError) Error() string {
	owner := "another process"
	if e.PID > 0 {
		owner = "process " + strconv.Itoa(e.PID)
	}
	return fmt.Sprintf("the journal is owned by %s (lock %s)", owner, e.Path)
}

// Is makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is one process's ownership of a journal: an exclusive advisory lock
// (flock on Unix, LockFileEx on Windows) on the file beside it named
// journal path + LockSuffix, which holds the owner's PID. The operating
// system drops the lock when the process ends, however it ends, so a
// crashed owner never blocks the next start.
type Lock struct {
	f    *os.File
	path string
}

// LockPath is the lock file of the journal at journalPath.
func LockPath(journalPath string) (string, error) {
	abs, err := filepath.Abs(journalPath)
	if err != nil {
		return "", fmt.Errorf("locating the lock of journal %s: %w", journalPath, err)
	}
	return abs + LockSuffix, nil
}

// AcquireLock takes the lock of the journal at journalPath without
// waiting. When another process holds it, the error is a *LockedError
// naming that process.
func AcquireLock(journalPath string) (*Lock, error) {
	p, err := LockPath(journalPath)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return nil, fmt.Errorf("locking journal %s: creating its folder: %w", journalPath, err)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, fmt.Errorf("locking journal %s: %w", journalPath, err)
	}
	held, err := tryLock(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("locking journal %s: %w", journalPath, err)
	}
	if held {
		pid := readPID(p)
		_ = f.Close()
		return nil, &LockedError{Path: p, PID: pid}
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f, path: p}, nil
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// Release drops the lock. The file stays (removing it would race with a
// process opening it to take the lock).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("releasing %s: %w", l.path, err)
	}
	return nil
}

// readPID reads the owner's PID from the lock file (0: unreadable).
func readPID(p string) int {
	b, err := os.ReadFile(p)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return n
}
