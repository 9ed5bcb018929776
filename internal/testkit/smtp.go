package testkit

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// SMTP runs a real SMTP server on a free loopback port for the test
// (aiosmtpd, Debian's python3-aiosmtpd, with its Maildir handler) and
// returns its address and the Maildir it stores messages in (new/ holds
// each message as a file). It returns once the server accepts
// connections. Without aiosmtpd the test is skipped, in CI failed.
func SMTP(t testing.TB) (addr, maildir string) {
	t.Helper()
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import aiosmtpd").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("aiosmtpd is not installed: .ci/run installs the Debian package python3-aiosmtpd")
		}
		t.Skip("SKIPPED: the mail test needs a real SMTP server: apt-get install python3-aiosmtpd")
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	maildir = filepath.Join(t.TempDir(), "maildir") // aiosmtpd makes the Maildir
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, python, "-m", "aiosmtpd", "-n", "-l", addr, "-c", "aiosmtpd.handlers.Mailbox", maildir)
	var out Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("aiosmtpd:\n%s", out.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr, maildir
		}
		if time.Now().After(deadline) {
			t.Fatalf("aiosmtpd did not listen on %s: %v\n%s", addr, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Mails returns the messages a SMTP server stored so far.
func Mails(t testing.TB, maildir string) [][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(maildir, "new", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
