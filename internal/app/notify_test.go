package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/inbox"
	"filebridge/internal/notify"
	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// hook is a webhook receiver on loopback: each event it gets, with
// whether its signature is right.
type hook struct {
	key    string
	events chan notify.Event
}

func newHook(t *testing.T, key string) (*hook, string) {
	h := &hook{key: key, events: make(chan notify.Event, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Filebridge-Signature") != notify.Sign(h.key, body) {
			http.Error(w, "bad signature", http.StatusForbidden)
			t.Errorf("a notification with a wrong signature: %s", body)
			return
		}
		var e notify.Event
		if err := json.Unmarshal(body, &e); err != nil {
			t.Errorf("a notification that is not an event: %s", body)
		}
		h.events <- e
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func (h *hook) next(t *testing.T, kind string) notify.Event {
	t.Helper()
	select {
	case e := <-h.events:
		if e.Kind != kind {
			t.Fatalf("got a %s notification, want %s: %+v", e.Kind, kind, e)
		}
		return e
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s notification within 30s", kind)
	}
	return notify.Event{}
}

// TestNotifications runs a daemon whose inbox and outbox notify a webhook
// and a mail address (a real SMTP server on loopback): a failed file is
// told to both, the report attached to the mail; a file held past
// held_after is told once; a failed export run is told.
func TestNotifications(t *testing.T) {
	smtpAddr, maildir := testkit.SMTP(t)
	h, hookURL := newHook(t, "hook-key")
	t.Setenv("HOOK_KEY", "hook-key")
	sim, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA, Seed: 7})
	root := t.TempDir()
	in := filepath.Join(root, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(smtpAddr, ":")
	cfg := testkit.LoadConfig(t, root, srv.URL+"/api", []string{"max_retries = 0"}, fmt.Sprintf(`
[[inboxes]]
name = "erp"
portal = "main"
url = "in"
  [inboxes.notify]
  webhook_url = %q
  webhook_secret_env = "HOOK_KEY"
  email = ["desk@example.com"]
  held_after = "1h"

[[outboxes]]
name = "erp-out"
portal = "main"
url = "out"
  [[outboxes.exports]]
  type = "stock"
  schedule = "@daily"
  [outboxes.notify]
  webhook_url = %q
  webhook_secret_env = "HOOK_KEY"

[smtp]
host = %q
port = %s
from = "filebridge@example.com"
tls = "none"
`, hookURL, hookURL, host, port))
	ctx := context.Background()
	clock, ahead := aheadClock()
	d, err := Open(ctx, cfg, slog.New(slog.DiscardHandler), Options{Now: clock, Inbox: inbox.Options{SkipSettle: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })

	// A file with an invalid row fails.
	if err := os.WriteFile(filepath.Join(in, "SUPPLIERS_BAD.csv"), []byte("code,name,relationship\n,No code,Manufacturer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	e := h.next(t, notify.FileFailed)
	if e.Inbox != "erp" || e.File != "SUPPLIERS_BAD.csv" || e.FileID == 0 || !strings.Contains(e.Report, "SUPPLIERS_BAD.report.csv") || e.Message == "" {
		t.Errorf("file_failed event %+v", e)
	}
	var mail []byte
	testkit.Eventually(t, 30*time.Second, "the mail", func() bool {
		if m := testkit.Mails(t, maildir); len(m) > 0 {
			mail = m[0]
		}
		return mail != nil
	})
	for _, want := range []string{"Subject: filebridge: SUPPLIERS_BAD.csv failed in inbox erp", "To: <desk@example.com>", `filename="SUPPLIERS_BAD.report.csv"`} {
		if !strings.Contains(string(mail), want) {
			t.Errorf("the mail lacks %q:\n%s", want, mail)
		}
	}

	// A receptions file naming SKUs the portal lacks is held; past
	// held_after it is told once, not at every look.
	data, err := os.ReadFile(filepath.Join("..", "..", "samples", "A", "good", "RECEPTIONS_20260304.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "RECEPTIONS.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if held := d.Inboxes[0].Status().Held; len(held) != 1 {
		t.Fatalf("held files %+v, want the receptions", held)
	}
	looks := make(chan time.Time)
	lctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { d.watchHeld(lctx, looks); close(done) }()
	looks <- time.Now() // not held an hour yet: nothing told
	ahead(2 * time.Hour)
	looks <- time.Now()
	e = h.next(t, notify.FileHeld)
	if e.File != "RECEPTIONS.csv" || !strings.Contains(e.Message, "waited since") {
		t.Errorf("file_held event %+v", e)
	}
	looks <- time.Now()
	looks <- time.Now() // the second look has ended once the third is taken
	stop()
	<-done

	// A failed export run (the portal answers 500 to everything) is told
	// to the outbox's webhook; it is the next event, so the held file was
	// told once.
	sim.SetFaults(1, 0, 0, 0)
	for _, r := range d.ExportOnce(ctx) {
		if r.Err == nil {
			t.Fatalf("the export into a file wrote %+v", r.Result)
		}
	}
	e = h.next(t, notify.ExportFailed)
	if e.Outbox != "erp-out" || e.Export != "stock" || !strings.Contains(e.Message, "failed") {
		t.Errorf("export_failed event %+v", e)
	}
}
