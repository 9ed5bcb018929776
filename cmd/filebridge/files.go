package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/journal"
)

func init() { rootCmd.AddCommand(newFilesCmd()) }

type filesFlags struct {
	cfgPath, inbox, docType, since, name, format string
	states                                       []string
	limit, page                                  int
	all                                          bool // resolved failures too
}

// newFilesCmd builds `filebridge files`: the journal's history of files.
func newFilesCmd() *cobra.Command {
	var fl filesFlags
	cmd := &cobra.Command{
		Use:   "files --config FILE [--inbox NAME] [--state S] [--all] [--since TIME] [--format table|json|csv]",
		Short: "List the files filebridge received, newest first, from the journal",
		Long: `files lists the files the journal holds, newest first: journal id, name, inbox,
document type, state, when it was received and finished (in this machine's time
zone), data rows, documents by result, and where the file went. It reads the
journal only, so it works while "filebridge run" is writing it and on a stopped
system.

States: claimed and submitting (in processing/ now), done, failed, duplicate;
--state held lists the files held in processing/ for master data not on the
portal yet (claimed or submitting with a hold): the table then names the codes
each waits for and when it fails if they are still missing.
On a journal shared by several instances (PostgreSQL) HELD BY names the
instance working on each open file and until when its lease runs.
--state failed lists the open failures, the work queue: failed files not
resolved yet, with the reason of each; --all adds the resolved ones (resolved by
their replay, by a later file that put their documents in the portal, or
acknowledged with "filebridge ack"), whose state reads "failed (resolved)".
--state can be given several times or as a list (failed,duplicate).
--since takes 24h or 7d (back from now), a date 2026-11-21, a local time
2026-11-21T02:00:00 or RFC 3339. --limit rows a page (default 50), --page N the
Nth page; the last line says how many match.

Exit codes: 0 listed (also none); 2 usage or configuration error; 3 the journal
could not be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFiles(cmd.Context(), fl, cmd.OutOrStdout(), time.Now())
		},
	}
	f := cmd.Flags()
	requireConfig(cmd, &fl.cfgPath)
	f.StringVar(&fl.inbox, "inbox", "", "only this inbox")
	f.StringSliceVar(&fl.states, "state", nil, "only files in these states: claimed, submitting, done, failed, duplicate; held: held for master data")
	f.StringVar(&fl.docType, "type", "", "only files of this document type (e.g. sales_orders)")
	f.StringVar(&fl.since, "since", "", "only files received since then (24h, 7d, 2026-11-21, RFC 3339)")
	f.StringVar(&fl.name, "name", "", "only files whose name contains this")
	f.StringVar(&fl.format, "format", "table", "output: table, json or csv")
	f.IntVar(&fl.limit, "limit", 50, "files a page (0: all)")
	f.IntVar(&fl.page, "page", 1, "page number, 1 the newest")
	f.BoolVar(&fl.all, "all", false, "with --state failed: the resolved failures too")
	return cmd
}

// openJournalRO starts a command that reads the journal (files, show,
// exports): it parses --format, loads the config (without needing its
// secrets) and opens its journal read-only.
func openJournalRO(ctx context.Context, cfgPath, formatText string) (outputFormat, *config.Config, *journal.DB, error) {
	format, err := parseFormat(formatText)
	if err != nil {
		return "", nil, nil, withCode(exitUsage, err)
	}
	cfg, err := decodeCheckConfig(cfgPath)
	if err != nil {
		return "", nil, nil, withCode(exitUsage, fmt.Errorf("config %s: %w", cfgPath, err))
	}
	db, err := app.OpenJournalReadOnly(ctx, cfg)
	if err != nil {
		return "", nil, nil, withCode(exitUnreachable, err)
	}
	return format, cfg, db, nil
}

func (fl filesFlags) filter(cfg *config.Config, now time.Time) (journal.FileFilter, error) {
	ff := journal.FileFilter{Inbox: fl.inbox, DocType: fl.docType, Name: fl.name, Limit: fl.limit}
	if fl.inbox != "" && cfg.Inbox(fl.inbox) == nil {
		return ff, fmt.Errorf("--inbox %q: no such inbox in %s: use one of %s", fl.inbox, cfg.File, orNone(inboxNames(cfg)))
	}
	for _, s := range fl.states {
		st := journal.FileState(strings.ToLower(strings.TrimSpace(s)))
		if st == stateHeld {
			ff.Held = true
			continue
		}
		if !st.Valid() {
			return ff, fmt.Errorf("--state %q: use claimed, submitting, held, done, failed or duplicate", s)
		}
		ff.States = append(ff.States, st)
	}
	ff.Unresolved = slices.Contains(ff.States, journal.FileFailed) && !fl.all
	if ff.Held && len(ff.States) > 0 {
		return ff, fmt.Errorf("--state %s: held lists the held files alone; give --state held without other states", strings.Join(fl.states, ","))
	}
	if fl.since != "" {
		t, err := parseWhen(fl.since, now)
		if err != nil {
			return ff, err
		}
		ff.Since = t
	}
	if fl.page < 1 {
		return ff, fmt.Errorf("--page %d: pages count from 1", fl.page)
	}
	if fl.limit < 0 {
		return ff, fmt.Errorf("--limit %d: give a number of files, 0 for all", fl.limit)
	}
	ff.Offset = (fl.page - 1) * fl.limit
	return ff, nil
}

// stateHeld is --state held: the files held for master data (claimed or
// submitting in the journal, with a hold recorded).
const stateHeld = "held"

// holdUntil is when a held file fails if the codes it waits for are still
// missing (config.HoldUntil); zero when the file is not held.
func holdUntil(cfg *config.Config, f journal.File) time.Time {
	if !f.Held() {
		return time.Time{}
	}
	return cfg.HoldUntil(f.Inbox, f.Name, f.HeldSince)
}

// fileRecord is one file in `files --format json`.
type fileRecord struct {
	ID        int64          `json:"id"`
	Name      string         `json:"name"`
	Inbox     string         `json:"inbox"`
	Type      string         `json:"type"`
	State     string         `json:"state"`
	Received  time.Time      `json:"received"`
	Finished  time.Time      `json:"finished,omitzero"`
	Rows      int            `json:"rows"`
	Documents map[string]int `json:"documents"`
	FinalPath string         `json:"final_path,omitempty"`
	Message   string         `json:"message,omitempty"`
	// Held is set while the file waits for master data not on the portal.
	Held *heldRecord `json:"held,omitempty"`
	// Resolved says how a failed file left the work queue.
	Resolved *resolvedRecord `json:"resolved,omitempty"`
	// HeldBy is, on a journal shared by several instances, the instance
	// working on the open file and until when its lease runs.
	HeldBy *holderRecord `json:"held_by,omitempty"`
}

// resolvedRecord is how a failure was resolved: "replay", "file" (with
// the id of the replay or file) or "acknowledged", by whom, when, why.
type resolvedRecord struct {
	By     string    `json:"by"`
	FileID int64     `json:"file_id,omitempty"`
	Who    string    `json:"who,omitempty"`
	At     time.Time `json:"at"`
	Note   string    `json:"note,omitempty"`
}

func newResolvedRecord(r journal.Resolution) *resolvedRecord {
	if r.Open() {
		return nil
	}
	return &resolvedRecord{By: r.Kind, FileID: r.FileID, Who: r.By, At: r.At, Note: r.Note}
}

// stateText is the state the tables show: "claimed (held)", "failed
// (resolved)".
func stateText(f journal.File) string {
	switch {
	case f.Held():
		return string(f.State) + " (held)"
	case f.State == journal.FileFailed && !f.Resolved.Open():
		return string(f.State) + " (resolved)"
	}
	return string(f.State)
}

// reason is a failure's message cut for a table column.
func reason(msg string, format outputFormat) string {
	const width = 70
	if format != formatTable || len([]rune(msg)) <= width {
		return cmp.Or(msg, "-")
	}
	return string([]rune(msg)[:width-1]) + "…"
}

// holderRecord is who holds an open file of a shared journal.
type holderRecord struct {
	Instance string    `json:"instance"`
	Until    time.Time `json:"until"`
	// Expired: the instance did not renew its lease (it stopped); another
	// instance takes the file over at its next poll.
	Expired bool `json:"expired,omitempty"`
}

// holders maps the open files of a journal shared by several instances to
// who holds them; nil for a SQLite journal (one instance holds all).
func holders(ctx context.Context, db *journal.DB, inbox string, now time.Time) (map[int64]holderRecord, error) {
	if !db.Shared() {
		return nil, nil
	}
	leases, err := db.Leases(ctx, inbox)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]holderRecord, len(leases))
	for _, l := range leases {
		out[l.FileID] = holderRecord{Instance: cmp.Or(l.Owner, "-"), Until: l.Until, Expired: l.Expired(now)}
	}
	return out, nil
}

// heldBy is a holder as the tables show it: "node-a until 12:00:30".
func heldBy(h holderRecord, ok bool) string {
	switch {
	case !ok:
		return "-"
	case h.Expired:
		return fmt.Sprintf("%s, lease ran out %s (another instance takes it over)", h.Instance, localTime(h.Until))
	}
	return fmt.Sprintf("%s until %s", h.Instance, localTime(h.Until))
}

// heldRecord is the hold of a file: since when, until when it waits, and
// the codes it waits for.
type heldRecord struct {
	Since      time.Time `json:"since"`
	Until      time.Time `json:"until,omitzero"`
	WaitingFor []string  `json:"waiting_for"`
}

// newFileRecord is f with its documents' counts and, on a shared
// journal, its holder from hs.
func newFileRecord(cfg *config.Config, f journal.File, counts map[journal.Result]int, hs map[int64]holderRecord) fileRecord {
	r := fileRecord{ID: f.ID, Name: f.Name, Inbox: f.Inbox, Type: f.DocType, State: string(f.State),
		Received: f.ClaimedAt, Rows: f.Rows, Documents: map[string]int{}, FinalPath: f.FinalPath, Message: f.Message,
		Resolved: newResolvedRecord(f.Resolved), Finished: f.FinishedAt()}
	if f.Held() {
		r.Held = &heldRecord{Since: f.HeldSince, Until: holdUntil(cfg, f), WaitingFor: f.WaitingList()}
	}
	for res, n := range counts {
		r.Documents[string(res)] = n
	}
	if h, ok := hs[f.ID]; ok {
		r.HeldBy = &h
	}
	return r
}

func fileIDs(files []journal.File) []int64 {
	ids := make([]int64, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	return ids
}

// docSummary is "3 created, 1 invalid"; "-" without documents.
func docSummary(counts map[journal.Result]int) string { return cmp.Or(journal.Summary(counts), "-") }

func runFiles(ctx context.Context, fl filesFlags, w io.Writer, now time.Time) error {
	format, cfg, db, err := openJournalRO(ctx, fl.cfgPath, fl.format)
	if err != nil {
		return err
	}
	defer db.Close()
	ff, err := fl.filter(cfg, now)
	if err != nil {
		return withCode(exitUsage, err)
	}
	files, err := db.Files(ctx, ff)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	total, err := db.CountFiles(ctx, ff)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	counts, err := db.ResultCounts(ctx, fileIDs(files))
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	hs, err := holders(ctx, db, fl.inbox, now)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	if format == formatJSON {
		recs := make([]fileRecord, 0, len(files))
		for _, f := range files {
			recs = append(recs, newFileRecord(cfg, f, counts[f.ID], hs))
		}
		return printJSON(w, struct {
			Total int          `json:"total"`
			Page  int          `json:"page"`
			Files []fileRecord `json:"files"`
		}{total, fl.page, recs})
	}
	if ff.Held {
		return writeHeld(w, cfg, files, total, format)
	}
	t := &table{header: []string{"ID", "NAME", "INBOX", "TYPE", "STATE", "RECEIVED", "FINISHED", "ROWS", "DOCUMENTS", "FINAL PATH"}}
	failures := slices.Equal(ff.States, []journal.FileState{journal.FileFailed})
	if failures {
		t.header = append(t.header, "REASON")
	}
	if hs != nil {
		t.header = append(t.header, "HELD BY")
	}
	for _, f := range files {
		cells := []string{strconv.FormatInt(f.ID, 10), f.Name, f.Inbox, cmp.Or(f.DocType, "-"), stateText(f), localTime(f.ClaimedAt),
			cmp.Or(localTime(f.FinishedAt()), "-"), strconv.Itoa(f.Rows), docSummary(counts[f.ID]), cmp.Or(f.FinalPath, "-")}
		if failures {
			cells = append(cells, reason(f.Message, format))
		}
		if hs != nil {
			h, ok := hs[f.ID]
			cells = append(cells, heldBy(h, ok))
		}
		t.add(cells...)
	}
	if err := t.write(w, format); err != nil {
		return withCode(exitUnreachable, err)
	}
	if format == formatTable {
		switch {
		case total == 0:
			fmt.Fprintln(w, "no file matches")
		case fl.limit > 0 && ff.Offset+len(files) < total:
			fmt.Fprintf(w, "%d-%d of %d files; next page: --page %d\n", ff.Offset+1, ff.Offset+len(files), total, fl.page+1)
		default:
			fmt.Fprintf(w, "%d of %d files\n", len(files), total)
		}
	}
	return nil
}

// writeHeld is the table of `files --state held`: each held file with
// when it was held, when it fails and the codes it waits for.
func writeHeld(w io.Writer, cfg *config.Config, files []journal.File, total int, format outputFormat) error {
	t := &table{header: []string{"ID", "NAME", "INBOX", "TYPE", "HELD SINCE", "FAILS AT", "WAITING FOR"}}
	for _, f := range files {
		t.add(strconv.FormatInt(f.ID, 10), f.Name, f.Inbox, cmp.Or(f.DocType, "-"), localTime(f.HeldSince),
			cmp.Or(localTime(holdUntil(cfg, f)), "-"), cmp.Or(codesShort(f.WaitingList(), format), "-"))
	}
	if err := t.write(w, format); err != nil {
		return withCode(exitUnreachable, err)
	}
	if format == formatTable {
		if total == 0 {
			fmt.Fprintln(w, "no file is held for master data")
		} else {
			fmt.Fprintf(w, "%d of %d held files: each goes on by itself once the codes are on the portal (drop their master data files)\n", len(files), total)
		}
	}
	return nil
}

// maxCodesListed bounds the codes a table row names (show names them all;
// csv has them all).
const maxCodesListed = 5

func codesShort(codes []string, format outputFormat) string {
	if format != formatTable || len(codes) <= maxCodesListed {
		return strings.Join(codes, ", ")
	}
	return fmt.Sprintf("%s and %d more (see show)", strings.Join(codes[:maxCodesListed], ", "), len(codes)-maxCodesListed)
}
