package inbox_test

import (
	"io"
	"testing"

	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

// TestSFTPInbox runs an inbox on an SFTP server (in process, strict
// renames): discover, settle, claim, submit, report and move all go
// through the SFTP folder, with the inbox's configured credentials and
// known_hosts.
func TestSFTPInbox(t *testing.T) {
	srv := sftptest.NewServer(t)
	e := newEnv(t, envOpts{sftp: srv, settle: true, inbox: `settle = "100ms"`})
	c := srv.Client(t)
	w, err := c.Create("/in/SUPPLIERS.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, suppliersA); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := result(t, e.runOnce(), "SUPPLIERS.csv")
	if r.State != journal.FileDone || r.FinalPath != processed+"/SUPPLIERS.csv" {
		t.Fatalf("state %s, final %s: %s", r.State, r.FinalPath, r.Message)
	}
	for _, p := range []string{"/in/" + r.FinalPath, "/in/" + r.ReportPath} {
		if _, err := c.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := c.Stat("/in/SUPPLIERS.csv"); err == nil {
		t.Error("the file is still in the inbox")
	}
	if n := e.sim.Count(portal.Connections, "SUP-B"); n != 1 {
		t.Errorf("SUP-B exists %d times", n)
	}
}
