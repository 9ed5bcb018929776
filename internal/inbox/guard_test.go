package inbox_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"filebridge/internal/folder"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/testkit"
)

// TestJournalUnwritablePauses: while the journal cannot be written a round
// claims nothing (the file stays in the inbox) and Health says why; once
// it is writable again the next round processes the file by itself.
func TestJournalUnwritablePauses(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.drop("SUPPLIERS.csv", suppliersA)
	testkit.Immutable(t, e.cfg.Journal.Path, true)
	_, err := e.in.RunOnce(context.Background())
	if !inbox.IsRetry(err) || !errors.Is(err, journal.ErrNotWritable) {
		t.Fatalf("round with a read-only journal: %v, want a retry error wrapping ErrNotWritable", err)
	}
	if !e.exists("SUPPLIERS.csv") || len(e.ls("processing")) != 0 {
		t.Fatalf("the file was claimed while the journal was read-only: %v", e.ls(""))
	}
	if tr := e.health.Journal(); !strings.Contains(tr.Reason, "not writable") || e.health.Healthy() {
		t.Errorf("health while the journal is read-only: %+v healthy=%v", tr, e.health.Healthy())
	}
	testkit.Immutable(t, e.cfg.Journal.Path, false)
	r := result(t, e.runOnce(), "SUPPLIERS.csv")
	if r.State != journal.FileDone {
		t.Fatalf("after the journal became writable: %s %s", r.State, r.Message)
	}
	if !e.health.Healthy() {
		t.Errorf("still degraded: %+v", e.health.Journal())
	}
}

// TestPortalUnreachableHealth: a portal failing every call degrades
// Health with the reason; the first call that goes through clears it.
func TestPortalUnreachableHealth(t *testing.T) {
	e := newEnv(t, envOpts{portal: "max_retries = 1"})
	e.sim.SetFaults(1, 0, 0, 0)
	e.drop("SUPPLIERS.csv", suppliersA)
	if _, err := e.in.RunOnce(context.Background()); !inbox.IsRetry(err) {
		t.Fatalf("round with the portal failing: %v, want a retry error", err)
	}
	s := e.health.Snapshot()
	if len(s) != 1 || !s[0].Unreachable || s[0].Paused || !strings.HasPrefix(s[0].Reason, "unreachable: ") {
		t.Fatalf("health while the portal fails: %+v", s)
	}
	e.sim.SetFaults(0, 0, 0, 0)
	if r := result(t, e.runOnce(), "SUPPLIERS.csv"); r.State != journal.FileDone {
		t.Fatalf("after the portal came back: %s %s", r.State, r.Message)
	}
	if !e.health.Healthy() {
		t.Errorf("still degraded: %+v", e.health.Snapshot())
	}
}

// TestHostKeyMismatchHealth: an SFTP server presenting another key than
// the pinned one degrades the inbox in Health and is logged once at ERROR
// as a possible attack, however many rounds fail.
func TestHostKeyMismatchHealth(t *testing.T) {
	srv, other := sftptest.NewServer(t), sftptest.NewServer(t)
	e := newEnv(t, envOpts{})
	var logs testkit.Buffer
	in, err := inbox.New(e.cfg.Inboxes[0], inbox.Deps{
		Journal: e.j, Portal: e.client, Health: e.health, Options: e.options,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		OpenFolder: func(ctx context.Context) (folder.Folder, error) {
			o := srv.Options("/in")
			o.KnownHostsFile, o.HostKeyFingerprint = "", ssh.FingerprintSHA256(other.HostKey)
			return folder.Open(ctx, o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close() })
	for range 3 {
		if _, err := in.RunOnce(context.Background()); !errors.Is(err, folder.ErrHostKeyMismatch) {
			t.Fatalf("round against a changed host key: %v, want ErrHostKeyMismatch", err)
		}
	}
	tr := e.health.Inbox("erp")
	if !strings.Contains(tr.Reason, "host key mismatch, possibly an attack") || e.health.Healthy() {
		t.Errorf("inbox health: %+v healthy=%v", tr, e.health.Healthy())
	}
	var errorLines []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "level=ERROR") {
			errorLines = append(errorLines, l)
		}
	}
	if len(errorLines) != 1 || !strings.Contains(errorLines[0], "possibly an attack") {
		t.Errorf("want exactly one ERROR line naming a possible attack, got %d:\n%s", len(errorLines), strings.Join(errorLines, "\n"))
	}
}
