package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"filebridge/internal/journal/pgtest"
)

// The journal tests run against both backends: forBackends runs a test as
// the subtests "sqlite" and "postgres", and openTest and journalTarget open
// the backend the subtest names. PostgreSQL is one throwaway cluster per
// test binary (pgtest), started on first use, with a fresh database per
// test; where its binaries are absent the postgres subtests are skipped
// with a visible message (pgtest fails instead when $CI is set).

func TestMain(m *testing.M) {
	code := m.Run()
	shared.stop()
	os.Exit(code)
}

// forBackends runs fn once per backend.
func forBackends(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	for _, b := range []string{"sqlite", "postgres"} {
		t.Run(b, fn)
	}
}

// backendOf is the backend the test runs on: the first subtest level
// below the top test, "sqlite" when there is none.
func backendOf(t testing.TB) string {
	parts := strings.Split(t.Name(), "/")
	if len(parts) > 1 && parts[1] == "postgres" {
		return "postgres"
	}
	return "sqlite"
}

// journalTarget is what Open takes for a fresh journal of the test's
// backend: a file path, or the URL of a fresh PostgreSQL database. Two
// Opens of one target share the journal.
func journalTarget(t testing.TB) string {
	t.Helper()
	if backendOf(t) == "postgres" {
		return pgDatabase(t)
	}
	return filepath.Join(t.TempDir(), "state", "journal.db")
}

// openTest opens a fresh journal of the test's backend, closed at the end
// of the test.
func openTest(t testing.TB) *DB {
	t.Helper()
	return openTarget(t, journalTarget(t))
}

func openTarget(t testing.TB, target string) *DB {
	t.Helper()
	d, err := Open(t.Context(), target)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

// shared is the cluster of this test binary.
var shared pgShared

type pgShared struct {
	once     sync.Once
	cluster  *pgtest.Cluster
	skip     string // why PostgreSQL tests are skipped
	fail     string // why they fail ($CI without PostgreSQL, a broken start)
	cleanups []func()
	dir      string
	n        atomic.Int64
}

func (s *pgShared) stop() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// mainTB lets pgtest.Start run outside a test, for the whole binary:
// Fatalf and Skipf end the start (recovered in start), Cleanup runs at
// the end of TestMain.
type mainTB struct {
	testing.TB // nil: only the methods below are used
	s          *pgShared
}

type tbStop struct{}

func (m mainTB) Helper() {}
func (m mainTB) Fatalf(format string, args ...any) {
	m.s.fail = fmt.Sprintf(format, args...)
	panic(tbStop{})
}
func (m mainTB) Skipf(format string, args ...any) {
	m.s.skip = fmt.Sprintf(format, args...)
	panic(tbStop{})
}
func (m mainTB) Cleanup(f func()) { m.s.cleanups = append(m.s.cleanups, f) }
func (m mainTB) TempDir() string {
	if m.s.dir == "" {
		dir, err := os.MkdirTemp("", "journal-pg-")
		if err != nil {
			m.Fatalf("temporary folder: %v", err)
		}
		m.s.dir = dir
	}
	dir, err := os.MkdirTemp(m.s.dir, "c")
	if err != nil {
		m.Fatalf("temporary folder: %v", err)
	}
	return dir
}
func (m mainTB) Name() string { return "journal-postgres" }

func (s *pgShared) start() {
	s.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(tbStop); !ok {
					panic(r)
				}
			}
		}()
		s.cluster = pgtest.Start(mainTB{s: s})
	})
}

var nonName = regexp.MustCompile(`[^a-z0-9]+`)

// pgDatabase returns the URL of a fresh database on the shared cluster.
func pgDatabase(t testing.TB) string {
	t.Helper()
	shared.start()
	switch {
	case shared.fail != "":
		t.Fatalf("PostgreSQL: %s", shared.fail)
	case shared.skip != "":
		t.Skip(shared.skip)
	}
	name := nonName.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	name = fmt.Sprintf("t%d_%s", shared.n.Add(1), strings.Trim(name, "_"))
	return shared.cluster.Database(t, name)
}
