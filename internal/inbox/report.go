package inbox

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"time"

	"filebridge/internal/formats"
	"filebridge/internal/journal"
)

// reportCap is how many lines of one problem the report lists (per
// column and message); the rest are counted in one "omitted" line, while
// NAME.rejected.csv still holds every failed row.
const reportCap = 1000

// note is a file-level line of the report.
type note struct{ result, msg string }

// writeReports writes NAME.report.csv next to the file's final path and,
// when documents failed, NAME.rejected.csv with exactly their rows (raw
// cells, original header, an "error" column), in UTF-8 with a byte order
// mark and the file's delimiter: ready to fix and drop again. Both are
// streamed, in time linear in the rows. It returns the rejected file's
// path ("" when none was written).
func (fr *fileRun) writeReports(ctx context.Context) (string, error) {
	row := &fr.row
	// A stop that comes while the reports are written ends the writing
	// (a huge file's reports take long): the temporary files are removed,
	// the file stays in processing/ and its reports are written at the
	// next start. A stop that came before lets them be written, within
	// the grace period.
	if fr.stop.Err() == nil {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		unhook := context.AfterFunc(fr.stop, func() { cancel(context.Cause(fr.stop)) })
		defer unhook()
	}
	delim := fr.delimiter()
	withDocs := fr.src != nil && len(fr.problems) == 0
	var spool *rejectSpool
	if withDocs {
		spool = newRejectSpool()
		defer spool.Close()
	}
	err := fr.createFile(ctx, row.ReportPath, func(w io.Writer) error {
		rw, err := newReportWriter(w, delim)
		if err != nil {
			return err
		}
		limit := newLineCap(reportCap)
		for _, n := range fr.fileNotes() {
			if err := rw.add(ReportLine{Result: n.result, Message: n.msg}); err != nil {
				return err
			}
		}
		kinds := newLineCap(fileIssueCap)
		for _, is := range fr.sum.FileIssues {
			l := ReportLine{Result: "error", Message: issueText(is)}
			if is.Row > 0 {
				l.Row = strconv.Itoa(is.Row)
			}
			if is.Warning {
				l.Result = "warning"
			}
			if !limit.keep(l.Result, is.Column, is.Message) || !kinds.keep(l.Result, "", issueKind(is.Message)) {
				continue
			}
			if err := rw.add(l); err != nil {
				return err
			}
		}
		for _, l := range kinds.omittedKinds() {
			if err := rw.add(l); err != nil {
				return err
			}
		}
		if withDocs {
			if err := spool.reset(); err != nil {
				return err
			}
			_, err := formats.Decode(ctx, fr.src, fr.src.size, row.Name, fr.opts, func(d formats.Doc) error {
				jd, err := fr.in.j.Document(ctx, row.ID, journalKey(d))
				if err != nil {
					return err
				}
				if jd.Result.OK() {
					return rw.add(ReportLine{Row: rowsText(d.Rows), Key: displayKey(d), Result: string(jd.Result), PortalID: jd.PortalID, Message: jd.Message})
				}
				fr.noteFailed(d, jd.Message)
				fr.noteFailedEDIFACT(d, jd.Message)
				if err := spool.addDoc(d, jd.Message); err != nil {
					return err
				}
				column, problem := jd.Message, ""
				for _, is := range d.Issues {
					if !is.Warning {
						column, problem = is.Column, is.Message
						break
					}
				}
				if !limit.keep(string(jd.Result), column, problem) {
					return nil
				}
				return rw.add(ReportLine{Row: rowsText(d.Rows), Key: displayKey(d), Result: string(jd.Result), PortalID: jd.PortalID, Message: jd.Message})
			})
			if err != nil {
				return fmt.Errorf("reading the results of %s: %w", row.Name, err)
			}
		}
		_, rejected := reportNames(path.Base(row.FinalPath))
		for _, l := range limit.omitted(rejected) {
			if err := rw.add(l); err != nil {
				return err
			}
		}
		return rw.flush()
	})
	if err != nil {
		return "", fmt.Errorf("writing the report of %s: %w", row.Name, err)
	}
	if spool == nil || spool.empty() {
		return "", nil
	}
	_, rejected := reportNames(path.Base(row.FinalPath))
	rejected = path.Join(path.Dir(row.FinalPath), rejected)
	err = fr.createFile(ctx, rejected, func(w io.Writer) error {
		msgs, err := spool.reader()
		if err != nil {
			return err
		}
		cw := newCSVWriter(w, delim)
		width := 0
		if !fr.opts.NoHeader && len(fr.sum.Header) > 0 {
			width = len(fr.sum.Header)
			out := make([]string, 0, width+1)
			for _, h := range fr.sum.Header {
				out = append(out, neutralize(h))
			}
			_ = cw.Write(append(out, "error"))
		}
		// A file in another charset than its route's: its rows are written
		// as the clerk meant them.
		opts := fr.opts
		if cs := fr.sum.LikelyCharset; cs != "" {
			opts.Charset = cs
		}
		out := make([]string, 0, width+1)
		_, err = formats.Rows(ctx, fr.src, fr.src.size, row.Name, opts, func(r int, cells []string, raw string) error {
			msg, ok, err := msgs.message(r)
			if err != nil || !ok {
				return err
			}
			if raw != "" {
				// A broken record: its lines as the file has them, to
				// mend and drop again, then the error column.
				cw.Flush()
				if _, err := io.WriteString(w, neutralizeRaw(raw, delim)+string(delim)); err != nil {
					return err
				}
				return cw.Write([]string{neutralize(msg)})
			}
			out = out[:0]
			for _, c := range cells {
				out = append(out, neutralize(c))
			}
			for len(out) < width {
				out = append(out, "")
			}
			return cw.Write(append(out, neutralize(msg)))
		})
		if err != nil {
			return fmt.Errorf("reading the rows of %s: %w", row.Name, err)
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return "", fmt.Errorf("writing the rejected rows of %s: %w", row.Name, err)
	}
	return rejected, nil
}

// lineCap counts report lines per result, column and problem and keeps
// the first max of each.
type lineCap struct {
	max   int
	seen  map[capKey]int
	order []capKey // problems over the cap, in order of first omission
}

type capKey struct{ result, column, problem string }

func newLineCap(max int) *lineCap { return &lineCap{max: max, seen: map[capKey]int{}} }

// keep counts a line and reports whether it is within the cap.
func (c *lineCap) keep(result, column, problem string) bool {
	k := capKey{result, column, problem}
	n := c.seen[k] + 1
	c.seen[k] = n
	if n == c.max+1 {
		c.order = append(c.order, k)
	}
	return n <= c.max
}

// omitted are the lines counting what the cap left out.
func (c *lineCap) omitted(rejected string) []ReportLine {
	ls := make([]ReportLine, 0, len(c.order))
	for _, k := range c.order {
		what := k.problem
		switch {
		case k.column != "" && k.problem != "":
			what = fmt.Sprintf("column %q: %s", k.column, k.problem)
		case k.problem == "":
			what = k.column // a document's whole message
		}
		ls = append(ls, ReportLine{Result: "omitted", Message: fmt.Sprintf("%d more %s line(s) with the same problem are not listed (%s); %s holds every failed row",
			c.seen[k]-c.max, k.result, what, rejected)})
	}
	return ls
}

// fileIssueCap is how many file-level lines of one kind (the same message
// but for the names it quotes, e.g. one unknown column after another) the
// report lists: a header of 100,000 unknown columns makes a report of a
// few lines, not of megabytes.
const fileIssueCap = 50

// quoted matches what a message quotes: a column name, a value.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// issueKind is a message with what it quotes left out.
func issueKind(msg string) string { return quoted.ReplaceAllString(msg, `"…"`) }

// omittedKinds are the lines counting the file-level lines of each kind
// the cap left out.
func (c *lineCap) omittedKinds() []ReportLine {
	ls := make([]ReportLine, 0, len(c.order))
	for _, k := range c.order {
		ls = append(ls, ReportLine{Result: "omitted", Message: fmt.Sprintf("and %d more %s line(s) like the ones above (%s) are not listed",
			c.seen[k]-c.max, k.result, k.problem)})
	}
	return ls
}

// fileNotes are the report's first lines: remarks and file problems.
func (fr *fileRun) fileNotes() []note {
	var ns []note
	for _, n := range fr.notes {
		ns = append(ns, note{"note", n})
	}
	for _, p := range fr.problems {
		ns = append(ns, note{"error", p})
	}
	return ns
}

// createFile writes name atomically, creating its folder when missing
// (the first file of a day in processed/). A file already there is one
// this file's previous run wrote before a crash (its name was planned and
// recorded): it is replaced.
func (fr *fileRun) createFile(ctx context.Context, name string, write func(io.Writer) error) error {
	err := fr.f.CreateAtomic(ctx, name, write)
	if errors.Is(err, fs.ErrNotExist) {
		if err := fr.f.MkdirAll(ctx, path.Dir(name)); err != nil {
			return err
		}
		err = fr.f.CreateAtomic(ctx, name, write)
	}
	if errors.Is(err, fs.ErrExist) {
		if rerr := fr.f.Remove(ctx, name); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return rerr
		}
		err = fr.f.CreateAtomic(ctx, name, write)
	}
	return err
}

// newCSVWriter starts a UTF-8 CSV with a byte order mark (Excel reads the
// charset from it, and the decoder reads a BOM file as UTF-8 whatever the
// route's charset).
func newCSVWriter(w io.Writer, delim rune) *csv.Writer {
	_, _ = io.WriteString(w, "\uFEFF")
	cw := csv.NewWriter(w)
	cw.Comma = delim
	return cw
}

// delimiter is the separator of the report and rejected files: the one
// the decoder used for a CSV file, a comma for a workbook.
func (fr *fileRun) delimiter() rune {
	if fr.sum.Delimiter != 0 {
		return fr.sum.Delimiter
	}
	return ','
}

// duplicate ends a file whose content was already processed successfully:
// nothing is submitted; it goes to processed/ with a report saying of
// which file it is a duplicate.
func (fr *fileRun) duplicate(ctx context.Context, orig journal.File, why string) (FileResult, error) {
	in, row := fr.in, &fr.row
	where := orig.FinalPath
	if where == "" {
		where = orig.Path
	}
	msg := fmt.Sprintf("%sduplicate of %s processed at %s (%s): nothing submitted", why, orig.Name,
		orig.UpdatedAt.UTC().Format(time.RFC3339), where)
	fr.notes = append(fr.notes[:0:0], msg)
	if err := fr.plan(ctx, true); err != nil {
		return FileResult{}, err
	}
	if _, err := fr.writeDuplicateReport(ctx, msg); err != nil {
		return FileResult{}, err
	}
	if err := fr.move(ctx); err != nil {
		return FileResult{}, err
	}
	row.State, row.Message = journal.FileDuplicate, msg
	if orig.DocType != "" && row.DocType == "" {
		row.DocType = orig.DocType
	}
	if err := in.j.UpdateFile(ctx, *row); err != nil {
		return FileResult{}, err
	}
	in.recovered()
	in.metrics.file(in.cfg.Name, string(row.State))
	fr.log.Info("duplicate file: nothing submitted", "original", orig.Name, "original_id", orig.ID, "final_path", row.FinalPath)
	return fr.result(), nil
}

func (fr *fileRun) writeDuplicateReport(ctx context.Context, msg string) (string, error) {
	err := fr.createFile(ctx, fr.row.ReportPath, func(w io.Writer) error {
		rw, err := newReportWriter(w, fr.delimiterNoSource())
		if err != nil {
			return err
		}
		if err := rw.add(ReportLine{Result: "duplicate", Message: msg}); err != nil {
			return err
		}
		return rw.flush()
	})
	return fr.row.ReportPath, err
}

func (fr *fileRun) delimiterNoSource() rune {
	if fr.opts.Delimiter != 0 {
		return fr.opts.Delimiter
	}
	return ','
}
