package inbox_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
)

// TestInboxTroubleDegrades: the inbox is degraded, with the reason, while
// its disk is full, while its SFTP server is down and while known_hosts
// holds only another key type than the server's, and fine again once a
// round goes through.
func TestInboxTroubleDegrades(t *testing.T) {
	t.Run("disk full", func(t *testing.T) {
		e := newEnv(t, envOpts{})
		var full atomic.Bool
		full.Store(true)
		in := e.newInbox(e.client, func(ctx context.Context) (folder.Folder, error) {
			f, err := folder.Open(ctx, e.folder())
			if err != nil {
				return nil, err
			}
			return foldertest.Full{Folder: f, Full: &full}, nil
		})
		e.drop("SUPPLIERS.csv", suppliersA)
		_, err := in.RunOnce(context.Background())
		if err == nil {
			t.Fatal("a round with the disk full went through")
		}
		tr := e.health.Inbox("erp")
		if !strings.Contains(tr.Reason, "full") || !strings.Contains(tr.Reason, "no space left on device") || e.health.Healthy() {
			t.Errorf("with the disk full (round: %v) the inbox's trouble is %q, healthy %v; want degraded, the disk full", err, tr.Reason, e.health.Healthy())
		}
		full.Store(false)
		rr, err := in.RunOnce(context.Background())
		if err != nil {
			t.Fatalf("round after space was freed: %v", err)
		}
		if r := result(t, rr, "SUPPLIERS.csv"); r.State != journal.FileDone {
			t.Errorf("after space was freed the file is %s: %s", r.State, r.Message)
		}
		if tr := e.health.Inbox("erp"); tr.Reason != "" || !e.health.Healthy() {
			t.Errorf("after a round went through the inbox's trouble is still %q", tr.Reason)
		}
	})
	t.Run("SFTP server down", func(t *testing.T) {
		srv := sftptest.NewServer(t)
		e := newEnv(t, envOpts{sftp: srv})
		if _, err := e.in.RunOnce(context.Background()); err != nil {
			t.Fatalf("first round: %v", err)
		}
		srv.Close()
		_, err := e.in.RunOnce(context.Background())
		if err == nil {
			t.Fatal("a round with the SFTP server down went through")
		}
		tr := e.health.Inbox("erp")
		if !strings.Contains(tr.Reason, "unreachable") || !strings.Contains(tr.Reason, srv.Addr) || e.health.Healthy() {
			t.Errorf("with the server down (round: %v) the inbox's trouble is %q, healthy %v; want degraded, unreachable", err, tr.Reason, e.health.Healthy())
		}
	})
	t.Run("known_hosts has another key type only", func(t *testing.T) {
		srv := sftptest.NewServer(t) // an ed25519 host key
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := ssh.NewSignerFromKey(key)
		if err != nil {
			t.Fatal(err)
		}
		line := knownhosts.Line([]string{knownhosts.Normalize(srv.Addr)}, signer.PublicKey())
		if err := os.WriteFile(srv.KnownHostsFile, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, envOpts{sftp: srv})
		_, err = e.in.RunOnce(context.Background())
		if err == nil {
			t.Fatal("a round went through with a host key known_hosts cannot verify")
		}
		tr := e.health.Inbox("erp")
		if !strings.HasPrefix(tr.Reason, "SFTP host key mismatch") || !strings.Contains(tr.Reason, "ssh-ed25519") || !strings.Contains(tr.Reason, "ecdsa-sha2-nistp256") || e.health.Healthy() {
			t.Errorf("round: %v; the inbox's trouble is %q, healthy %v; want degraded, naming both key types", err, tr.Reason, e.health.Healthy())
		}
	})
}
