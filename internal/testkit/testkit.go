// Package testkit holds what the tests of several packages share: a log
// sink safe for concurrent writers, a way to make a path read-only even
// for root, and a free loopback port for a test server.
package testkit

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Buffer is a bytes.Buffer safe for writer goroutines and a reader (a
// log sink, a subprocess's output).
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Immutable sets (on) or clears the immutable attribute of path with
// chattr, which makes writes fail even for root, as the tests run; where
// chattr is not available and the tests do not run as root, chmod takes
// the write bits away instead. Otherwise the test is skipped, visibly.
func Immutable(t testing.TB, path string, on bool) {
	t.Helper()
	flag := "-i"
	if on {
		flag = "+i"
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
	}
	out, err := exec.Command("chattr", flag, path).CombinedOutput()
	if err == nil {
		return
	}
	if os.Geteuid() == 0 {
		t.Skipf("SKIPPED: cannot make %s read-only for root here (chattr %s: %v %s); the e2e drill covers it by running filebridge as another user", path, flag, err, out)
	}
	WriteBits(t, path, on)
}

// WriteBits takes the write bits of path away (on) or gives them back
// (0644 for a file, 0755 for a folder): read-only for anyone but root.
func WriteBits(t testing.TB, path string, on bool) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mode := os.FileMode(0o644)
	if st.IsDir() {
		mode = 0o755
	}
	if on {
		mode &^= 0o222
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// FreePort returns a loopback TCP port that is free right now, for a
// server started in another process.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// FreeAddr is a loopback address (host:port) whose port is free right
// now, for a server the test starts later.
func FreeAddr(t testing.TB) string {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// Eventually polls cond until it holds (what a test waits for happens in
// other goroutines or processes), failing the test after within: a
// correctness deadline, not a performance one.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
