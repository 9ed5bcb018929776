package journal

import (
	"testing"
	"time"
)

func TestProcessedHashPerPortal(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		for _, f := range []File{
			{Inbox: "erp", Name: "sandbox.csv", SHA256: "h", Portal: "https://sandbox/api company 42", State: FileDone},
			{Inbox: "erp", Name: "old.csv", SHA256: "h", State: FileDone}, // recorded before portals were told apart
		} {
			if _, err := d.ClaimFile(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			portal string
			want   string
		}{
			{"https://sandbox/api company 42", "sandbox.csv"},
			{"https://production/api company 42", ""},
			{"https://sandbox/api company 43", ""},
		}
		for _, tt := range tests {
			t.Run(tt.portal, func(t *testing.T) {
				f, ok, err := d.ProcessedHash(ctx, "erp", tt.portal, "h")
				if err != nil {
					t.Fatal(err)
				}
				if ok != (tt.want != "") || f.Name != tt.want {
					t.Errorf("got %q, %v; want %q", f.Name, ok, tt.want)
				}
			})
		}
	})
}

func TestHoldRoundTrip(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id, err := d.ClaimFile(ctx, File{Inbox: "erp", Name: "ORDERS.csv", Portal: "p"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := d.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !f.HeldSince.IsZero() || f.WaitingFor != "" || f.Portal != "p" {
			t.Fatalf("a new file: held since %v waiting for %q, portal %q", f.HeldSince, f.WaitingFor, f.Portal)
		}
		since := time.Date(2026, 3, 16, 7, 0, 0, 0, time.UTC)
		f.State, f.HeldSince, f.WaitingFor = FileSubmitting, since, "SKU X-1"
		if err := d.UpdateFile(ctx, f); err != nil {
			t.Fatal(err)
		}
		got, err := d.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !got.HeldSince.Equal(since) || got.WaitingFor != "SKU X-1" {
			t.Errorf("got held since %v waiting for %q, want %v and %q", got.HeldSince, got.WaitingFor, since, "SKU X-1")
		}
		got.HeldSince, got.WaitingFor = time.Time{}, ""
		if err := d.UpdateFile(ctx, got); err != nil {
			t.Fatal(err)
		}
		if again, _ := d.File(ctx, id); !again.HeldSince.IsZero() || again.WaitingFor != "" {
			t.Errorf("the hold was not cleared: %v %q", again.HeldSince, again.WaitingFor)
		}
	})
}
