package inbox_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
)

// TestFileConcurrency: with file_concurrency = 4, twenty one-supplier
// files and a SKU file that needs one of them go through in one round:
// every supplier once, and the SKU file (the next level) after them.
func TestFileConcurrency(t *testing.T) {
	e := newEnv(t, envOpts{routes: skuRoute, inbox: "file_concurrency = 4", workers: 2})
	for i := range 20 {
		e.drop(fmt.Sprintf("SUPPLIERS_%02d.csv", i), suppliersFile(fmt.Sprintf("SUP-C%02d-", i), 1))
	}
	e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
	e.dropSample("A/good/SKU_20260302.csv", "")
	rr := e.runOnce()
	if len(rr.Files) != 22 || rr.Deferred != 0 || rr.Retrying != 0 {
		t.Fatalf("round: %d files, %d deferred, %d retrying; want 22, 0, 0", len(rr.Files), rr.Deferred, rr.Retrying)
	}
	for _, f := range rr.Files {
		if f.State != journal.FileDone {
			t.Errorf("%s: %s: %s", f.Name, f.State, f.Message)
		}
	}
	if last := rr.Files[len(rr.Files)-1]; last.Name != "SKU_20260302.csv" {
		t.Errorf("the SKU file finished before a supplier file: last is %s", last.Name)
	}
	if n := e.sim.Len(portalsim.Connections); n != 20+7 {
		t.Errorf("%d suppliers on the portal, want 27", n)
	}
}

// TestFairShare: a long suppliers file does not hold up a file dropped
// after it in the same inbox: once the long file had its fair share, or
// as soon as the new file settled, the round leaves the long file running
// in the background and the next round processes the small file while
// the long one is still in processing/. Every supplier is created once,
// and Run returns only after the long file.
func TestFairShare(t *testing.T) {
	tests := []struct {
		name      string
		fairShare time.Duration // 0: the default (10s), longer than the long file takes
	}{
		{"fair share over", 50 * time.Millisecond},
		{"a new file settled", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOpts{routes: skuRoute, inbox: "file_concurrency = 2", sim: portalsim.Options{Latency: 15 * time.Millisecond}})
			e.options.FairShare = tt.fairShare
			in := e.newInbox(e.client, nil)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- in.Run(ctx) }()
			e.drop("SUPPLIERS_BIG.csv", suppliersFile("SUP-BIG", 150))
			waitFor(t, func() bool { return e.exists("processing/SUPPLIERS_BIG.csv") })
			e.drop("SUPPLIERS_SMALL.csv", suppliersFile("SUP-SMALL", 1))
			processed := func(name string) bool {
				for _, p := range e.ls("processed") {
					if strings.HasSuffix(p, "/"+name) {
						return true
					}
				}
				return false
			}
			waitFor(t, func() bool { return processed("SUPPLIERS_SMALL.csv") })
			if !e.exists("processing/SUPPLIERS_BIG.csv") {
				t.Errorf("the small file was processed only after the long one: a long file held up the inbox")
			}
			waitFor(t, func() bool { return processed("SUPPLIERS_BIG.csv") })
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
			if n := e.sim.Stats().Counts["connections"]; n != 151 {
				t.Errorf("the portal holds %d suppliers, want 151 (each once)", n)
			}
		})
	}
}

// TestNewWantsProvisionedConfig: inbox.New does not fill in defaults of
// its own (config loading sets them, in one place): a config without
// them is refused with what to do.
func TestNewWantsProvisionedConfig(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, unset := range []func(*config.Inbox){
		func(c *config.Inbox) { c.ProcessingDir = "" },
		func(c *config.Inbox) { c.ErrorDir = "" },
		func(c *config.Inbox) { c.Poll.Duration = 0 },
		func(c *config.Inbox) { c.RetryBackoff.Duration = 0 },
		func(c *config.Inbox) { c.MaxFileSize = 0 },
	} {
		cfg := e.cfg.Inboxes[0]
		unset(&cfg)
		_, err := inbox.New(cfg, inbox.Deps{Journal: e.j, Portal: e.client})
		if err == nil || !strings.Contains(err.Error(), "load the config with config.Load") {
			t.Errorf("New with a default unset: %v, want a refusal that says to load the config", err)
		}
	}
	if _, err := inbox.New(e.cfg.Inboxes[0], inbox.Deps{Journal: e.j, Portal: e.client}); err != nil {
		t.Errorf("New with a loaded config: %v", err)
	}
}
