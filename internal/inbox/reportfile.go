package inbox

import (
	"fmt"
	"io"
	"strings"

	"github.com/gocarina/gocsv"

	"filebridge/internal/formats/export"
)

// ReportLine is one line of NAME.report.csv. Every field is a string:
// gocsv would read an empty cell into a number field as 0 and a key such
// as "010" must stay as written.
type ReportLine struct {
	// Row is the file's row or rows of the line ("2", "2-5", "2-3,7"),
	// empty for a remark about the whole file.
	Row string `csv:"row"`
	// Key is the document's key (a packaging's "SKU/CODE").
	Key string `csv:"key"`
	// Result is a journal result (created, exists, invalid, ...), or note,
	// error, warning, duplicate, omitted for file-level lines.
	Result   string `csv:"result"`
	PortalID string `csv:"portal_id"`
	Message  string `csv:"message"`
}

// reportBatch is how many lines are handed to gocsv at once.
const reportBatch = 256

// reportWriter streams ReportLines into a CSV with gocsv, in batches:
// the report is never held whole in memory.
type reportWriter struct {
	w     *gocsv.SafeCSVWriter
	batch []ReportLine
}

// newReportWriter starts a report: byte order mark and header.
func newReportWriter(w io.Writer, delim rune) (*reportWriter, error) {
	cw := newCSVWriter(w, delim)
	rw := &reportWriter{w: gocsv.NewSafeCSVWriter(cw)}
	if err := gocsv.MarshalCSV([]ReportLine{}, rw.w); err != nil {
		return nil, fmt.Errorf("writing the report header: %w", err)
	}
	return rw, nil
}

// add queues a line, its text cells neutralised for spreadsheets.
func (rw *reportWriter) add(l ReportLine) error {
	l.Row, l.Key, l.Result = neutralize(l.Row), neutralize(l.Key), neutralize(l.Result)
	l.PortalID, l.Message = neutralize(l.PortalID), neutralize(l.Message)
	rw.batch = append(rw.batch, l)
	if len(rw.batch) >= reportBatch {
		return rw.flush()
	}
	return nil
}

func (rw *reportWriter) flush() error {
	if len(rw.batch) == 0 {
		rw.w.Flush()
		return rw.w.Error()
	}
	err := gocsv.MarshalCSVWithoutHeaders(rw.batch, rw.w)
	rw.batch = rw.batch[:0]
	if err != nil {
		return fmt.Errorf("writing report lines: %w", err)
	}
	rw.w.Flush()
	return rw.w.Error()
}

// neutralize defuses a text cell a spreadsheet would read as a formula,
// as the exports do (export.Neutralize): a leading '=', '+', '-', '@',
// tab or carriage return gets an apostrophe. A plain number ("-5",
// "+3", "1,5") is left alone: it is not a formula, and it must read back
// as the same number.
func neutralize(s string) string {
	if isPlainNumber(s) {
		return s
	}
	return export.Neutralize(s)
}

// neutralizeRaw is neutralize for the raw lines of a broken CSV record,
// which NAME.rejected.csv holds as they are because encoding/csv cannot
// split them: a value that starts (after a delimiter, a line break or
// its opening quote) with a formula character gets the apostrophe, which
// the decoder drops again. Quotes are followed as a spreadsheet would:
// a delimiter inside a quoted value starts no value.
func neutralizeRaw(raw string, delim rune) string {
	var b strings.Builder
	b.Grow(len(raw) + 8)
	inQ, atStart, opened := false, true, false
	for _, r := range raw {
		formula := strings.ContainsRune("=+-@", r) || r == '\t' && r != delim
		switch {
		case atStart && r == '"':
			inQ, opened = true, true
			atStart = false
			b.WriteRune(r)
			continue
		case (atStart || opened) && formula:
			b.WriteByte('\'')
		}
		atStart, opened = false, false
		switch {
		case r == '"':
			inQ = !inQ
		case !inQ && (r == delim || r == '\n'):
			atStart = true
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isPlainNumber reports whether s is a signed decimal number: digits with
// at most one '.' or ',' and an optional leading sign.
func isPlainNumber(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	digits, seps := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == ',':
			seps++
		default:
			return false
		}
	}
	return digits > 0 && seps <= 1
}
