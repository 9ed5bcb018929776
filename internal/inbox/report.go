package inbox

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/formats"
	"filebridge/internal/journal"
)

// reportCap is how many lines of one problem the report lists (per
// column and message); the rest are counted in one "omitted" line, while
// NAME.rejected.csv still holds every failed row.
const reportCap = 1000

// writeReports writes NAME.report.csv next to the file's final path and,
// when documents failed, NAME.rejected.csv with exactly their rows (raw
// cells, original header, an "error" column), in UTF-8 with a byte order
// mark and the file's delimiter: ready to fix and drop again. Both come
// from one reading of the file's documents in the journal, in row order,
// and the rejected rows from one raw pass over the file beside it: they
// are streamed, in time linear in the rows. It returns the rejected
// file's path ("" when none was written).
func (fr *fileRun) writeReports(ctx context.Context, failed int) (string, error) {
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
	_, rejectedName := reportNames(path.Base(row.FinalPath))
	rejected := ""
	if withDocs && failed > 0 {
		rejected = path.Join(path.Dir(row.FinalPath), rejectedName)
	}
	err := fr.createFile(ctx, row.ReportPath, func(w io.Writer) error {
		rw, err := newReportWriter(w, delim)
		if err != nil {
			return err
		}
		limit := newLineCap(reportCap)
		for _, n := range fr.notes {
			if err := rw.add(ReportLine{Result: "note", Message: n}); err != nil {
				return err
			}
		}
		for _, p := range fr.problems {
			if err := rw.add(ReportLine{Result: "error", Message: p}); err != nil {
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
			docs := &docLines{fr: fr, rw: rw, limit: limit}
			next, stop := iter.Pull2(fr.in.j.FileDocuments(ctx, row.ID, false))
			defer stop()
			docs.next = next
			if rejected != "" {
				if err := fr.createFile(ctx, rejected, func(w io.Writer) error { return fr.writeRejected(ctx, w, delim, docs) }); err != nil {
					return fmt.Errorf("writing the rejected rows of %s: %w", row.Name, err)
				}
			}
			if err := docs.upTo(math.MaxInt); err != nil {
				return fmt.Errorf("reading the results of %s: %w", row.Name, err)
			}
		}
		for _, l := range limit.omitted(rejectedName) {
			if err := rw.add(l); err != nil {
				return err
			}
		}
		return rw.flush()
	})
	if err != nil {
		return "", fmt.Errorf("writing the report of %s: %w", row.Name, err)
	}
	return rejected, nil
}

// docLines writes the report line of each document of the journal, in
// row order, and keeps the error-column messages of the rows of failed
// documents until the rejected-rows pass reaches them.
type docLines struct {
	fr    *fileRun
	rw    *reportWriter
	limit *lineCap
	next  func() (journal.Document, error, bool)
	ahead *journal.Document // read and not written yet
	done  bool
	rows  rowHeap
}

// upTo writes the lines of the documents whose first row is at most row.
func (dl *docLines) upTo(row int) error {
	for !dl.done {
		if dl.ahead == nil {
			jd, err, ok := dl.next()
			if err != nil {
				return err
			}
			if !ok {
				dl.done = true
				return nil
			}
			dl.ahead = &jd
		}
		if dl.ahead.FirstRow > row {
			return nil
		}
		jd := *dl.ahead
		dl.ahead = nil
		if err := dl.line(jd); err != nil {
			return err
		}
	}
	return nil
}

// line writes a document's report line; a failed one's rows wait in
// dl.rows with their messages.
func (dl *docLines) line(jd journal.Document) error {
	l := ReportLine{Row: jd.Rows, Key: jd.Key, Result: string(jd.Result), PortalID: jd.PortalID, Message: jd.Message}
	if jd.Result.OK() || jd.Body == "" {
		// A document in the portal is valid: the key shown is its journal
		// key, unless it has none (journalKey names it by its line).
		if jd.Key == fmt.Sprintf(" (line %d)", jd.FirstRow) {
			l.Key = ""
		}
		return dl.rw.add(l)
	}
	d, err := docOf(jd)
	if err != nil {
		return err
	}
	l.Key = displayKey(d)
	dl.fr.noteFailed(d, jd.Message)
	rowMessages(d, jd.Message, func(row int, msg string) {
		heap.Push(&dl.rows, rowMessage{row, msg})
	})
	column, problem := jd.Message, ""
	if is, ok := firstError(d.Issues); ok {
		column, problem = is.Column, is.Message
	}
	if !dl.limit.keep(string(jd.Result), column, problem) {
		return nil
	}
	return dl.rw.add(l)
}

// message returns the error-column message of a row of the file, false
// when the row did not fail; rows are asked for in ascending order.
func (dl *docLines) message(row int) (string, bool, error) {
	if err := dl.upTo(row); err != nil {
		return "", false, err
	}
	msg, ok := "", false
	for dl.rows.Len() > 0 && dl.rows[0].row <= row {
		m := heap.Pop(&dl.rows).(rowMessage)
		if m.row == row && !ok {
			msg, ok = m.msg, true
		}
	}
	return msg, ok, nil
}

// writeRejected writes the rows of the failed documents, as the file has
// them, with their messages: one raw pass over the file.
func (fr *fileRun) writeRejected(ctx context.Context, w io.Writer, delim rune, docs *docLines) error {
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
	_, err := formats.Rows(ctx, fr.src, fr.src.size, fr.row.Name, opts, func(r int, cells []string, raw string) error {
		msg, ok, err := docs.message(r)
		if err != nil || !ok {
			return err
		}
		if raw != "" {
			// A broken record: its lines as the file has them, to mend
			// and drop again, then the error column.
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
		return fmt.Errorf("reading the rows of %s: %w", fr.row.Name, err)
	}
	cw.Flush()
	return cw.Error()
}

// rowMessage is the error-column message of one failed row.
type rowMessage struct {
	row int
	msg string
}

// rowHeap holds the messages of failed rows the raw pass has not reached,
// the lowest row first: only the rows of documents whose rows are not
// together (orders interleaved) wait in it long.
type rowHeap []rowMessage

func (h rowHeap) Len() int           { return len(h) }
func (h rowHeap) Less(i, j int) bool { return h[i].row < h[j].row }
func (h rowHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *rowHeap) Push(x any)        { *h = append(*h, x.(rowMessage)) }
func (h *rowHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// rowMessages calls fn with the error-column message of every row of a
// failed document: the row's own problems, or, when the row itself is
// fine, why its document failed (another row of the order, or the
// portal's answer; the same text for every such row). It is linear in the
// rows and issues of the document.
func rowMessages(d formats.Doc, docMsg string, fn func(row int, msg string)) {
	byRow := map[int][]string{}
	for _, is := range d.Issues {
		if is.Row > 0 && !is.Warning {
			byRow[is.Row] = append(byRow[is.Row], issueText(is))
		}
	}
	fine := docMsg
	if len(d.Rows) > 1 {
		fine = "this row is fine, but its order failed: " + docMsg
	}
	for _, r := range d.Rows {
		if r <= 0 {
			continue
		}
		own, seen := byRow[r]
		switch {
		case !seen:
			fn(r, fine)
		case own != nil:
			fn(r, strings.Join(own, "; "))
			byRow[r] = nil // a row listed twice gets its problems once
		}
	}
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
func (fr *fileRun) delimiter() rune { return cmp.Or(fr.sum.Delimiter, ',') }

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
	delim := cmp.Or(fr.opts.Delimiter, ',')
	err := fr.createFile(ctx, row.ReportPath, func(w io.Writer) error {
		rw, err := newReportWriter(w, delim)
		if err != nil {
			return err
		}
		if err := rw.add(ReportLine{Result: "duplicate", Message: msg}); err != nil {
			return err
		}
		return rw.flush()
	})
	if err != nil {
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
