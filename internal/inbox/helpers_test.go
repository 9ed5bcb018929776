package inbox_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
	"filebridge/internal/templates/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixedNow is when the clock of the tests starts: processed/2026/03/16/.
var fixedNow = time.Date(2026, 3, 16, 10, 0, 0, 0, time.Local)

// clock is the inbox clock of the tests. newEnv's starts at fixedNow and
// runs with real time (settle waits, retry backoffs and Run's timers see
// time pass); a stopped one (&clock{t: fixedNow}, envOpts.stopped) moves
// only by Add.
type clock struct {
	mu    sync.Mutex
	t     time.Time
	since time.Time // real time it runs from; zero: stopped
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since.IsZero() {
		return c.t
	}
	return c.t.Add(time.Since(c.since))
}

// Add moves the clock on by d.
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is one inbox wired to real components: the portal simulator over
// HTTP on 127.0.0.1, a SQLite journal file and a local inbox folder.
type env struct {
	t       *testing.T
	sim     *portalsim.Sim
	url     string // simulator base URL, with /api
	cfg     *config.Config
	dir     string // local inbox folder
	j       *journal.DB
	health  *inbox.Health
	clock   *clock
	in      *inbox.Inbox
	client  *portal.Client
	options inbox.Options
	workers int
}

// envOpts change newEnv.
type envOpts struct {
	edition model.Edition
	routes  string // TOML of [[inboxes.routes]] tables
	inbox   string // extra keys of the [[inboxes]] table
	portal  string // extra keys of the portal table
	token   string // default "demo-token"
	sim     portalsim.Options
	workers int              // default 1
	settle  bool             // honour settle (default: SkipSettle)
	stopped bool             // the clock moves only by Add
	sftp    *sftptest.Server // inbox on this server's /in
}

// route is the TOML of one [[inboxes.routes]] table: its match glob, its
// type and other keys, one a line.
func route(match, typ string, keys ...string) string {
	s := fmt.Sprintf("[[inboxes.routes]]\nmatch = %q\ntype = %q\n", match, typ)
	for _, k := range keys {
		s += k + "\n"
	}
	return s
}

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	if o.edition == "" {
		o.edition = model.EditionA
	}
	o.sim.Edition = portalsim.Edition(o.edition)
	if o.sim.Seed == 0 {
		o.sim.Seed = 7
	}
	sim, err := portalsim.New(o.sim)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	if o.workers == 0 {
		o.workers = 1 // documents created in file order: stable ids in golden reports
	}
	e := &env{t: t, sim: sim, url: srv.URL + "/api", dir: filepath.Join(t.TempDir(), "in"), workers: o.workers}
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	url := e.dir
	secrets := map[string]string{"FB_TEST_TOKEN": o.token}
	if o.sftp != nil {
		url = o.sftp.URL("/in")
		o.inbox += fmt.Sprintf("\npassword_env = \"FB_TEST_SFTP\"\nknown_hosts = %q", o.sftp.KnownHostsFile)
		secrets["FB_TEST_SFTP"] = o.sftp.Password
		if err := o.sftp.Client(t).MkdirAll("/in"); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(o.inbox, "settle") {
		o.inbox += "\nsettle = \"300ms\""
	}
	if !strings.Contains(o.inbox, "file_concurrency") {
		o.inbox += "\nfile_concurrency = 1" // files one at a time: stable ids in golden reports
	}
	toml := fmt.Sprintf(`
[journal]
path = %q
[portals.main]
edition = %q
base_url = %q
company = 42
token_env = "FB_TEST_TOKEN"
retry_max_wait = "200ms"
%s
[[inboxes]]
name = "erp"
portal = "main"
url = %q
retry_backoff = "50ms"
retry_backoff_max = "200ms"
%s
%s
`, filepath.Join(t.TempDir(), "journal.db"), o.edition, e.url, o.portal, url, o.inbox, o.routes)
	cfg, err := config.Decode([]byte(toml), t.TempDir())
	if err != nil {
		t.Fatalf("config: %v\n%s", err, toml)
	}
	if secrets["FB_TEST_TOKEN"] == "" {
		secrets["FB_TEST_TOKEN"] = "demo-token"
	}
	if err := cfg.ResolveSecrets(func(k string) (string, bool) { v, ok := secrets[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	e.cfg = cfg
	e.j, err = journal.Open(context.Background(), cfg.Journal.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.j.Close() })
	e.client, err = app.NewPortal(cfg.Portal("main"), app.PortalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.clock = &clock{t: fixedNow}
	if !o.stopped {
		e.clock.since = time.Now()
	}
	e.health = inbox.NewHealth(e.clock.Now)
	e.options = inbox.Options{SkipSettle: !o.settle, Now: e.clock.Now}
	e.in = e.newInbox(e.client, nil)
	return e
}

// folder is how the daemon opens the env's inbox folder: its configured
// url, credentials and known_hosts.
func (e *env) folder() folder.Options {
	ic := e.cfg.Inboxes[0]
	return app.FolderOptions(ic.Folder, ic.SFTP, ic.OperationTimeout.Duration, nil)
}

// newInbox builds another Inbox on the env's config, journal and health.
func (e *env) newInbox(c *portal.Client, open func(context.Context) (folder.Folder, error)) *inbox.Inbox {
	e.t.Helper()
	in, err := inbox.New(e.cfg.Inboxes[0], inbox.Deps{
		Journal: e.j, Portal: c, Logger: testLogger(e.t), Health: e.health,
		Concurrency: e.workers, Options: e.options, OpenFolder: open, Folder: e.folder(),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = in.Close() })
	return in
}

func testLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})).With("test", t.Name())
	}
	return slog.New(slog.DiscardHandler)
}

// suppliersFile is a suppliers file of n suppliers, coded prefix1 to
// prefixN and named after their codes.
func suppliersFile(prefix string, n int) string {
	var b strings.Builder
	b.WriteString("code,name,relationship\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s%d,Supplier %[1]s%[2]d,Manufacturer\n", prefix, i)
	}
	return b.String()
}

// onceEach checks that the portal holds each of its documents prefix1 to
// prefixN exactly once, and that no create was sent again: the simulator
// refuses a key it holds, so only its count of refused repeats shows one.
func (e *env) onceEach(r portal.Resource, prefix string, n int) {
	e.t.Helper()
	if c := e.sim.RepeatedCreates(); c != 0 {
		e.t.Errorf("%d create(s) were sent again and refused as already used, want 0", c)
	}
	for i := 1; i <= n; i++ {
		if c := e.sim.Count(portalsim.Resource(r), fmt.Sprintf("%s%d", prefix, i)); c != 1 {
			e.t.Errorf("%s %s%d exists %d times, want 1", r, prefix, i, c)
		}
	}
}

// drop writes a file into the inbox (a path of it: "processing/X.csv"),
// making its folders.
func (e *env) drop(name, content string) {
	e.t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// dropSample copies samples/EDITION/KIND/NAME into the inbox as name.
func (e *env) dropSample(sample, name string) {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "samples", sample))
	if err != nil {
		e.t.Fatal(err)
	}
	if name == "" {
		name = filepath.Base(sample)
	}
	e.drop(name, string(b))
}

func (e *env) runOnce() inbox.RoundResult {
	e.t.Helper()
	res, err := e.in.RunOnce(context.Background())
	if err != nil {
		e.t.Fatalf("RunOnce: %v", err)
	}
	return res
}

// exists reports whether a path of the inbox exists.
func (e *env) exists(p string) bool {
	_, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(p)))
	return err == nil
}

func (e *env) read(p string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(p)))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// ls lists the regular files under a folder of the inbox, relative, sorted.
func (e *env) ls(dir string) []string {
	e.t.Helper()
	var out []string
	root := filepath.Join(e.dir, filepath.FromSlash(dir))
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(e.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// processed is today's processed folder of the tests.
const processed = "processed/2026/03/16"

// result finds the FileResult of a name.
func result(t *testing.T, rr inbox.RoundResult, name string) inbox.FileResult {
	t.Helper()
	for _, f := range rr.Files {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no result for %s in %+v", name, rr)
	return inbox.FileResult{}
}

var isoTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// golden compares got with testdata/NAME (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = isoTime.ReplaceAllString(got, "TIME")
	gentest.Golden(t, filepath.Join("testdata", name), []byte(got), *update, "-update")
}
