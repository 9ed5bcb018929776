package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/spf13/cobra"

	"filebridge/internal/config"
	"filebridge/internal/journal"
	"filebridge/internal/outbox"
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
zone.

Exit codes: 0 listed; 2 usage or configuration error; 3 the journal could not
be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExports(cmd.Context(), cfgPath, outboxName, format, cmd.OutOrStdout(), time.Now())
		},
	}
	cmd.Flags().StringVar(&cfgPath, "config", "", "configuration file (required)")
	cmd.Flags().StringVar(&outboxName, "outbox", "", "only this outbox")
	cmd.Flags().StringVar(&format, "format", "table", "output: table, json or csv")
	_ = cmd.MarkFlagRequired("config")
	return cmd
}

// ExportStatus is one export as `exports` and the console show it.
type exportStatus struct {
	Outbox      string     `json:"outbox"`
	Type        string     `json:"type"`
	Schedule    string     `json:"schedule"`
	LastRun     *time.Time `json:"last_run,omitempty"`
	LastRows    int        `json:"last_rows"`
	LastFile    string     `json:"last_file,omitempty"`
	Running     bool       `json:"running,omitempty"`
	LastSuccess *time.Time `json:"last_success,omitempty"`
	Cursor      *time.Time `json:"cursor,omitempty"`
	NextRun     *time.Time `json:"next_run,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// exportStatuses reads the journal's summary of every configured export.
func exportStatuses(ctx context.Context, cfg *config.Config, db *journal.DB, only string, now time.Time) ([]exportStatus, error) {
	var out []exportStatus
	for i := range cfg.Outboxes {
		ob := &cfg.Outboxes[i]
		if only != "" && ob.Name != only {
			continue
		}
		jobs, err := outbox.Jobs(cfg, ob)
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			s, err := db.ExportSummary(ctx, ob.Name, string(j.Type))
			if err != nil {
				return nil, err
			}
			st := exportStatus{Outbox: ob.Name, Type: string(j.Type), Schedule: j.Schedule,
				LastRun: timePtr(s.Last.StartedAt), LastRows: s.Last.Rows, LastFile: s.Last.FileName,
				Running: s.Last.ID != 0 && s.Last.Running(), LastSuccess: timePtr(s.LastSuccess.FinishedAt)}
			if s.HasCursor {
				st.Cursor = timePtr(s.Cursor.At)
			}
			if s.LastError.ID != 0 && s.LastError.ID >= s.LastSuccess.ID {
				st.LastError, st.LastErrorAt = s.LastError.Error, timePtr(s.LastError.FinishedAt)
			}
			if next, ok := nextRun(j, now); ok {
				st.NextRun = &next
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// nextRun is the job's next scheduled start after now.
func nextRun(j outbox.Job, now time.Time) (time.Time, bool) {
	sched, err := cron.ParseStandard(j.Schedule)
	if err != nil {
		return time.Time{}, false
	}
	loc := j.Location
	if loc == nil {
		loc = time.UTC
	}
	next := sched.Next(now.In(loc))
	return next, !next.IsZero()
}

func runExports(ctx context.Context, cfgPath, only, formatText string, w io.Writer, now time.Time) error {
	format, err := parseFormat(formatText)
	if err != nil {
		return withCode(exitUsage, err)
	}
	cfg, db, err := openJournalRO(ctx, cfgPath)
	if err != nil {
		return err
	}
	defer db.Close()
	if only != "" && cfg.Outbox(only) == nil {
		var names []string
		for _, o := range cfg.Outboxes {
			names = append(names, o.Name)
		}
		return withCode(exitUsage, fmt.Errorf("--outbox %q: no such outbox in %s: use one of %s", only, cfg.File, orNone(names)))
	}
	sts, err := exportStatuses(ctx, cfg, db, only, now)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	if format == formatJSON {
		if sts == nil {
			sts = []exportStatus{}
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
	for _, s := range sts {
		last := lt(s.LastRun)
		if s.Running {
			last += " (running or interrupted)"
		}
		t.add(s.Outbox, s.Type, last, strconv.Itoa(s.LastRows), orDash(s.LastFile), lt(s.Cursor), lt(s.NextRun),
			lt(s.LastSuccess), orDash(s.LastError))
	}
	if err := t.write(w, format); err != nil {
		return withCode(exitUnreachable, err)
	}
	if format == formatTable && len(sts) == 0 {
		fmt.Fprintln(w, "no export configured")
	}
	return nil
}
