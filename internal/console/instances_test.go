package console

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/journal"
	"filebridge/internal/journal/pgtest"
)

// TestConsoleInstancesOnPostgres: on a journal shared by several
// instances the dashboard lists the instances with their last renewal and
// what they hold, the exports table says who ran the last tick, and the
// files table who holds each open file.
func TestConsoleInstancesOnPostgres(t *testing.T) {
	cluster := pgtest.Start(t)
	url := cluster.Database(t, "console_instances")
	t.Setenv("FB_CONSOLE_TEST_PORTAL", "portal-secret")
	cfg, err := config.Parse(fmt.Appendf(nil, `
[journal]
url = %q
%s
[[outboxes]]
name = "erp"
portal = "main"
url = "out"
  [[outboxes.exports]]
  type = "stock"
  schedule = "@every 10s"
  filename = "STOCK_{seq}.csv"
`, url, portalAndInbox), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	nodes := map[string]*journal.DB{}
	for _, name := range []string{"node-a", "node-b"} {
		d, err := journal.OpenWith(ctx, journal.Options{URL: url, Instance: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		if err := d.Heartbeat(ctx); err != nil {
			t.Fatal(err)
		}
		nodes[name] = d
	}
	if err := nodes["node-a"].Heartbeat(ctx); err != nil { // the most recently seen: listed first
		t.Fatal(err)
	}
	if _, err := nodes["node-a"].ClaimFile(ctx, journal.File{Inbox: "erp", Name: "ORDERS_9.csv", Path: "processing/ORDERS_9.csv"}); err != nil {
		t.Fatal(err)
	}
	if _, err := nodes["node-b"].ClaimFile(ctx, journal.File{Inbox: "erp", Name: "DONE_1.csv", State: journal.FileDone}); err != nil {
		t.Fatal(err)
	}
	tick := time.Now().Truncate(10 * time.Second)
	if _, won, err := nodes["node-b"].ClaimTick(ctx, "erp", "stock", tick); !won || err != nil {
		t.Fatalf("ClaimTick = %v, %v", won, err)
	}
	e := serveConsole(t, Deps{Config: cfg, Journal: nodes["node-a"], Location: time.UTC})
	tests := []struct {
		path string
		want []string // in this order
	}{
		{"/", []string{`<table id="instances">`,
			"<td>node-a</td>", `<td class="num">1</td><td></td>`,
			"<td>node-b</td>", `<td class="num">0</td><td>erp/stock</td>`,
			`<table id="exports">`, "<th>Last tick</th>", `<td class="tick">`, `<span class="state running">running</span> by node-b`}},
		{"/files", []string{"<th>Held by</th>", "DONE_1.csv", `<td class="held-by">–</td>`,
			"ORDERS_9.csv", `<td class="held-by">node-a <small>until <time`}},
	}
	for _, tt := range tests {
		code, body := e.do(t, nil, "GET", tt.path, nil, nil)
		if code != 200 {
			t.Fatalf("GET %s: %d\n%s", tt.path, code, body)
		}
		rest := body
		for _, w := range tt.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Fatalf("GET %s lacks %q (in this order):\n%s", tt.path, w, body)
			}
			rest = rest[i+len(w):]
		}
	}
}
