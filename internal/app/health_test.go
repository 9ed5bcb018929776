package app_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"filebridge/internal/folder/foldertest"
	"filebridge/internal/server"
)

// TestOutboxFullDegrades: an export that fails because the outbox's disk
// is full makes /healthz degraded with the reason, until a run succeeds.
func TestOutboxFullDegrades(t *testing.T) {
	cfg := setup(t, "in", "out")
	cfg.Outboxes[0].Exports[0].WriteEmpty = true // the empty simulator still gets a file written
	d := openDaemon(t, cfg)
	var full atomic.Bool
	full.Store(true)
	ob := d.Outboxes[0]
	ob.Runner.Folder = foldertest.Full{Folder: ob.Runner.Folder, Full: &full}
	ctx := context.Background()
	if res := d.ExportOnce(ctx); len(res) != 1 || res[0].Err == nil {
		t.Fatalf("an export onto a full disk: %+v", res)
	}
	h := d.HealthReport(ctx)
	oh := h.Outboxes["erp-out"]
	if h.Healthy() || oh.Status != server.StatusDegraded || !strings.Contains(oh.Reason, "no space left on device") {
		t.Errorf("after an export failed on a full disk: healthy %v, outbox %+v", h.Healthy(), oh)
	}
	full.Store(false)
	if res := d.ExportOnce(ctx); len(res) != 1 || res[0].Err != nil {
		t.Fatalf("an export once space was freed: %+v", res)
	}
	if h := d.HealthReport(ctx); !h.Healthy() || h.Outboxes["erp-out"].Status != "" {
		t.Errorf("after an export went through: healthy %v, outbox %+v", h.Healthy(), h.Outboxes["erp-out"])
	}
}
