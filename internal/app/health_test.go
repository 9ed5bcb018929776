package app_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/server"
)

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
