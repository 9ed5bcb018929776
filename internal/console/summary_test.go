package console

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/server"
)

// TestDashboardManyInboxes: with 1,000 inboxes and outboxes the dashboard
// shows totals, then the inboxes with trouble first (degraded, failed
// today, retrying, held), fifty a page, and the failing exports first,
// in under 100 KB; with one inbox it keeps listing everything, without
// totals or pages.
func TestDashboardManyInboxes(t *testing.T) {
	const n = 1000
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("[journal]\npath = \"state/fb.db\"\n\n[portals.main]\nedition = \"A\"\nbase_url = \"http://127.0.0.1:1/api\"\ncompany = 42\ntoken_env = \"FB_CONSOLE_TEST_PORTAL\"\n")
	for i := range n {
		fmt.Fprintf(&b, "\n[[inboxes]]\nname = \"t%04d\"\nportal = \"main\"\nurl = \"t%04d/in\"\n", i, i)
		fmt.Fprintf(&b, "\n[[outboxes]]\nname = \"t%04d-out\"\nportal = \"main\"\nurl = \"t%04d/out\"\n  [[outboxes.exports]]\n  type = \"stock\"\n  schedule = \"0 2 * * *\"\n", i, i)
	}
	t.Setenv("FB_CONSOLE_TEST_PORTAL", "portal-secret")
	cfg, db := parseAndOpen(t, b.String(), dir)
	ctx := t.Context()
	now := time.Now()
	for _, f := range []journal.File{
		{Inbox: "t0900", Name: "SKU_BAD.csv", State: journal.FileFailed, FinalPath: "error/SKU_BAD.csv", ClaimedAt: now},
		{Inbox: "t0500", Name: "SKU_BAD.csv", State: journal.FileFailed, FinalPath: "error/SKU_BAD.csv", ClaimedAt: now},
		{Inbox: "t0700", Name: "ORDERS_7.csv", State: journal.FileClaimed, Path: "processing/ORDERS_7.csv", ClaimedAt: now, HeldSince: now, WaitingFor: "SKU A-1"},
		{Inbox: "t0002", Name: "SKU_OK.csv", State: journal.FileDone, FinalPath: "processed/SKU_OK.csv", ClaimedAt: now},
	} {
		if _, err := db.ClaimFile(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	run, err := db.StartRun(ctx, "t0800-out", "stock")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishRun(ctx, journal.ExportRun{ID: run, Error: "the outbox folder is full"}); err != nil {
		t.Fatal(err)
	}
	next := now.Add(time.Minute)
	e := serveConsole(t, Deps{Config: cfg, Journal: db, Location: time.UTC, Health: func(context.Context) server.Health {
		return server.Health{Inboxes: map[string]server.InboxHealth{
			"t0300": {Status: "degraded", Reason: "the disk of the inbox folder is full"},
			"t0100": {Retrying: 1, NextRetry: &next},
		}}
	}})

	rowRE := regexp.MustCompile(`<tr>\s*<td><a href="/files\?inbox=(t\d{4})">`)
	exportRE := regexp.MustCompile(`<a href="/exports\?export=(t\d{4}-out)%2Fstock">`)
	names := func(re *regexp.Regexp, body string) []string {
		var out []string
		for _, m := range re.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	code, body := e.do(t, nil, "GET", "/", nil, nil)
	if code != 200 {
		t.Fatalf("%d:\n%s", code, body)
	}
	t.Logf("the dashboard of %d inboxes and outboxes: %d bytes", n, len(body))
	if len(body) > 100_000 {
		t.Errorf("the dashboard of %d inboxes is %d bytes, want 100 KB at most", n, len(body))
	}
	for _, want := range []string{`<dl class="facts" id="totals">`, "5 with trouble</span>", "1 held for master data · 1 retrying",
		`<a class="bad" href="/files?state=failed">2 failed</a>`, "1 failing</span>", "1–50 of 1000", `href="/?page=2" rel="next"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the dashboard lacks %q", want)
		}
	}
	got := names(rowRE, body)
	want := []string{"t0300", "t0500", "t0900", "t0100", "t0700", "t0000", "t0001", "t0002"}
	if len(got) != 50 || strings.Join(got[:len(want)], " ") != strings.Join(want, " ") {
		t.Errorf("the first page lists %d inboxes starting %v, want 50 starting %v", len(got), got[:min(len(got), len(want))], want)
	}
	if ex := names(exportRE, body); len(ex) != 50 || ex[0] != "t0800-out" || ex[1] != "t0000-out" {
		t.Errorf("the first page lists %d exports starting %v, want 50 starting with the failing t0800-out", len(ex), ex[:min(len(ex), 2)])
	}

	_, body = e.do(t, nil, "GET", "/?page=2", nil, nil)
	if got := names(rowRE, body); len(got) != 50 || got[0] != "t0045" || got[49] != "t0094" {
		t.Errorf("page 2 lists %d inboxes from %v, want t0045 to t0094", len(got), got[:min(len(got), 1)])
	}
	if !strings.Contains(body, "51–100 of 1000") || !strings.Contains(body, `href="/?page=1" rel="prev"`) {
		t.Error("page 2 does not say where it is or link back")
	}

	few := newConsoleEnv(t, "")
	_, body = few.do(t, nil, "GET", "/", nil, nil)
	if strings.Contains(body, `id="totals"`) || strings.Contains(body, `class="pager"`) || !strings.Contains(body, `<a href="/files?inbox=erp">erp</a>`) {
		t.Error("the dashboard of one inbox is not the plain list")
	}
}
