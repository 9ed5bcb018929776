// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb in
// a temporary folder, run as an unprivileged user (PostgreSQL refuses to
// run as root), listening on a free loopback port only. Without the
// PostgreSQL server binaries the test is skipped with a visible message, or
// fails when $CI is set: CI must run these tests.
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// Cluster is a running PostgreSQL server on 127.0.0.1.
type Cluster struct {
	// URL connects as the superuser "filebridge" to the database
	// "filebridge" (trust authentication on loopback).
	URL  string
	Port int
	Dir  string

	bin  string
	cred *syscall.Credential
}

// binDir finds the folder of initdb, pg_ctl and postgres: PG_BIN, then
// Debian's /usr/lib/postgresql/<newest>/bin, then PATH.
func binDir() (string, error) {
	if d := os.Getenv("PG_BIN"); d != "" {
		return d, nil
	}
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
				return d, nil
			}
		}
	}
	p, err := exec.LookPath("postgres")
	if err != nil {
		return "", fmt.Errorf("no PostgreSQL server binaries (install Debian's postgresql)")
	}
	return filepath.Dir(p), nil
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start starts a cluster and stops it when the test ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL: %v, and CI is set", err)
		}
		t.Skipf("SKIPPING PostgreSQL tests: %v", err)
	}
	c := &Cluster{bin: bin, Dir: t.TempDir()}
	if os.Geteuid() == 0 {
		cred, err := unprivileged()
		if err != nil {
			t.Fatalf("PostgreSQL refuses to run as root: %v", err)
		}
		c.cred = cred
		// The temporary folders above belong to root: open the path for
		// the server's user.
		for d := c.Dir; d != "/" && d != "."; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o005 != 0o005 {
				_ = os.Chmod(d, st.Mode().Perm()|0o005)
			}
		}
		if err := os.Chown(c.Dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatalf("handing %s to the PostgreSQL user: %v", c.Dir, err)
		}
	}
	data := filepath.Join(c.Dir, "data")
	if out, err := c.run("initdb", "-D", data, "-U", "filebridge", "-A", "trust", "-E", "UTF8", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := testkit.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s -c fsync=off -c max_connections=200",
			port, c.Dir)
		out, err := c.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(c.Dir, "log"), "-w", "-t", "30", "start")
		if err != nil {
			log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
			lastErr = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
			continue
		}
		c.Port = port
		t.Cleanup(func() { _, _ = c.run("pg_ctl", "-D", data, "-m", "immediate", "stop") })
		if out, err := c.run("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "filebridge", "filebridge"); err != nil {
			t.Fatalf("createdb: %v\n%s", err, out)
		}
		c.URL = fmt.Sprintf("postgres://filebridge@127.0.0.1:%d/filebridge?sslmode=disable", port)
		return c
	}
	t.Fatalf("starting PostgreSQL: %v", lastErr)
	return nil
}

// Database creates a fresh database and returns its URL, so tests sharing
// one cluster do not see each other's tables.
func (c *Cluster) Database(t testing.TB, name string) string {
	t.Helper()
	if out, err := c.run("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", "filebridge", name); err != nil {
		t.Fatalf("createdb %s: %v\n%s", name, err, out)
	}
	return fmt.Sprintf("postgres://filebridge@127.0.0.1:%d/%s?sslmode=disable", c.Port, name)
}

// Restart restarts the server the way a crash would (pg_ctl restart -m
// immediate: every session ends at once, without a checkpoint), and
// returns once it accepts connections again, on the same port.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	if out, err := c.run("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-l", filepath.Join(c.Dir, "log"), "-m", "immediate", "-w", "-t", "60", "restart"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.Dir, "log"))
		t.Fatalf("pg_ctl restart: %v\n%s\n%s", err, out, log)
	}
}

// Load runs the SQL file (a pg_dump, say) in the database of url with
// psql, stopping at the first error.
func (c *Cluster) Load(t testing.TB, url, file string) {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", abs, url); err != nil {
		t.Fatalf("psql -f %s: %v\n%s", file, err, out)
	}
}

func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// unprivileged is the user the server runs as when the tests run as root:
// Debian's "postgres", else "nobody".
func unprivileged() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
	}
	return nil, fmt.Errorf("no user postgres or nobody to run it as")
}
