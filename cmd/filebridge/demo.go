package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge"
	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portalsim"
	"filebridge/internal/samples"
)

// demoToken is the simulator's bearer token in the demo.
const demoToken = "demo-token"

// demoListen is the metrics address the demo prefers.
const demoListen = "127.0.0.1:9464"

type demoFlags struct {
	dir, edition, listen string
	once                 bool
}

func init() {
	var fl demoFlags
	cmd := &cobra.Command{
		Use:   "demo [--dir DIR] [--once] [--edition A|B] [--listen ADDR]",
		Short: "Run everything embedded: a simulated portal, local folders and the sample files",
		Long: `demo starts the portal simulator in this process, creates DIR with inbox/ and
outbox/, writes DIR/config.toml (a real configuration for "filebridge run",
its token in DIR/token), copies the good and bad sample files of the edition
into the inbox, processes them in dependency order and prints where each went
and why. Then it moves the simulated warehouse on, runs every export once so
that files appear in outbox/, and keeps running as "filebridge run" does
(--once: it stops there). Logs go to DIR/filebridge.log.

Every run starts a fresh simulator, so it starts a fresh journal too: the
previous one is kept as DIR/var/previous/ and the sample files go through
again instead of being reported as duplicates of documents the new simulator
never saw.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), fl, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.dir, "dir", "filebridge-demo", "folder of the demo (created)")
	f.StringVar(&fl.edition, "edition", "A", "API edition of the simulated portal: A or B")
	f.StringVar(&fl.listen, "listen", "127.0.0.1:0", "address of the simulator (default: a free port)")
	f.BoolVar(&fl.once, "once", false, "stop after the first round and the exports")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(exitUsage, err) })
	rootCmd.AddCommand(cmd)
}

func runDemo(ctx context.Context, fl demoFlags, w io.Writer) error {
	ed, err := model.ParseEdition(fl.edition)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--edition: %w", err))
	}
	dir, err := filepath.Abs(fl.dir)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("--dir %s: %w", fl.dir, err))
	}

	// The simulator, in this process. It moves on by itself only while the
	// demo keeps running; the first round ticks it by hand.
	tick := 10 * time.Second
	if fl.once {
		tick = 0
	}
	sim, err := portalsim.New(portalsim.Options{Edition: portalsim.Edition(ed), Token: demoToken, Seed: 1, Tick: tick})
	if err != nil {
		return withCode(exitUsage, err)
	}
	ln, err := net.Listen("tcp", fl.listen)
	if err != nil {
		return withCode(exitUnreachable, fmt.Errorf("starting the simulator on %s: %w; choose another --listen", fl.listen, err))
	}
	simCtx, stopSim := context.WithCancel(context.WithoutCancel(ctx))
	simDone := make(chan error, 1)
	go func() { simDone <- sim.Serve(simCtx, ln) }()
	defer func() {
		stopSim()
		<-simDone
	}()
	baseURL := fmt.Sprintf("http://%s/api", ln.Addr())

	cfgPath, err := writeDemoFolder(dir, ed, baseURL)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	if err := setAsideDemoJournal(dir); err != nil {
		return withCode(exitUnreachable, err)
	}
	copied, err := copySamples(filepath.Join(dir, "inbox"), ed)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("the demo wrote an invalid config (a bug): %w", err))
	}
	logFile, err := os.OpenFile(filepath.Join(dir, "filebridge.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return withCode(exitUnreachable, fmt.Errorf("creating the demo log: %w", err))
	}
	defer logFile.Close()
	log := app.NewLogger(cfg.Log, logFile)

	fmt.Fprintf(w, "filebridge demo, edition %s (API %s)\n", ed, ed.APIVersion())
	fmt.Fprintf(w, "  simulated portal  %s (its token is in %s)\n", baseURL, filepath.Join(dir, "token"))
	fmt.Fprintf(w, "  folder            %s\n", dir)
	fmt.Fprintf(w, "  config            %s\n", cfgPath)
	fmt.Fprintf(w, "  log               %s\n", logFile.Name())
	if cfg.Server.Listen != "" {
		fmt.Fprintf(w, "  console           http://%s/\n", cfg.Server.Listen)
	}
	fmt.Fprintf(w, "\ncopied %d sample files into inbox/; processing them in dependency order...\n\n", copied)

	err = runDaemon(ctx, cfg, log, app.Options{}, func(d *app.Daemon) error {
		if err := demoRound(ctx, d, w); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		for range 3 {
			sim.Tick()
		}
		demoExports(ctx, d, w)
		if fl.once {
			fmt.Fprintf(w, "\ndone (--once). Look into %s; run it again with:\n  %s\n", dir, demoRerun(fl))
			return errDemoOnce
		}
		fmt.Fprintf(w, "\nstill running as \"filebridge run\" does: drop files into %s; exports run every 5 minutes.\n",
			filepath.Join(dir, "inbox"))
		if cfg.Server.Listen != "" {
			fmt.Fprintf(w, "console http://%s/ (metrics /metrics, health /healthz); Ctrl-C stops.\n", cfg.Server.Listen)
		}
		return nil
	})
	if errors.Is(err, errDemoOnce) {
		return nil
	}
	return err
}

// demoCount is "1 document", "3 documents".
func demoCount(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

// demoRerun is the command that runs the same demo again: same folder,
// same edition (a rerun in an edition B folder without --edition B would
// run edition A there).
func demoRerun(fl demoFlags) string {
	cmd := "filebridge demo --dir " + fl.dir
	if ed, err := model.ParseEdition(fl.edition); err == nil && ed != model.EditionA {
		cmd += " --edition " + string(ed)
	}
	if fl.once {
		cmd += " --once"
	}
	return cmd
}

// setAsideDemoJournal moves the journal of a previous demo run in dir
// (var/filebridge.db and its -wal/-shm files) to var/previous/: its
// documents were created in a simulator that no longer runs.
func setAsideDemoJournal(dir string) error {
	db := filepath.Join(dir, "var", "filebridge.db")
	if _, err := os.Stat(db); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	prev := filepath.Join(dir, "var", "previous")
	if err := os.MkdirAll(prev, 0o755); err != nil {
		return fmt.Errorf("setting the previous demo journal aside: %w", err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		err := os.Rename(db+suffix, filepath.Join(prev, "filebridge.db"+suffix))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("setting the previous demo journal aside: %w", err)
		}
	}
	return nil
}

// errDemoOnce ends `demo --once` after the first round, with exit code 0.
var errDemoOnce = errors.New("demo done")

// writeDemoFolder creates DIR, DIR/inbox, DIR/outbox, DIR/token and
// DIR/config.toml (rewritten every time: the simulator's port changes).
func writeDemoFolder(dir string, ed model.Edition, baseURL string) (string, error) {
	for _, d := range []string{dir, filepath.Join(dir, "inbox"), filepath.Join(dir, "outbox")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", fmt.Errorf("creating the demo folder: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(demoToken+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("writing the demo token: %w", err)
	}
	cfgPath := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(demoConfig(ed, baseURL, demoMetricsAddr())), 0o644); err != nil {
		return "", fmt.Errorf("writing the demo config: %w", err)
	}
	return cfgPath, nil
}

// demoMetricsAddr is 127.0.0.1:9464 when free, else another free port.
func demoMetricsAddr() string {
	for _, addr := range []string{demoListen, "127.0.0.1:0"} {
		if ln, err := net.Listen("tcp", addr); err == nil {
			a := ln.Addr().String()
			_ = ln.Close()
			return a
		}
	}
	return ""
}

// copySamples writes the embedded good and bad samples of the edition into
// the inbox, each under a temporary name renamed into place.
func copySamples(inboxDir string, ed model.Edition) (int, error) {
	n := 0
	for _, kind := range []string{"good", "bad"} {
		root := path.Join("samples", string(ed), kind)
		entries, err := fs.ReadDir(filebridge.Samples, root)
		if err != nil {
			return n, fmt.Errorf("reading the embedded samples: %w", err)
		}
		for _, e := range entries {
			if ext := strings.ToLower(path.Ext(e.Name())); e.IsDir() || (ext != ".csv" && ext != ".xlsx") {
				continue // golden files and notes stay out of the inbox
			}
			data, err := fs.ReadFile(filebridge.Samples, path.Join(root, e.Name()))
			if err != nil {
				return n, fmt.Errorf("reading the embedded sample %s: %w", e.Name(), err)
			}
			tmp := filepath.Join(inboxDir, "."+e.Name()+".part")
			if err := os.WriteFile(tmp, data, 0o644); err != nil {
				return n, fmt.Errorf("copying sample %s: %w", e.Name(), err)
			}
			if err := os.Rename(tmp, filepath.Join(inboxDir, e.Name())); err != nil {
				return n, fmt.Errorf("copying sample %s: %w", e.Name(), err)
			}
			n++
		}
	}
	return n, nil
}

// demoRound runs one round of the inbox and prints one line per file.
func demoRound(ctx context.Context, d *app.Daemon, w io.Writer) error {
	rounds, err := d.RunOnce(ctx)
	for _, in := range d.Inboxes {
		res := rounds[in.Name()]
		created := createdCounts(ctx, d.Journal, in.Name())
		width := 0
		for _, f := range res.Files {
			width = max(width, len(f.Name))
		}
		for _, f := range res.Files {
			fmt.Fprintf(w, "  %-*s → %s\n", width, f.Name, describeFile(f, created[f.FinalPath], "inbox/"))
		}
		if res.Retrying > 0 {
			fmt.Fprintf(w, "  %d file(s) left in processing/ to be retried\n", res.Retrying)
		}
		if res.Waiting > 0 {
			fmt.Fprintf(w, "  %d file(s) still being written; they are picked up once settled\n", res.Waiting)
		}
	}
	if err != nil && ctx.Err() == nil {
		if inbox.IsRetry(err) {
			fmt.Fprintf(w, "  the portal or the folder failed for now: %v\n", err)
			return nil
		}
		return withCode(exitUnreachable, err)
	}
	return nil
}

// createdCounts reads from the journal how many documents of each recent
// file of the inbox were created and how many existed already, by the
// file's final path.
func createdCounts(ctx context.Context, j *journal.DB, inboxName string) map[string][2]int {
	out := map[string][2]int{}
	recent, err := j.RecentFiles(ctx, inboxName, 500)
	if err != nil {
		return out
	}
	counts, err := j.ResultCounts(ctx, fileIDs(recent))
	if err != nil {
		return out
	}
	for _, f := range recent {
		if f.FinalPath != "" {
			out[f.FinalPath] = [2]int{counts[f.ID][journal.ResultCreated], counts[f.ID][journal.ResultExists]}
		}
	}
	return out
}

// describeFile says where a file went and why, in one line; created holds
// the documents created and already existing.
// Paths are printed with prefix (the inbox folder).
func describeFile(f inbox.FileResult, created [2]int, prefix string) string {
	where := prefix + "processing/"
	if f.FinalPath != "" {
		where = prefix + path.Dir(f.FinalPath) + "/"
	}
	var why string
	switch {
	case f.Duplicate:
		why = "duplicate of a file already processed: nothing submitted"
	case f.State == journal.FileDone && f.DocsFailed == 0 && created[0]+created[1] == f.DocsOK:
		why = demoCount(created[0], "document", "documents") + " created"
		if created[1] > 0 {
			why += fmt.Sprintf(", %d already there", created[1])
		}
	case f.State == journal.FileDone && f.DocsFailed == 0:
		why = demoCount(f.DocsOK, "document", "documents") + " created or already there"
	case f.State == journal.FileDone:
		why = fmt.Sprintf("%s submitted, %s rejected: see %s", demoCount(f.DocsOK, "document", "documents"),
			demoCount(f.DocsFailed, "document", "documents"), prefix+f.RejectedPath)
	case f.RejectedPath != "":
		why = fmt.Sprintf("%s rejected: see %s", demoCount(max(f.DocsFailed, f.Invalid), "document", "documents"), prefix+f.RejectedPath)
	case f.Message != "":
		why = strings.Join(strings.Fields(f.Message), " ")
	default:
		why = string(f.State)
	}
	if f.ReportPath != "" && f.State == journal.FileFailed && !strings.Contains(why, "see ") {
		why += "; report " + prefix + f.ReportPath
	}
	return fmt.Sprintf("%s (%s)", where, why)
}

// demoExports runs every export once and prints what it wrote.
func demoExports(ctx context.Context, d *app.Daemon, w io.Writer) {
	results := d.ExportOnce(ctx)
	if len(results) == 0 {
		return
	}
	fmt.Fprintf(w, "\nthe simulated warehouse moved on; running every export once:\n\n")
	for _, r := range results {
		name := string(r.Job.Type)
		switch {
		case r.Err != nil:
			fmt.Fprintf(w, "  %-10s failed: %v\n", name, r.Err)
		case r.Result.File == "":
			fmt.Fprintf(w, "  %-10s nothing to export yet\n", name)
		default:
			fmt.Fprintf(w, "  %-10s → outbox/%s (%s)\n", name, r.Result.File, demoCount(r.Result.Rows, "row", "rows"))
		}
	}
}

// demoConfig is the config.toml the demo writes: a real configuration of
// `filebridge run`, relative paths read from the demo folder.
func demoConfig(e model.Edition, baseURL, listen string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# Written by "filebridge demo" (edition %s). It is a real configuration:
#     filebridge sim --edition %s --listen %s &
#     filebridge run --config config.toml
# Drop CSV or XLSX files into inbox/; exports appear in outbox/.

[journal]
path = "var/filebridge.db"

[server]
listen = %q

[log]
level = "info"
format = "text"

[portals.demo]
edition = %q
base_url = %q
company = 42
token_file = "token"
concurrency = 8
max_retries = 3
retry_max_wait = "5s"

[[inboxes]]
name = "demo"
portal = "demo"
url = "inbox"
poll = "2s"
settle = "500ms"
retry_backoff = "5s"
retry_backoff_max = "1m"
%s
[[outboxes]]
name = "demo-out"
portal = "demo"
url = "outbox"
`, e, e, strings.TrimPrefix(strings.TrimSuffix(baseURL, "/api"), "http://"), listen, e, baseURL, samples.Routes(e))
	for _, t := range model.ExportTypes(e) {
		schedule := "*/5 * * * *"
		if t == model.ExportStock {
			schedule = "0 2 * * *"
		}
		fmt.Fprintf(&b, `
  [[outboxes.exports]]
  type = %q
  schedule = %q
`, t, schedule)
	}
	return b.String()
}
