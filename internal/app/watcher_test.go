package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// manyInboxes writes and loads a config of n local inboxes in/NNN of one
// simulator portal, polling once an hour, and returns it with the inbox
// folders.
func manyInboxes(t *testing.T, n int) (*config.Config, []string, *portalsim.Sim) {
	t.Helper()
	sim, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA, Seed: 7})
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("\n[server]\nlisten = \"\"\n")
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = filepath.Join(root, "in", fmt.Sprintf("%03d", i))
		if err := os.MkdirAll(dirs[i], 0o755); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n[[inboxes]]\nname = \"t%03d\"\nportal = \"main\"\nurl = %q\npoll = \"1h\"\n", i, dirs[i])
	}
	return testkit.LoadConfig(t, root, srv.URL+"/api", nil, b.String()), dirs, sim
}

// TestManyInboxesShareOneWatcher: 300 local inboxes in one process (more
// than Linux's default of 128 inotify instances a user) all take a file
// dropped after their first round from its file-system event (the next
// poll is an hour away), through one inotify instance.
func TestManyInboxesShareOneWatcher(t *testing.T) {
	const n = 300
	cfg, dirs, sim := manyInboxes(t, n)
	before, err := testkit.InotifyInstances("self")
	if err != nil {
		t.Skipf("SKIPPING: no /proc: %v", err)
	}
	d, err := app.Open(context.Background(), cfg, discard(), app.Options{Inbox: inbox.Options{SkipSettle: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	// Every inbox watches its folder before its first round: once that
	// round is over, only an event brings a file in within the hour.
	testkit.Eventually(t, 30*time.Second, "every inbox finished its first round", func() bool {
		for _, in := range d.Inboxes {
			if in.Status().LastRound.End.IsZero() {
				return false
			}
		}
		return true
	})
	for i, dir := range dirs {
		tmp := filepath.Join(dir, ".SUPPLIERS.csv.part")
		body := fmt.Sprintf("code,name,relationship\nT-%03d,Tenant %03d,Manufacturer\n", i, i)
		if err := os.WriteFile(tmp, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "SUPPLIERS.csv")); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, 60*time.Second, "every dropped file on the portal", func() bool { return sim.Len(portalsim.Connections) == n })
	testkit.Eventually(t, 30*time.Second, "every file done in the journal", func() bool {
		for _, in := range d.Inboxes {
			if states, err := d.Journal.FileStates(ctx, in.Name()); err != nil || states[journal.FileDone] != 1 {
				return false
			}
		}
		return true
	})
	got, err := testkit.InotifyInstances("self")
	if err != nil {
		t.Fatal(err)
	}
	if got-before > 1 || got > 4 {
		t.Errorf("%d inotify instances in the process (%d before the daemon), want one more at most and 4 in all", got, before)
	}
}
