package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/console"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// outboxConfig writes a config with the given [journal] keys, the portal
// main (edition B) at baseURL with its token from $tokenEnv, and the
// outbox erp with exports (exportTable's), and returns its path.
func outboxConfig(t *testing.T, journalKeys, baseURL, tokenEnv string, exports ...string) string {
	t.Helper()
	return writeFile(t, filepath.Join(t.TempDir(), "config.toml"), fmt.Sprintf(`
[journal]
%s
[log]
level = "error"
[portals.main]
edition = "B"
base_url = %q
company = 42
token_env = %q
max_retries = 0
[[outboxes]]
name = "erp"
portal = "main"
url = "out"
%s`, journalKeys, baseURL, tokenEnv, strings.Join(exports, "")), 0o600)
}

// exportTable is an [[outboxes.exports]] table of outboxConfig's outbox.
func exportTable(typ, schedule, filename string) string {
	return fmt.Sprintf("[[outboxes.exports]]\ntype = %q\nschedule = %q\nfilename = %q\n", typ, schedule, filename)
}

// exportSim serves an Edition B simulator with preload variants in stock,
// for the export tests; its base_url is srv.URL + "/api".
func exportSim(t *testing.T, preload int) *httptest.Server {
	t.Helper()
	_, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionB, Token: "demo-token", Preload: preload,
		Logger: slog.New(slog.DiscardHandler)})
	return srv
}

// runExportCmd returns the output of `filebridge export args...` with its
// error, and its exit code.
func runExportCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := execute(t, newExportCmd(), true, args...)
	if err != nil {
		out.WriteString(err.Error())
	}
	return out.String(), exitCode(err)
}

func TestExportCommand(t *testing.T) {
	srv := exportSim(t, 5)
	t.Setenv("FB_EXPORT_TEST_TOKEN", "demo-token")
	cfg := outboxConfig(t, `path = "state/journal.db"`, srv.URL+"/api", "FB_EXPORT_TEST_TOKEN",
		exportTable("stock", "0 2 * * *", "STOCK_{seq}.csv"), exportTable("items", "0 3 * * *", "ITEMS_{seq}.xlsx"))
	dir := filepath.Dir(cfg)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"stock", []string{"--config", cfg, "--outbox", "erp", "stock"}, exitOK, "erp/stock: wrote STOCK_000001.csv in file://"},
		{"items", []string{"--config", cfg, "--outbox", "erp", "items"}, exitOK, "ITEMS_000001.xlsx"},
		{"items again: nothing new", []string{"--config", cfg, "--outbox", "erp", "items"}, exitOK, "nothing to export"},
		{"items since", []string{"--config", cfg, "--outbox", "erp", "items", "--since", "2020-01-01"}, exitOK, "(5 rows)"},
		{"unknown outbox", []string{"--config", cfg, "--outbox", "nope", "stock"}, exitUsage, `no outbox "nope"`},
		{"not configured", []string{"--config", cfg, "--outbox", "erp", "receipts"}, exitUsage, "has no receipts export"},
		{"unknown type", []string{"--config", cfg, "--outbox", "erp", "parcels"}, exitUsage, "not available in edition B"},
		{"bad since", []string{"--config", cfg, "--outbox", "erp", "items", "--since", "yesterday"}, exitUsage, "--since"},
		{"no type", []string{"--config", cfg, "--outbox", "erp"}, exitUsage, "outbox erp has stock, items"},
		{"two types", []string{"--config", cfg, "--outbox", "erp", "stock", "items"}, exitUsage, "one TYPE at a time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runExportCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, tt.code, tt.want)
			}
		})
	}
	t.Run("exports lists them", func(t *testing.T) {
		got := mustRunOn(t, cfg, newExportsCmd())
		for _, want := range []string{"OUTBOX", "NEXT RUN", "erp     stock", "STOCK_000001.csv", "erp     items", "ITEMS_000002.xlsx"} {
			if !strings.Contains(got, want) {
				t.Errorf("exports output lacks %q:\n%s", want, got)
			}
		}
		out := mustRunOn(t, cfg, newExportsCmd(), "--format", "json", "--outbox", "erp")
		var sts []console.ExportStatus
		if err := json.Unmarshal([]byte(out), &sts); err != nil || len(sts) != 2 {
			t.Fatalf("json: %v, %s", err, out)
		}
		for _, st := range sts {
			if st.NextRun == nil || st.LastRun == nil || st.LastSuccess == nil || st.LastError != "" {
				t.Errorf("export %s: %+v", st.Type, st)
			}
			if st.NextRun != nil && (st.NextRun.Minute() != 0 || st.NextRun.Before(time.Now())) {
				t.Errorf("export %s: next run %s, want the next full hour of its schedule", st.Type, st.NextRun)
			}
		}
		if _, err := execute(t, newExportsCmd(), false, "--config", cfg, "--outbox", "nope"); exitCode(err) != exitUsage {
			t.Errorf("unknown outbox: %v", err)
		}
	})
	t.Run("token refused", func(t *testing.T) {
		t.Setenv("FB_EXPORT_TEST_TOKEN", "wrong")
		out, code := runExportCmd(t, "--config", cfg, "--outbox", "erp", "stock")
		if code != exitInvalid || !strings.Contains(out, "; the portal refused the token: check token_env/token_file of [portals.main]") {
			t.Errorf("exit %d (%s), want %d and what to check", code, out, exitInvalid)
		}
	})
	t.Run("portal unreachable", func(t *testing.T) {
		srv.Close()
		out, code := runExportCmd(t, "--config", cfg, "--outbox", "erp", "stock")
		if code != exitUnreachable || !strings.Contains(out, "check the host and port of base_url in [portals.main]") {
			t.Errorf("exit %d (%s), want %d and what to check", code, out, exitUnreachable)
		}
	})
	if files, _ := filepath.Glob(filepath.Join(dir, "out", "*")); len(files) != 3 {
		t.Errorf("outbox holds %v, want the three files written", files)
	}
}

// TestExportJournalOwned: while another process owns the journal, export
// asks it over server.listen; when the config serves nothing there, or
// nothing answers, it exits 3 and says what to do (no export runs here).
func TestExportJournalOwned(t *testing.T) {
	srv := exportSim(t, 2)
	t.Setenv("FB_EXPORT_OWNED_TOKEN", "demo-token")
	for _, tt := range []struct {
		name, listen string
		want         []string
	}{
		{"server.listen off", "", []string{`server.listen is ""`, `set [server] listen = "127.0.0.1:9090"`, "restart filebridge run"}},
		{"nothing answers", testkit.FreeAddr(t), []string{"nothing answers on server.listen", "owns journal"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := outboxConfig(t, "path = \"state/journal.db\"\n[server]\nlisten = "+strconv.Quote(tt.listen), srv.URL+"/api", "FB_EXPORT_OWNED_TOKEN",
				exportTable("stock", "0 2 * * *", "STOCK_{seq}.csv"))
			dir := filepath.Dir(cfg)
			if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
				t.Fatal(err)
			}
			lock, err := journal.AcquireLock(filepath.Join(dir, "state", "journal.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Release()
			out, code := runExportCmd(t, "--config", cfg, "--outbox", "erp", "stock")
			checkOutput(t, out, code, exitUnreachable, append(tt.want, "PID "+strconv.Itoa(os.Getpid()))...)
			if files, _ := filepath.Glob(filepath.Join(dir, "out", "*")); len(files) != 0 {
				t.Errorf("export wrote %v beside the journal's owner", files)
			}
		})
	}
}

// TestExportAsksDaemon runs a real daemon in-process (it holds the
// journal's lock and serves its console with a token on server.listen):
// export hands it the run with the config's token and prints what it
// wrote; a config with another token is refused (exit 2, naming the token)
// and runs nothing.
func TestExportAsksDaemon(t *testing.T) {
	srv := exportSim(t, 2)
	t.Setenv("FB_EXPORT_ASK_TOKEN", "demo-token")
	t.Setenv("FB_EXPORT_ASK_CONSOLE", "console-token")
	listen := testkit.FreeAddr(t)
	cfgPath := outboxConfig(t, "path = \"state/journal.db\"\n[server]\nlisten = "+strconv.Quote(listen)+"\ntoken_env = \"FB_EXPORT_ASK_CONSOLE\"",
		srv.URL+"/api", "FB_EXPORT_ASK_TOKEN", exportTable("stock", "0 2 1 1 *", "STOCK_{seq}.csv"))
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	running := newOnMessage("filebridge running") // logged once the console serves
	d, err := app.Open(t.Context(), cfg, slog.New(running), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		<-done
		_ = d.Close()
	})
	select {
	case <-running.ch:
	case err := <-done:
		t.Fatalf("the daemon stopped at start: %v", err)
	}

	t.Setenv("FB_EXPORT_ASK_CONSOLE", "another-token")
	out, code := runExportCmd(t, "--config", cfgPath, "--outbox", "erp", "stock")
	if code != exitUsage || !strings.Contains(out, "401 Unauthorized: the token of [server] token_env is not the one the daemon uses") {
		t.Errorf("with another token: exit %d, want %d naming the token:\n%s", code, exitUsage, out)
	}
	t.Setenv("FB_EXPORT_ASK_CONSOLE", "console-token")
	out, code = runExportCmd(t, "--config", cfgPath, "--outbox", "erp", "stock")
	if code != exitOK || !strings.Contains(out, "erp/stock: wrote STOCK_000001.csv in file://") || !strings.Contains(out, "(2 rows; run by filebridge run, PID "+strconv.Itoa(os.Getpid())+")") {
		t.Errorf("with the token: exit %d, want 0 and the file written by the daemon:\n%s", code, out)
	}
	if runs, err := d.Journal.RecentRuns(t.Context(), "erp", "stock", 0); err != nil || len(runs) != 1 {
		t.Errorf("runs of the daemon: %d (%v), want the one authorized", len(runs), err)
	}
}

// onMessage is a logger handler that closes ch at the first record whose
// message is msg (and drops every record).
type onMessage struct {
	msg  string
	ch   chan struct{}
	once *sync.Once
}

func newOnMessage(msg string) onMessage {
	return onMessage{msg: msg, ch: make(chan struct{}), once: &sync.Once{}}
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }
