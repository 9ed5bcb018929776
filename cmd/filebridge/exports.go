package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/console"
)

func init() { rootCmd.AddCommand(newExportsCmd()) }

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
		cells := []string{s.Outbox, s.Type, last, strconv.Itoa(s.LastRows), orDash(s.LastFile), lt(s.Cursor), lt(s.NextRun),
			lt(s.LastSuccess), orDash(s.LastError)}
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
		list := "none"
		for i, in := range seen {
			if i == 0 {
				list = ""
			} else {
				list += ", "
			}
			list += fmt.Sprintf("%s (last renewal %s)", in.Name, localTime(in.SeenAt))
		}
		fmt.Fprintf(w, "instances seen in the last 24 hours: %s\n", list)
	}
	return nil
}
