package main

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/journal/pgtest"
	"filebridge/internal/model"
	"filebridge/internal/portalsim"
)

// TestExportOnPostgresJournal runs `export` twice with the journal in
// PostgreSQL ([journal] url, password from the environment): the second
// run takes the next sequence number from the shared journal.
func TestExportOnPostgresJournal(t *testing.T) {
	cluster := pgtest.Start(t)
	url := cluster.Database(t, "cmd_export")
	sim, err := portalsim.New(portalsim.Options{Edition: model.EditionB, Token: "demo-token", Preload: 3,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("FB_PG_TEST_TOKEN", "demo-token")
	t.Setenv("FB_PG_TEST_PASSWORD", "unused-with-trust")
	cfg := filepath.Join(dir, "config.toml")
	data := fmt.Sprintf(`
[journal]
url = %q
password_env = "FB_PG_TEST_PASSWORD"
[log]
level = "error"
[portals.main]
edition = "B"
base_url = %q
company = 42
token_env = "FB_PG_TEST_TOKEN"
max_retries = 0
[[outboxes]]
name = "erp"
portal = "main"
url = "out"
  [[outboxes.exports]]
  type = "stock"
  schedule = "0 2 * * *"
  filename = "STOCK_{seq}.csv"
`, url, srv.URL+"/api")
	if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
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
}
