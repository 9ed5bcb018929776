package journal

import (
	"path/filepath"
	"testing"
)

func TestReplayLinks(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		orig := claimTest(t, d, "erp", "ORDERS.csv", "sales_orders")
		other := claimTest(t, d, "erp", "OTHER.csv", "sales_orders")
		req, err := d.RequestReplay(ctx, Replay{Inbox: "erp", Name: "ORDERS.csv", OriginalID: orig, Force: true, By: "cli"})
		if err != nil {
			t.Fatal(err)
		}
		cancelled, err := d.RequestReplay(ctx, Replay{Inbox: "erp", Name: "GONE.csv", OriginalID: orig})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.CancelReplay(ctx, cancelled); err != nil {
			t.Fatal(err)
		}

		// The original itself and another name do not take the request.
		for _, id := range []int64{orig, other} {
			f, err := d.File(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if _, found, err := d.LinkReplay(ctx, f); err != nil || found {
				t.Fatalf("LinkReplay(%s #%d) = %v, %v; want no replay", f.Name, id, found, err)
			}
		}
		again := claimTest(t, d, "erp", "ORDERS.csv", "sales_orders")
		f, _ := d.File(ctx, again)
		for range 2 { // linking twice (a resumed file) gives the same link
			r, found, err := d.LinkReplay(ctx, f)
			if err != nil || !found || r.ID != req || r.OriginalID != orig || r.ReplayID != again || !r.Force || r.By != "cli" {
				t.Fatalf("LinkReplay = %+v, %v, %v", r, found, err)
			}
		}
		if r, found, err := d.ReplayOf(ctx, again); err != nil || !found || r.OriginalID != orig {
			t.Errorf("ReplayOf(%d) = %+v, %v, %v", again, r, found, err)
		}
		if _, found, err := d.ReplayOf(ctx, orig); err != nil || found {
			t.Errorf("ReplayOf(original) = %v, %v; want none", found, err)
		}
		rs, err := d.ReplaysOf(ctx, orig)
		if err != nil || len(rs) != 1 || rs[0].ReplayID != again {
			t.Errorf("ReplaysOf = %+v, %v; want the one linked replay", rs, err)
		}
		// A third file of the name is an ordinary file again.
		third := claimTest(t, d, "erp", "ORDERS.csv", "sales_orders")
		f3, _ := d.File(ctx, third)
		if _, found, err := d.LinkReplay(ctx, f3); err != nil || found {
			t.Errorf("LinkReplay(third) = %v, %v; want none", found, err)
		}
	})
}

// TestOpenForNotes adds a replay request through a second handle while the
// first (the daemon's) stays open, and the daemon's handle links it.
func TestOpenForNotes(t *testing.T) {
	d := openTest(t)
	ctx := t.Context()
	orig := claimTest(t, d, "erp", "ORDERS.csv", "sales_orders")
	n, err := OpenForNotes(ctx, d.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.RequestReplay(ctx, Replay{Inbox: "erp", Name: "ORDERS.csv", OriginalID: orig, By: "cli"}); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	again := claimTest(t, d, "erp", "ORDERS.csv", "sales_orders")
	f, _ := d.File(ctx, again)
	if r, found, err := d.LinkReplay(ctx, f); err != nil || !found || r.OriginalID != orig {
		t.Errorf("LinkReplay = %+v, %v, %v; want the note of the second handle", r, found, err)
	}
}

// TestLinkReplayOneRead: telling that a file is no replay, or is the
// replay it was linked to, takes one read of the journal and no write.
func TestLinkReplayOneRead(t *testing.T) {
	d := openTarget(t, filepath.Join(t.TempDir(), "journal.db")) // SQLite: its reader pool counts its statements
	ctx := t.Context()
	orig := claimTest(t, d, "erp", "ORDERS.csv", "sales_orders")
	if _, err := d.RequestReplay(ctx, Replay{Inbox: "erp", Name: "ORDERS.csv", OriginalID: orig, By: "cli"}); err != nil {
		t.Fatal(err)
	}
	ordinary := claimTest(t, d, "erp", "OTHER.csv", "sales_orders")
	replay := claimTest(t, d, "erp", "ORDERS.csv", "sales_orders")
	if _, found, err := d.LinkReplay(ctx, File{ID: replay, Inbox: "erp", Name: "ORDERS.csv"}); err != nil || !found {
		t.Fatalf("linking the replay: %v, %v", found, err)
	}
	for _, tt := range []struct {
		name  string
		f     File
		found bool
	}{
		{"ordinary file", File{ID: ordinary, Inbox: "erp", Name: "OTHER.csv"}, false},
		{"the original", File{ID: orig, Inbox: "erp", Name: "ORDERS.csv"}, false},
		{"linked replay", File{ID: replay, Inbox: "erp", Name: "ORDERS.csv"}, true},
	} {
		reads, writes := d.r.stmts.pooled.Load(), d.WriteStats().Writes
		r, found, err := d.LinkReplay(ctx, tt.f)
		if err != nil || found != tt.found || found && r.OriginalID != orig {
			t.Errorf("%s: LinkReplay = %+v, %v, %v; want found %v", tt.name, r, found, err, tt.found)
		}
		if n := d.r.stmts.pooled.Load() - reads; n != 1 {
			t.Errorf("%s: %d reads, want 1", tt.name, n)
		}
		if n := d.WriteStats().Writes - writes; n != 0 {
			t.Errorf("%s: %d writes, want none", tt.name, n)
		}
	}
}
