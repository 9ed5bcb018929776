package app_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/portalsim"
	"filebridge/internal/server"
	"filebridge/internal/testkit"
)

// tricky are folder names that an unescaped file:// URL would misread:
// "#" starts a fragment, "?" a query, "%41" decodes to "A".
var tricky = []string{"in #1", "in%41", "in?x=1", "in #2 %zz?"}

// setup writes a config whose inbox and outbox are the folders named
// inboxName and outboxName under a temporary folder, with a simulator of
// Edition A as its portal, and loads it. Each folder holds a file
// "marker.txt"; the folders an unescaped URL would lead to (the name up to
// "#" or "?") exist too, empty.
func setup(t *testing.T, inboxName, outboxName string) *config.Config {
	t.Helper()
	return setupPreload(t, inboxName, outboxName, 0)
}

// setupPreload is setup with preload variants (with stock) on the
// simulator.
func setupPreload(t *testing.T, inboxName, outboxName string, preload int) *config.Config {
	t.Helper()
	_, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA, Seed: 7, Preload: preload})
	root := t.TempDir()
	for _, name := range []string{inboxName, outboxName} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "marker.txt"), []byte("here\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cut := range []string{"#", "?"} {
			if i := strings.Index(name, cut); i >= 0 {
				if err := os.MkdirAll(filepath.Join(root, name[:i]), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return testkit.LoadConfig(t, root, srv.URL+"/api", nil, fmt.Sprintf(`
[[inboxes]]
name = "erp"
portal = "main"
url = %q

[[outboxes]]
name = "erp-out"
portal = "main"
url = %q

  [[outboxes.exports]]
  type = "stock"
  schedule = "@daily"
`, filepath.Join(root, inboxName), filepath.Join(root, outboxName)))
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// names lists the names of a folder's root.
func names(t *testing.T, f folder.Folder) []string {
	t.Helper()
	entries, err := f.List(context.Background(), ".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}

// TestOpenFolders: inbox and outbox folders whose paths hold "#", "%" or
// "?" open as themselves, through FolderOptions (what check opens),
// OpenOutboxFolder and the inbox's own folder.
func TestOpenFolders(t *testing.T) {
	for _, name := range tricky {
		t.Run(name, func(t *testing.T) {
			cfg := setup(t, name, "out "+name)
			ctx := context.Background()
			ic := &cfg.Inboxes[0]
			in, err := folder.Open(ctx, app.FolderOptions(ic.Folder, ic.SFTP, ic.OperationTimeout.Duration, discard()))
			if err != nil {
				t.Fatalf("opening the inbox: %v", err)
			}
			defer in.Close()
			if got := names(t, in); !slices.Contains(got, "marker.txt") {
				t.Errorf("inbox %s opened a folder holding %q, not its own", cfg.Inboxes[0].Folder.Path, got)
			}
			out, err := app.OpenOutboxFolder(ctx, &cfg.Outboxes[0], discard())
			if err != nil {
				t.Fatalf("opening the outbox: %v", err)
			}
			defer out.Close()
			if got := names(t, out); !slices.Contains(got, "marker.txt") {
				t.Errorf("outbox %s opened a folder holding %q, not its own", cfg.Outboxes[0].Folder.Path, got)
			}

			d, err := app.Open(ctx, cfg, discard(), app.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			f, err := d.Inboxes[0].Folder(ctx)
			if err != nil {
				t.Fatalf("opening the inbox's folder: %v", err)
			}
			if got := names(t, f); !slices.Contains(got, "marker.txt") {
				t.Errorf("the inbox's own folder holds %q, not marker.txt", got)
			}
		})
	}
}

// TestOneOwnerPerJournal: a second daemon on the same journal is refused
// (an UnreachableError naming this process's PID); once the first is
// closed, it opens.
func TestOneOwnerPerJournal(t *testing.T) {
	cfg := setup(t, "in #1", "out #1")
	ctx := context.Background()
	first, err := app.Open(ctx, cfg, discard(), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = app.Open(ctx, cfg, discard(), app.Options{})
	if err == nil || !app.IsUnreachable(err) || !strings.Contains(err.Error(), fmt.Sprintf("PID %d", os.Getpid())) {
		t.Fatalf("second daemon: got %v, want an unreachable error naming PID %d", err, os.Getpid())
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := app.Open(ctx, cfg, discard(), app.Options{})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHealthReport: /healthz reports each inbox's last round as the inbox
// saw it (files processed and failed in it, the queue), beside the
// journal's totals.
func TestHealthReport(t *testing.T) {
	cfg := setup(t, "in #1", "out #1")
	ctx := context.Background()
	d := openDaemon(t, cfg)

	if ih := d.HealthReport(ctx).Inboxes["erp"]; ih.LastRound != nil || ih.Portal != "main" {
		t.Errorf("before any round: %+v, want no last round, portal main", ih)
	}
	dir := cfg.Inboxes[0].Folder.Path
	if err := os.Remove(filepath.Join(dir, "marker.txt")); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"SUPPLIERS.csv":     "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n",
		"SUPPLIERS_BAD.csv": "code,name,relationship\n,No code,Manufacturer\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	h := d.HealthReport(ctx)
	if !h.Healthy() {
		t.Errorf("unhealthy: %+v", h.Portals)
	}
	ih := h.Inboxes["erp"]
	want := server.RoundHealth{Processed: 1, Failed: 1}
	if ih.LastRound == nil {
		t.Fatalf("no last round: %+v", ih)
	}
	got := *ih.LastRound
	if got.Started.IsZero() || got.Ended.Before(got.Started) {
		t.Errorf("last round from %s to %s", got.Started, got.Ended)
	}
	got.Started, got.Ended = want.Started, want.Ended
	if got != want {
		t.Errorf("last round %+v, want %+v", got, want)
	}
	if ih.Queue != 0 || ih.Retrying != 0 || ih.NextRetry != nil || ih.LastError != "" || ih.Processed != 1 || ih.Failed != 1 {
		t.Errorf("inbox health %+v", ih)
	}
}

// TestLoggerDurations: a duration reads "15s" in either log format, also
// inside a group (the JSON handler alone would write 15000000000).
func TestLoggerDurations(t *testing.T) {
	for _, tc := range []struct{ format, want, group string }{
		{"json", `"poll":"15s"`, `"inbox":{"settle":"300ms"}`},
		{"text", `poll=15s`, `inbox.settle=300ms`},
	} {
		t.Run(tc.format, func(t *testing.T) {
			var buf bytes.Buffer
			log := app.NewLogger(config.Log{Level: "info", Format: tc.format}, &buf)
			log.Info("started", "poll", 15*time.Second, slog.Group("inbox", "settle", 300*time.Millisecond))
			for _, want := range []string{tc.want, tc.group} {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("log line %s lacks %s", buf.String(), want)
				}
			}
		})
	}
}

// TestOutboxTroubleDegrades: an export that fails because the outbox's
// disk is full, or because its SFTP server is down, makes /healthz
// degraded with the reason, until a run succeeds.
func TestOutboxTroubleDegrades(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		// broken replaces the outbox's folder f with a broken one and
		// returns the function that mends it.
		broken func(t *testing.T, f folder.Folder) (folder.Folder, func() folder.Folder)
	}{
		{"disk full", "no space left on device", func(t *testing.T, f folder.Folder) (folder.Folder, func() folder.Folder) {
			var full atomic.Bool
			full.Store(true)
			return foldertest.Full{Folder: f, Full: &full}, func() folder.Folder { full.Store(false); return f }
		}},
		{"SFTP server down", "connection refused", func(t *testing.T, f folder.Folder) (folder.Folder, func() folder.Folder) {
			srv := sftptest.NewServer(t)
			down, err := folder.Open(context.Background(), srv.Options("/"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = down.Close() })
			srv.Close()
			return down, func() folder.Folder { return f }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := setup(t, "in", "out")
			cfg.Outboxes[0].Exports[0].WriteEmpty = true // the empty simulator still gets a file written
			d := openDaemon(t, cfg)
			ob := d.Outboxes[0]
			var mend func() folder.Folder
			ob.Runner.Folder, mend = tt.broken(t, ob.Runner.Folder)
			ctx := context.Background()
			if res := d.ExportOnce(ctx); len(res) != 1 || res[0].Err == nil {
				t.Fatalf("an export onto a broken folder: %+v", res)
			}
			h := d.HealthReport(ctx)
			oh := h.Outboxes["erp-out"]
			if h.Healthy() || oh.Status != server.StatusDegraded || !strings.Contains(oh.Reason, tt.reason) {
				t.Errorf("after an export failed: healthy %v, outbox %+v; want degraded, %s", h.Healthy(), oh, tt.reason)
			}
			ob.Runner.Folder = mend()
			if res := d.ExportOnce(ctx); len(res) != 1 || res[0].Err != nil {
				t.Fatalf("an export once the folder is fine: %+v", res)
			}
			if h := d.HealthReport(ctx); !h.Healthy() || h.Outboxes["erp-out"].Status != "" {
				t.Errorf("after an export went through: healthy %v, outbox %+v", h.Healthy(), h.Outboxes["erp-out"])
			}
		})
	}
}
