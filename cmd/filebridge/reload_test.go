package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/inbox"
	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// eventually waits for what the daemon does in its own goroutines.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, 30*time.Second, what, cond)
}

// TestReload: SIGHUP adds an inbox without a restart; an invalid file and
// a change of log.level are refused and the running config stays.
func TestReload(t *testing.T) {
	_, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "token"), "demo-token\n", 0o600)
	cfgPath := filepath.Join(dir, "config.toml")
	write := func(level string, inboxes ...string) {
		t.Helper()
		var b strings.Builder
		fmt.Fprintf(&b, "[journal]\npath = \"state/fb.db\"\n[server]\nlisten = \"\"\n[log]\nlevel = %q\n[portals.main]\nedition = \"A\"\nbase_url = %q\ncompany = 42\ntoken_file = \"token\"\n", level, srv.URL+"/api")
		for _, in := range inboxes {
			if err := os.MkdirAll(filepath.Join(dir, in), 0o755); err != nil {
				t.Fatal(err)
			}
			// A transient failure on a loaded machine retries within the test's wait.
			fmt.Fprintf(&b, "[[inboxes]]\nname = %q\nportal = \"main\"\nurl = %q\npoll = \"100ms\"\nretry_backoff = \"1s\"\nretry_backoff_max = \"2s\"\n", in, in)
		}
		writeFile(t, cfgPath, b.String(), 0o644)
	}
	write("info", "a")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the daemon's log:\n%s", logs.String())
		}
	})
	ctx, cancel := context.WithCancel(t.Context())
	hup := make(chan os.Signal, 1)
	done := make(chan error, 1)
	metrics := app.NewMetrics(nil)
	go func() {
		done <- runReloading(ctx, cfgPath, cfg, log, app.Options{Inbox: inbox.Options{SkipSettle: true}, Metrics: metrics}, hup)
	}()
	// count sums a counter of the process's metrics over its labels.
	count := func(name string) float64 {
		t.Helper()
		families, err := metrics.Registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, mf := range families {
			if mf.GetName() == name {
				for _, m := range mf.GetMetric() {
					sum += m.GetCounter().GetValue()
				}
			}
		}
		return sum
	}
	n := 0
	dropAndWait := func(in string) {
		t.Helper()
		n++
		name := fmt.Sprintf("SUPPLIERS_%d.csv", n)
		data := fmt.Sprintf("code,name,relationship\nSUP-%d,Supplier %d,Manufacturer\n", n, n)
		writeFile(t, filepath.Join(dir, in, name), data, 0o644)
		eventually(t, name+" processed in inbox "+in, func() bool {
			m, _ := filepath.Glob(filepath.Join(dir, in, "processed", "*", "*", "*", name))
			return len(m) == 1
		})
	}
	dropAndWait("a")
	filesBefore, writesBefore := count("filebridge_inbox_files_total"), count("filebridge_journal_writes_total")

	// A new inbox, without a restart.
	write("info", "a", "b")
	hup <- nil
	eventually(t, "the reload", func() bool { return strings.Contains(logs.String(), "configuration reloaded") })
	dropAndWait("b")
	// The counters went on across the reload, they did not start again.
	eventually(t, "the second file counted", func() bool { return count("filebridge_inbox_files_total") >= filesBefore+1 })
	if w := count("filebridge_journal_writes_total"); w <= writesBefore {
		t.Errorf("journal writes %v after the reload, %v before: the counter went back", w, writesBefore)
	}

	// An invalid file keeps the running config.
	writeFile(t, cfgPath, "[portals.main]\nedition = \"Z\"\n", 0o644)
	hup <- nil
	eventually(t, "the refusal of the invalid file", func() bool {
		return strings.Contains(logs.String(), "the new configuration is invalid; the running one stays")
	})
	dropAndWait("b")

	// A key only a restart applies.
	write("debug", "a", "b")
	hup <- nil
	eventually(t, "the refusal of log.level", func() bool {
		return strings.Contains(logs.String(), "changes log.level, which only a restart applies")
	})
	dropAndWait("a")
	if c := strings.Count(logs.String(), "configuration reloaded"); c != 1 {
		t.Errorf("%d reloads, want 1", c)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run ended with %v", err)
	}
}

// TestRestartKeys: a reload refuses changes to the journal (where it is,
// its password, the lease of its claims) along with the listener and the
// logger; other keys it applies.
func TestRestartKeys(t *testing.T) {
	base := func() *config.Config {
		var c config.Config
		c.Journal.URL = "postgres://fb@127.0.0.1:5432/fb"
		c.Journal.PasswordEnv = "FB_PG"
		c.Journal.Password = config.NewSecret("one")
		c.Journal.Lease.Duration = 30 * time.Second
		return &c
	}
	tests := []struct {
		name   string
		change func(c *config.Config)
		want   []string
	}{
		{"nothing", func(*config.Config) {}, nil},
		{"journal url", func(c *config.Config) { c.Journal.URL = "postgres://fb@127.0.0.1:5433/fb" }, []string{"journal.url"}},
		{"journal path", func(c *config.Config) { c.Journal.Path = "other.db" }, []string{"journal.path"}},
		{"password value", func(c *config.Config) { c.Journal.Password = config.NewSecret("two") }, []string{"journal.password"}},
		{"password file", func(c *config.Config) { c.Journal.PasswordEnv, c.Journal.PasswordFile = "", "pw" }, []string{"journal.password"}},
		{"lease", func(c *config.Config) { c.Journal.Lease.Duration = time.Minute }, []string{"journal.lease"}},
		{"log level and lease", func(c *config.Config) { c.Log.Level = "debug"; c.Journal.Lease.Duration = time.Minute }, []string{"journal.lease", "log.level"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := base()
			tt.change(next)
			if got := restartKeys(base(), next); !slices.Equal(got, tt.want) {
				t.Errorf("restartKeys = %q, want %q", got, tt.want)
			}
		})
	}
}
