package inbox

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/formats"
	"filebridge/internal/journal"
)

// reportHeader are the columns of NAME.report.csv.
var reportHeader = []string{"row", "key", "result", "portal_id", "message"}

// note is a file-level line of the report.
type note struct{ result, msg string }

// writeReports writes NAME.report.csv next to the file's final path and,
// when documents failed, NAME.rejected.csv with exactly their rows (raw
// cells, original header, an "error" column), in UTF-8 with a byte order
// mark and the file's delimiter: ready to fix and drop again. It returns
// the rejected file's path ("" when none was written).
func (fr *fileRun) writeReports(ctx context.Context) (string, error) {
	row := &fr.row
	delim := fr.delimiter()
	failed := map[int]string{} // row -> message of the failed document
	err := fr.createFile(ctx, row.ReportPath, func(w io.Writer) error {
		cw := newCSVWriter(w, delim)
		_ = cw.Write(reportHeader)
		for _, n := range fr.fileNotes() {
			_ = cw.Write([]string{"", "", n.result, "", n.msg})
		}
		for _, is := range fr.sum.FileIssues {
			r, result := "", "error"
			if is.Row > 0 {
				r = strconv.Itoa(is.Row)
			}
			if is.Warning {
				result = "warning"
			}
			_ = cw.Write([]string{r, "", result, "", issueText(is)})
		}
		if fr.src != nil && len(fr.problems) == 0 {
			_, err := formats.Decode(ctx, fr.src, fr.src.size, row.Name, fr.opts, func(d formats.Doc) error {
				jd, err := fr.in.j.Document(ctx, row.ID, journalKey(d))
				if err != nil {
					return err
				}
				msg := jd.Message
				if !jd.Result.OK() {
					for _, r := range d.Rows {
						failed[r] = rowMessage(d, r, msg)
					}
				}
				return cw.Write([]string{rowsText(d.Rows), displayKey(d), string(jd.Result), jd.PortalID, msg})
			})
			if err != nil {
				return fmt.Errorf("reading the results of %s: %w", row.Name, err)
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return "", fmt.Errorf("writing the report of %s: %w", row.Name, err)
	}
	if len(failed) == 0 || fr.src == nil {
		return "", nil
	}
	_, rejected := reportNames(path.Base(row.FinalPath))
	rejected = path.Join(path.Dir(row.FinalPath), rejected)
	err = fr.createFile(ctx, rejected, func(w io.Writer) error {
		cw := newCSVWriter(w, delim)
		width := 0
		if !fr.opts.NoHeader && len(fr.sum.Header) > 0 {
			width = len(fr.sum.Header)
			_ = cw.Write(append(append([]string(nil), fr.sum.Header...), "error"))
		}
		out := make([]string, 0, width+1)
		_, err := formats.Rows(ctx, fr.src, fr.src.size, row.Name, fr.opts, func(r int, cells []string) error {
			msg, ok := failed[r]
			if !ok {
				return nil
			}
			out = append(out[:0], cells...)
			for len(out) < width {
				out = append(out, "")
			}
			return cw.Write(append(out, msg))
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

// createFile writes name atomically. A file already there is one this
// file's previous run wrote before a crash (its name was planned and
// recorded): it is replaced.
func (fr *fileRun) createFile(ctx context.Context, name string, write func(io.Writer) error) error {
	err := fr.f.CreateAtomic(ctx, name, write)
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
func (fr *fileRun) duplicate(ctx context.Context, orig journal.File) (FileResult, error) {
	in, row := fr.in, &fr.row
	where := orig.FinalPath
	if where == "" {
		where = orig.Path
	}
	msg := fmt.Sprintf("duplicate of %s processed at %s (%s): nothing submitted", orig.Name,
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
		cw := newCSVWriter(w, fr.delimiterNoSource())
		_ = cw.Write(reportHeader)
		_ = cw.Write([]string{"", "", "duplicate", "", msg})
		cw.Flush()
		return cw.Error()
	})
	return fr.row.ReportPath, err
}

func (fr *fileRun) delimiterNoSource() rune {
	if fr.opts.Delimiter != 0 {
		return fr.opts.Delimiter
	}
	return ','
}

// rowMessage is the error column of one row of a failed document in the
// rejected file: the problems found on that row, or, when the row itself
// is fine, why its document failed (another row of the order, or the
// portal's answer).
func rowMessage(d formats.Doc, row int, docMsg string) string {
	var own []string
	for _, is := range d.Issues {
		if is.Row == row && !is.Warning {
			own = append(own, issueText(is))
		}
	}
	if len(own) == 0 {
		if len(d.Rows) > 1 {
			return "this row is fine, but its order failed: " + docMsg
		}
		return docMsg
	}
	return strings.Join(own, "; ")
}
