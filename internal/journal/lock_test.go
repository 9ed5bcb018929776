package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLock(t *testing.T) {
	db := filepath.Join(t.TempDir(), "var", "fb.db")
	first, err := AcquireLock(db)
	if err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if got := strings.TrimSpace(readFileT(t, first.Path())); got != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want our PID %d", got, os.Getpid())
	}
	_, err = AcquireLock(db)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: got %v, want a *LockedError", err)
	}
	if le.PID != os.Getpid() || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Errorf("second lock: got %q (pid %d), want it to name PID %d", err, le.PID, os.Getpid())
	}
	if err := first.Release(); err != nil {
		t.Fatalf("release: %v", err)
	}
	again, err := AcquireLock(db)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	if err := again.Release(); err != nil {
		t.Fatal(err)
	}
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
