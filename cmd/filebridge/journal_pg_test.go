package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/journal/pgtest"
)

// pgConfig writes outboxConfig's config with the journal in the
// PostgreSQL database url (password from the environment) and returns its
// path.
func pgConfig(t *testing.T, url, baseURL string, exports ...string) string {
	t.Helper()
	t.Setenv("FB_PG_TEST_TOKEN", "demo-token")
	t.Setenv("FB_PG_TEST_PASSWORD", "unused-with-trust")
	return outboxConfig(t, fmt.Sprintf("url = %q\npassword_env = \"FB_PG_TEST_PASSWORD\"", url), baseURL, "FB_PG_TEST_TOKEN", exports...)
}

// TestExportOnPostgresJournal runs `export` twice with the journal in
// PostgreSQL ([journal] url, password from the environment): the second
// run takes the next sequence number from the shared journal.
func TestExportOnPostgresJournal(t *testing.T) {
	cluster := pgtest.Start(t)
	url := cluster.Database(t, "cmd_export")
	srv := exportSim(t, 3)
	cfg := pgConfig(t, url, srv.URL+"/api", exportTable("stock", "0 2 * * *", "STOCK_{seq}.csv"))
	dir := filepath.Dir(cfg)
	for i, want := range []string{"STOCK_000001.csv", "STOCK_000002.csv"} {
		out, code := runExportCmd(t, "--config", cfg, "--outbox", "erp", "stock")
		if code != exitOK || !strings.Contains(out, want) {
			t.Fatalf("run %d: exit %d, output %q; want %s", i+1, code, out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "var")); !os.IsNotExist(err) {
		t.Errorf("a SQLite journal folder was created next to the config: %v", err)
	}
	db, err := journal.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.RecentRuns(t.Context(), "erp", "stock", 0)
	if err != nil || len(runs) != 2 {
		t.Errorf("runs in PostgreSQL = %d, %v; want 2", len(runs), err)
	}

	// Each run now is a tick of its own, so that it never overlaps a run
	// of the same export on an instance sharing the journal: while one
	// goes on, export refuses, naming it, and writes nothing.
	ticks, err := db.Ticks(t.Context(), "erp", "stock", 0)
	if err != nil || len(ticks) != 2 || ticks[0].State != journal.RunDone || ticks[0].FileName != "STOCK_000002.csv" {
		t.Fatalf("ticks = %+v, %v; want the two runs done", ticks, err)
	}
	other, err := journal.OpenWith(t.Context(), journal.Options{URL: url, Instance: "node-b"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	busy, won, err := other.ClaimTick(t.Context(), "erp", "stock", time.Now()) // after the two runs: a tick before a recorded one is late, skipped
	if err != nil || !won {
		t.Fatalf("ClaimTick = %v, %v", won, err)
	}
	out, code := runExportCmd(t, "--config", cfg, "--outbox", "erp", "stock")
	if code != exitUnreachable || !strings.Contains(out, "going on") || !strings.Contains(out, "node-b") {
		t.Errorf("export beside a running tick: exit %d, output %q; want 3 naming node-b", code, out)
	}
	if err := other.FinishTick(t.Context(), busy, 3, "STOCK_000003.csv", nil); err != nil {
		t.Fatal(err)
	}
	if out, code := runExportCmd(t, "--config", cfg, "--outbox", "erp", "stock"); code != exitOK || !strings.Contains(out, "STOCK_000003.csv") {
		t.Errorf("export once the other run finished: exit %d, output %q", code, out)
	}
	// One history: the three runs here, node-b's, and the refused one,
	// skipped, which ran nothing.
	runs, err = db.RecentRuns(t.Context(), "erp", "stock", 0)
	states := map[journal.RunState]int{}
	for _, r := range runs {
		states[r.State]++
	}
	if err != nil || len(runs) != 5 || states[journal.RunDone] != 4 || states[journal.RunSkipped] != 1 {
		t.Errorf("runs in PostgreSQL = %+v, %v; want 4 done and the refused one skipped", runs, err)
	}
}

// TestWhoHoldsWhatOnPostgres: on a shared journal `files` and `show` name
// the instance holding each open file and until when, and `exports` which
// instance ran the last scheduled time of each export.
func TestWhoHoldsWhatOnPostgres(t *testing.T) {
	cluster := pgtest.Start(t)
	url := cluster.Database(t, "cmd_holders")
	cfg := pgConfig(t, url, "http://127.0.0.1:1/api",
		exportTable("stock", "@every 5s", "STOCK_{seq}.csv"), exportTable("movements", "*/5 * * * *", "MOVES_{seq}.csv"))
	ctx := t.Context()
	node, err := journal.OpenWith(ctx, journal.Options{URL: url, Instance: "node-a"})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	id, err := node.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "ORDERS_1.csv", Path: "processing/ORDERS_1.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	tick := time.Now().Truncate(5 * time.Second)
	tk, won, err := node.ClaimTick(ctx, "erp", "stock", tick)
	if err != nil || !won {
		t.Fatalf("ClaimTick = %v, %v", won, err)
	}
	if err := node.FinishTick(ctx, tk, 4, "STOCK_000001.csv", nil); err != nil {
		t.Fatal(err)
	}
	tickText := localTime(tick) + " done by node-a at "
	tests := []struct {
		name string
		out  string
		want []string
	}{
		{"files", mustRunOn(t, cfg, newFilesCmd()), []string{"HELD BY", "ORDERS_1.csv", "claimed", "node-a until "}},
		{"files json", mustRunOn(t, cfg, newFilesCmd(), "--format", "json"), []string{`"held_by": {`, `"instance": "node-a"`}},
		{"show", mustRunOn(t, cfg, newShowCmd(), strconv.FormatInt(id, 10)), []string{"held by     node-a until "}},
		{"exports", mustRunOn(t, cfg, newExportsCmd()), []string{"LAST TICK", "stock", tickText, "movements", "instances seen in the last 24 hours: node-a (last renewal "}},
		{"exports json", mustRunOn(t, cfg, newExportsCmd(), "--format", "json"), []string{`"last_tick": {`, `"state": "done"`, `"instance": "node-a"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if w, missing := missingInOrder(tt.out, tt.want); missing {
				t.Fatalf("output lacks %q (in this order):\n%s", w, tt.out)
			}
		})
	}
}
