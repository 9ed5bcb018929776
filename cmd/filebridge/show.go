package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/config"
	"filebridge/internal/journal"
)

func init() { rootCmd.AddCommand(newShowCmd()) }

// newShowCmd builds `filebridge show FILE`: one file and its documents.
func newShowCmd() *cobra.Command {
	var (
		cfgPath, format string
		dl              docList
	)
	cmd := &cobra.Command{
		Use:   "show --config FILE ID|NAME",
		Short: "Show one file of the journal: its documents, their results, and where its report lies",
		Long: `show prints one file from the journal, given by its journal id (as "files" lists
it) or its name: its state and message, where the original, its report and its
rejected rows lie, and each document with its source rows, key, result, the id
the portal gave it, the portal's message and the number of attempts. A name
received several times shows the newest; the others are listed by id.
It reads the journal only (works while "filebridge run" writes it).

The table shows the documents 100 at a time (--limit, --page), and for a
failed file only those not in the portal (--docs all shows every one). JSON
and CSV print every document unless --docs, --limit or --page say otherwise.

Exit codes: 0 shown; 2 no such file (as in replay), or a usage or configuration error; 3 the
journal could not be read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dl.set = cmd.Flags().Changed
			return runShow(cmd.Context(), cfgPath, args[0], format, dl, cmd.OutOrStdout())
		},
	}
	requireConfig(cmd, &cfgPath)
	cmd.Flags().StringVar(&format, "format", "table", "output: table, json or csv (csv: the documents)")
	cmd.Flags().StringVar(&dl.docs, "docs", "", `documents shown: "problems" (not in the portal; the default for a failed file) or "all"`)
	cmd.Flags().IntVar(&dl.limit, "limit", 100, "documents a page (0: all)")
	cmd.Flags().IntVar(&dl.page, "page", 1, "page of documents, from 1")
	return cmd
}

// docList is which of a file's documents show prints.
type docList struct {
	docs        string
	limit, page int
	set         func(flag string) bool // whether a flag was given
}

// pageOf is the journal's page of documents of file f in format, and
// whether it shows only the problems.
func (dl docList) pageOf(f journal.File, format outputFormat) (journal.DocPage, bool, error) {
	given := func(name string) bool { return dl.set != nil && dl.set(name) }
	machine := format != formatTable && !given("docs") && !given("limit") && !given("page")
	if machine {
		return journal.DocPage{}, false, nil // every document
	}
	problems := f.State == journal.FileFailed
	switch dl.docs {
	case "":
	case "problems":
		problems = true
	case "all":
		problems = false
	default:
		return journal.DocPage{}, false, fmt.Errorf(`--docs %q: use "problems" or "all"`, dl.docs)
	}
	if dl.limit < 0 || dl.page < 1 {
		return journal.DocPage{}, false, fmt.Errorf("--limit must be 0 or more and --page 1 or more")
	}
	p := journal.DocPage{Limit: dl.limit, Offset: (dl.page - 1) * dl.limit}
	if problems {
		p.Results = journal.Problems
	}
	return p, problems, nil
}

// fileLocations are where a file's original, report and rejected rows lie,
// as paths on this machine or sftp:// URLs.
type fileLocations struct {
	Original string `json:"original,omitempty"`
	Report   string `json:"report,omitempty"`
	Rejected string `json:"rejected,omitempty"`
}

func locate(cfg *config.Config, f journal.File) fileLocations {
	where := func(p string) string {
		if p == "" {
			return ""
		}
		in := cfg.Inbox(f.Inbox)
		if in == nil {
			return p
		}
		return inboxPath(in, p)
	}
	return fileLocations{Original: where(cmp.Or(f.FinalPath, f.Path)), Report: where(f.ReportPath), Rejected: where(f.RejectedPath())}
}

// inboxPath is where p, a slash path in inbox ic's folder, lies: a path
// on this machine or an sftp:// URL.
func inboxPath(ic *config.Inbox, p string) string {
	if ic.Folder.IsSFTP() {
		return ic.Folder.String() + "/" + path.Clean(p)
	}
	return filepath.Join(ic.Folder.Path, filepath.FromSlash(p))
}

type documentRecord struct {
	Key      string    `json:"key"`
	Rows     string    `json:"rows"`
	Result   string    `json:"result"`
	PortalID string    `json:"portal_id,omitempty"`
	Message  string    `json:"message,omitempty"`
	Attempts int       `json:"attempts"`
	Updated  time.Time `json:"updated"`
}

func runShow(ctx context.Context, cfgPath, ref, formatText string, dl docList, w io.Writer) error {
	format, cfg, db, err := openJournalRO(ctx, cfgPath, formatText)
	if err != nil {
		return err
	}
	defer db.Close()
	files, err := findFiles(ctx, db, ref)
	if err != nil {
		return err
	}
	f := files[0]
	page, problems, err := dl.pageOf(f, format)
	if err != nil {
		return withCode(exitUsage, err)
	}
	docs, total, err := db.DocumentsPage(ctx, f.ID, page)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	counts, err := db.ResultCounts(ctx, []int64{f.ID})
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	loc := locate(cfg, f)
	links, err := replayLinks(ctx, db, f.ID)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	hs, err := holders(ctx, db, f.Inbox, time.Now())
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	rec := newFileRecord(cfg, f, counts[f.ID], hs)
	recs := make([]documentRecord, 0, len(docs))
	for _, d := range docs {
		recs = append(recs, documentRecord{Key: d.Key, Rows: d.Rows, Result: string(d.Result), PortalID: d.PortalID,
			Message: d.Message, Attempts: d.Attempts, Updated: d.UpdatedAt})
	}
	switch format {
	case formatJSON:
		return printJSON(w, struct {
			File      fileRecord       `json:"file"`
			Files     fileLocations    `json:"files"`
			Documents []documentRecord `json:"documents"`
			Replays   replayLinkSet    `json:"replays"`
		}{rec, loc, recs, links})
	case formatCSV:
		return documentTable(recs).write(w, formatCSV)
	}
	fmt.Fprintf(w, "#%d %s  (inbox %s, %s)\n", f.ID, f.Name, f.Inbox, cmp.Or(f.DocType, "-"))
	fmt.Fprintf(w, "  state       %s: %s\n", f.State, cmp.Or(f.Message, "-"))
	if f.State == journal.FileFailed {
		fmt.Fprintf(w, "  %s\n", failureText(f, cfgPath))
	}
	fmt.Fprintf(w, "  received    %s\n", localTime(f.ClaimedAt))
	if rec.HeldBy != nil {
		fmt.Fprintf(w, "  held by     %s\n", heldBy(*rec.HeldBy, true))
	}
	if f.Held() {
		fmt.Fprintf(w, "  held        for master data since %s", localTime(f.HeldSince))
		if u := holdUntil(cfg, f); !u.IsZero() {
			fmt.Fprintf(w, "; fails at %s if still missing", localTime(u))
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  waiting for %s\n", strings.Join(f.WaitingList(), ", "))
	}
	if t := f.FinishedAt(); !t.IsZero() {
		fmt.Fprintf(w, "  finished    %s\n", localTime(t))
	}
	fmt.Fprintf(w, "  rows        %d; documents: %s\n", f.Rows, docSummary(counts[f.ID]))
	fmt.Fprintf(w, "  original    %s\n", cmp.Or(loc.Original, "-"))
	if loc.Report != "" {
		fmt.Fprintf(w, "  report      %s\n", loc.Report)
	}
	if loc.Rejected != "" {
		fmt.Fprintf(w, "  rejected    %s\n", loc.Rejected)
	}
	if links.Of != 0 {
		fmt.Fprintf(w, "  replay of   #%d\n", links.Of)
	}
	for _, r := range links.As {
		if r.ID == 0 {
			fmt.Fprintf(w, "  replayed as  %s, waiting in the inbox (asked %s by %s)\n", r.Name, localTime(r.At), r.By)
		} else {
			fmt.Fprintf(w, "  replayed as  #%d (asked %s by %s)\n", r.ID, localTime(r.At), r.By)
		}
	}
	if len(files) > 1 {
		var others []string
		for _, o := range files[1:] {
			others = append(others, fmt.Sprintf("#%d (%s, %s)", o.ID, o.State, localTime(o.ClaimedAt)))
		}
		fmt.Fprintf(w, "  also received as %s: show them by id\n", strings.Join(others, ", "))
	}
	which := "documents"
	if problems {
		which = "documents not in the portal"
	}
	if len(recs) == 0 {
		if total > 0 {
			fmt.Fprintf(w, "\nno %s on page %d (%d in all)\n", which, dl.page, total)
		} else {
			fmt.Fprintf(w, "\nno %s\n", which)
		}
		return nil
	}
	fmt.Fprintln(w)
	if err := documentTable(recs).write(w, formatTable); err != nil {
		return err
	}
	from := page.Offset + 1
	line := fmt.Sprintf("%s %d-%d of %d", which, from, from+len(recs)-1, total)
	if page.Limit > 0 && page.Offset+len(recs) < total {
		line += fmt.Sprintf("; next page: --page %d", dl.page+1)
	}
	if problems {
		line += "; every document: --docs all"
	}
	fmt.Fprintln(w, line)
	return nil
}

// failureText says where a failure stands: resolved by what, who, when,
// or open with what to do about it.
func failureText(f journal.File, cfgPath string) string {
	r := f.Resolved
	switch {
	case !r.Open():
		s := "resolved    by " + r.What()
		switch {
		case r.Kind == journal.Acknowledged:
			s = "resolved    acknowledged by " + cmp.Or(r.By, "-")
		case r.By != "":
			s += " (" + r.By + ")"
		}
		s += " at " + localTime(r.At)
		if r.Note != "" {
			s += ": " + r.Note
		}
		return s
	case f.FixFile:
		return "open        the file failed in itself: fix the file and drop it again (a replay fails the same way); or acknowledge it: filebridge ack --config " + cfgPath + " " + strconv.FormatInt(f.ID, 10)
	}
	return fmt.Sprintf("open        once the cause is fixed (master data, the portal): filebridge replay --config %s %d; or acknowledge it: filebridge ack --config %s %d",
		cfgPath, f.ID, cfgPath, f.ID)
}

func documentTable(recs []documentRecord) *table {
	t := &table{header: []string{"ROWS", "KEY", "RESULT", "PORTAL ID", "ATTEMPTS", "MESSAGE"}}
	for _, d := range recs {
		t.add(cmp.Or(d.Rows, "-"), d.Key, d.Result, cmp.Or(d.PortalID, "-"), strconv.Itoa(d.Attempts), cmp.Or(d.Message, "-"))
	}
	return t
}

// findFiles finds the files ref names (an id, or a name: newest first);
// a ref that names none is a wrong argument, exit 2 in every command.
func findFiles(ctx context.Context, db *journal.DB, ref string) ([]journal.File, error) {
	files, err := db.FindFiles(ctx, ref)
	if err != nil {
		if errors.Is(err, journal.ErrNotFound) {
			return nil, withCode(exitUsage, err)
		}
		return nil, withCode(exitUnreachable, err)
	}
	return files, nil
}

// replayLinkSet links a file to the run it replays and to its replays.
type replayLinkSet struct {
	Of int64        `json:"of,omitempty"` // the file this run replays
	As []replayLink `json:"as,omitempty"` // the runs that replay this file
}

type replayLink struct {
	ID   int64     `json:"id,omitempty"` // 0 while waiting in the inbox
	Name string    `json:"name"`
	By   string    `json:"by"`
	At   time.Time `json:"at"`
}

func replayLinks(ctx context.Context, db *journal.DB, id int64) (replayLinkSet, error) {
	var out replayLinkSet
	if r, found, err := db.ReplayOf(ctx, id); err != nil {
		return out, err
	} else if found {
		out.Of = r.OriginalID
	}
	rs, err := db.ReplaysOf(ctx, id)
	if err != nil {
		return out, err
	}
	for _, r := range rs {
		out.As = append(out.As, replayLink{ID: r.ReplayID, Name: r.Name, By: r.By, At: r.At})
	}
	return out, nil
}
