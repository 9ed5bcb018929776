package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/console"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/outbox"
	"filebridge/internal/portal"
)

func init() { rootCmd.AddCommand(newExportCmd(), newExportsCmd()) }

// newExportCmd builds `filebridge export`: one configured export, now.
func newExportCmd() *cobra.Command {
	var cfgPath, outboxName, since string
	cmd := &cobra.Command{
		Use:   "export --config FILE --outbox NAME TYPE [--since TIME]",
		Short: "Run one export of an outbox now",
		Long: `export runs one of an outbox's configured exports now, exactly as its schedule
would: it lists what changed since the export's cursor, writes the file into the
outbox under a temporary name, renames it into place and then advances the cursor.
It prints the file written and its row count. TYPE is receipts, shipments, stock,
movements, tracking or items (as the portal's edition offers).

--since exports everything from that time on again (RFC 3339, or a date
2006-01-02 taken at midnight in the export's time zone) without reading or
moving the cursor.

While "filebridge run" owns the journal (SQLite), only it may move the cursor:
export then hands the run to it over server.listen (with [server]'s token),
waits for it and prints what it wrote. A journal shared by several instances
(PostgreSQL) needs no hand-over: the run is recorded as a tick of its own, so it
never overlaps a scheduled one.

Exit codes: 0 done (also when there was nothing to export); 1 the portal refused
the token or a value cannot be written; 2 usage or configuration error;
3 the portal, the folder or the journal could not be reached, a run of this
export is going on (here, in filebridge run or on another instance), or
filebridge run owns the journal and serves nothing on server.listen.`,
		Args: exportArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			typeName := ""
			if len(args) == 1 {
				typeName = args[0]
			}
			return runExport(cmd, cfgPath, outboxName, typeName, since)
		},
	}
	requireConfig(cmd, &cfgPath)
	cmd.Flags().StringVar(&outboxName, "outbox", "", "name of the outbox (required)")
	cmd.Flags().StringVar(&since, "since", "", "export again from this time on, leaving the cursor alone")
	_ = cmd.MarkFlagRequired("outbox")
	return cmd
}

func runExport(cmd *cobra.Command, cfgPath, outboxName, typeName, sinceText string) error {
	ctx := cmd.Context()
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		return err
	}
	out := cfg.Outbox(outboxName)
	if out == nil {
		return withCode(exitUsage, fmt.Errorf("no outbox %q in %s: use one of %s", outboxName, cfg.File, orNone(outboxNames(cfg))))
	}
	p := cfg.Portal(out.Portal)
	jobs, err := outbox.Jobs(cfg, out)
	if err != nil {
		return withCode(exitUsage, err)
	}
	var configured []string
	for i := range jobs {
		configured = append(configured, string(jobs[i].Type))
	}
	if typeName == "" {
		return withCode(exitUsage, fmt.Errorf("export needs the TYPE to run: outbox %s has %s; e.g. filebridge export --config %s --outbox %s %s",
			out.Name, orNone(configured), cfgPath, out.Name, firstOr(configured, "TYPE")))
	}
	typ, err := model.ParseExportType(p.Edition, typeName)
	if err != nil {
		return withCode(exitUsage, err)
	}
	i := slices.Index(configured, string(typ))
	if i < 0 {
		return withCode(exitUsage, fmt.Errorf("outbox %s has no %s export: add an [[outboxes.exports]] with type = %q, or run one of %s",
			out.Name, typ, typ, orNone(configured)))
	}
	job := &jobs[i]
	var since time.Time
	if sinceText != "" {
		if since, err = parseSince(sinceText, job.Location); err != nil {
			return withCode(exitUsage, err)
		}
	}

	log := app.NewLogger(cfg.Log, cmd.ErrOrStderr())
	lock, err := app.AcquireJournalLock(cfg) // the export cursors are the journal owner's to move
	if le := (*journal.LockedError)(nil); errors.As(err, &le) {
		// filebridge run owns the journal: it runs the export.
		return exportByDaemon(ctx, cfg, out.Name, string(typ), since, le, cmd.OutOrStdout())
	}
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	db, closeJournal, err := openLockedJournal(ctx, cfg, lock, log)
	if err != nil {
		return err
	}
	defer closeJournal()
	f, err := app.OpenOutboxFolder(ctx, out, log)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	defer f.Close()
	pc := app.PortalConfig(p)
	pc.Logger = log.With("portal", p.Name)
	src, err := outbox.NewPortalSource(pc)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("portal %s: %w", p.Name, err))
	}
	defer src.Close()

	runner := &outbox.Runner{Source: src, Folder: f, Journal: db, Logger: log}
	var ticks outbox.Ticks
	if db.Shared() {
		// Other instances share the cursors: this run is a tick of its
		// own, held by this process like a daemon's (its lock and lease).
		release, err := db.HoldInstance(ctx)
		if err != nil {
			return withCode(exitUnreachable, err)
		}
		defer release()
		beat := time.NewTicker(db.Lease() / 3)
		defer beat.Stop()
		kctx, stop := context.WithCancel(ctx)
		defer stop()
		go db.KeepAlive(kctx, beat.C, log)
		ticks = db
	}
	res, err := outbox.RunNow(ctx, ticks, db.Now(), *job, func(ctx context.Context) (outbox.Result, error) {
		if sinceText != "" {
			return runner.RunSince(ctx, *job, since)
		}
		return runner.Run(ctx, *job)
	})
	if errors.Is(err, outbox.ErrExportRunning) {
		return withCode(exitUnreachable, err)
	}
	if err != nil {
		if hint := portal.Hint(err, p.Name); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		return withCode(exportExitCode(err), err)
	}
	w := cmd.OutOrStdout()
	if res.File == "" {
		fmt.Fprintf(w, "%s/%s: nothing to export, no file written\n", out.Name, typ)
		return nil
	}
	fmt.Fprintf(w, "%s/%s: wrote %s in %s (%d %s)\n", out.Name, typ, res.File, f, res.Rows, plural(res.Rows, "row", "rows"))
	return nil
}

// exportExitCode classes a failed export: the remote side or the data at
// fault is 1, anything unreachable 3.
func exportExitCode(err error) int {
	if console.ExportRefused(err) {
		return exitInvalid
	}
	return exitUnreachable
}

// parseSince reads --since: RFC 3339, or a date (midnight in loc).
func parseSince(s string, loc *time.Location) (time.Time, error) {
	if t, ok := parseTimeIn(s, cmp.Or(loc, time.UTC)); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: write a time as 2026-11-21T08:00:00Z (RFC 3339), 2026-11-21T08:00:00 (in the export's time zone) or a date 2026-11-21", s)
}

// exportArgs accepts zero or one TYPE: without it, runExport lists the
// outbox's exports instead of cobra's bare "accepts 1 arg(s)".
func exportArgs(_ *cobra.Command, args []string) error {
	if len(args) > 1 {
		return fmt.Errorf("export runs one TYPE at a time, got %d (%s): run it once per type", len(args), strings.Join(args, ", "))
	}
	return nil
}

// newExportsCmd builds `filebridge exports`: each export's last run,
// cursor and next scheduled run.
func newExportsCmd() *cobra.Command {
	var cfgPath, outboxName, format string
	cmd := &cobra.Command{
		Use:   "exports --config FILE [--outbox NAME] [--format table|json|csv]",
		Short: "Show each export's last run, cursor, next scheduled run and last error",
		Long: `exports lists every configured export of every outbox (or of --outbox) with its
last run (when, rows, file written), its cursor (how far it has read), the next
run its schedule gives, its last successful run and its last error. It reads the
journal only (works while "filebridge run" writes it, and on a stopped system,
where "next run" is when run would start it). Times are in this machine's time
zone. On a journal shared by several instances (PostgreSQL) LAST TICK says
which instance ran the last scheduled time, how it ended and when, and a last
line lists the instances seen in the last 24 hours with their last renewal.

Exit codes: 0 listed; 2 usage or configuration error; 3 the journal could not
be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExports(cmd.Context(), cfgPath, outboxName, format, cmd.OutOrStdout(), time.Now())
		},
	}
	requireConfig(cmd, &cfgPath)
	cmd.Flags().StringVar(&outboxName, "outbox", "", "only this outbox")
	cmd.Flags().StringVar(&format, "format", "table", "output: table, json or csv")
	return cmd
}

func runExports(ctx context.Context, cfgPath, only, formatText string, w io.Writer, now time.Time) error {
	format, cfg, db, err := openJournalRO(ctx, cfgPath, formatText)
	if err != nil {
		return err
	}
	defer db.Close()
	if only != "" && cfg.Outbox(only) == nil {
		return withCode(exitUsage, fmt.Errorf("--outbox %q: no such outbox in %s: use one of %s", only, cfg.File, orNone(outboxNames(cfg))))
	}
	sts, err := console.Exports(ctx, cfg, db, only, now)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	if format == formatJSON {
		if sts == nil {
			sts = []console.ExportStatus{}
		}
		return printJSON(w, sts)
	}
	lt := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return localTime(*t)
	}
	t := &table{header: []string{"OUTBOX", "EXPORT", "LAST RUN", "ROWS", "FILE", "CURSOR", "NEXT RUN", "LAST SUCCESS", "LAST ERROR"}}
	if db.Shared() {
		// Several instances: which one ran the last scheduled time.
		t.header = append(t.header, "LAST TICK")
	}
	for _, s := range sts {
		last := lt(s.LastRun)
		if s.Running {
			last += " (running or interrupted)"
		}
		cells := []string{s.Outbox, s.Type, last, strconv.Itoa(s.LastRows), cmp.Or(s.LastFile, "-"), lt(s.Cursor), lt(s.NextRun),
			lt(s.LastSuccess), cmp.Or(s.LastError, "-")}
		if db.Shared() {
			tick := "-"
			if s.Tick != nil {
				tick = s.Tick.Text(localTime)
			}
			cells = append(cells, tick)
		}
		t.add(cells...)
	}
	if err := t.write(w, format); err != nil {
		return withCode(exitUnreachable, err)
	}
	if format == formatTable && len(sts) == 0 {
		fmt.Fprintln(w, "no export configured")
	}
	if format == formatTable && db.Shared() {
		seen, err := db.Instances(ctx, now.Add(-24*time.Hour))
		if err != nil {
			return withCode(exitUnreachable, err)
		}
		var list []string
		for _, in := range seen {
			list = append(list, fmt.Sprintf("%s (last renewal %s)", in.Name, localTime(in.SeenAt)))
		}
		fmt.Fprintf(w, "instances seen in the last 24 hours: %s\n", cmp.Or(strings.Join(list, ", "), "none"))
	}
	return nil
}

func firstOr(names []string, def string) string {
	if len(names) == 0 {
		return def
	}
	return names[0]
}

// inboxNames and outboxNames are the names cfg configures, for an error
// about a name it lacks.
func inboxNames(cfg *config.Config) []string {
	return namesOf(cfg.Inboxes, func(in config.Inbox) string { return in.Name })
}

func outboxNames(cfg *config.Config) []string {
	return namesOf(cfg.Outboxes, func(o config.Outbox) string { return o.Name })
}

func namesOf[T any](items []T, name func(T) string) []string {
	names := make([]string, 0, len(items))
	for _, it := range items {
		names = append(names, name(it))
	}
	return names
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "(none configured)"
	}
	return strings.Join(names, ", ")
}

// exportByDaemon hands an export to the filebridge run that owns cfg's
// journal (only it may move the export's cursor): a POST to the console's
// /api/exports/{outbox}/{export}/run on server.listen, which answers once
// the run finished. It prints what the daemon wrote, with the exit codes
// of an export run here.
func exportByDaemon(ctx context.Context, cfg *config.Config, outboxName, typ string, since time.Time, owner *journal.LockedError, w io.Writer) error {
	srv, pid := cfg.Server, app.PIDText(owner.PID)
	if srv.Listen == "" {
		return withCode(exitUnreachable, fmt.Errorf(`filebridge run (%s) owns journal %s, and only it may run this export, but it serves no HTTP to hand the run to: server.listen is "" in %s; set [server] listen = "127.0.0.1:9090" there and restart filebridge run (then export asks it), or stop filebridge run and export again`,
			pid, cfg.Journal.Path, cfg.File))
	}
	var body console.ExportRequest
	if !since.IsZero() {
		body.Since = &since
	}
	b, err := json.Marshal(body)
	if err != nil {
		return withCode(exitUsage, err)
	}
	req, err := daemonRequest(ctx, srv, http.MethodPost, "/api/exports/"+url.PathEscape(outboxName)+"/"+url.PathEscape(typ)+"/run", b)
	if err != nil {
		return err
	}
	u := req.URL.String()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return withCode(exitUnreachable, fmt.Errorf("another filebridge (%s) owns journal %s, so the export is its to run, but nothing answers on server.listen %s: %w (is it filebridge run, started with this configuration? a process or replay holding the journal serves nothing: run export again once it finished)",
			pid, cfg.Journal.Path, srv.Listen, err))
	}
	defer resp.Body.Close()
	if refusedToken(resp) {
		if srv.Token.IsZero() {
			return withCode(exitUsage, fmt.Errorf("%s answered %s: the daemon's console takes logins this command does not have; set [server] token_env in %s (and restart filebridge run) so that export can ask it", u, resp.Status, cfg.File))
		}
		return withCode(exitUsage, fmt.Errorf("%s answered %s: the token of [server] token_env is not the one the daemon uses", u, resp.Status))
	}
	var ans console.ExportAnswer
	if err := decodeAnswer(resp, &ans); err != nil || ans.Outbox == "" {
		return withCode(exitUnreachable, fmt.Errorf("%s answered %s without an export result: is it an older filebridge, or another program listening on %s?", u, resp.Status, srv.Listen))
	}
	name := outboxName + "/" + typ
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("filebridge run (%s) ran it: %s", pid, ans.Error)
		switch resp.StatusCode {
		case http.StatusUnprocessableEntity:
			return withCode(exitInvalid, err)
		case http.StatusNotFound, http.StatusBadRequest:
			return withCode(exitUsage, fmt.Errorf("%w (reload it with SIGHUP after changing %s)", err, cfg.File))
		}
		return withCode(exitUnreachable, err)
	}
	if ans.File == "" {
		fmt.Fprintf(w, "%s: nothing to export, no file written (run by filebridge run, %s)\n", name, pid)
		return nil
	}
	fmt.Fprintf(w, "%s: wrote %s in %s (%d %s; run by filebridge run, %s)\n", name, ans.File, ans.Folder, ans.Rows, plural(ans.Rows, "row", "rows"), pid)
	return nil
}
