package formats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"filebridge/internal/edi/edifact"
	"filebridge/internal/edi/x12"
	"filebridge/internal/fixedwidth"
)

// rowSource yields the rows of one sheet or CSV file.
type rowSource interface {
	// next returns the next row and its number (CSV physical line, XLSX row).
	// cells are only valid until the next call. At the end it returns
	// io.EOF. A *rowError is a problem of that row only: reading goes on.
	// A *fileProblem ends the file with one issue; any other error is fatal.
	next() (row int, cells []string, err error)
	// cell names the cell of column index col on row ("D7"); "" for CSV.
	cell(row, col int) string
	// sheet is the XLSX sheet name; "" for CSV.
	sheet() string
	// rewind starts the rows again from the first row of the file, for
	// another pass, with what opening it found (format, charset,
	// delimiter, sheet) kept: the file is not sniffed again.
	rewind() error
	close() error
}

// rowError is a problem of one row that does not stop reading.
type rowError struct {
	row   int
	cells []string
	msg   string
	// A broken CSV record spans lines row to last; value is its first
	// line as the file has it, raw all of its lines (when the source
	// keeps them).
	last       int
	value, raw string
	// reported are the cells whose value msg already names (a fixed-width
	// number column holding more than digits): not reported again.
	reported []int
}

func (e *rowError) Error() string { return fmt.Sprintf("line %d: %s", e.row, e.msg) }

// fileProblem is a problem of the whole file that a person fixes (bad
// encoding, missing sheet...): it becomes one file issue and ends reading.
type fileProblem struct {
	row int
	msg string
	// charset is the one a CSV file looks like when it is not the route's.
	charset string
	// col is the index of the column the problem is in (-1: unknown),
	// value its cell as the file shows it.
	col   int
	value string
}

func (e *fileProblem) Error() string {
	if e.row > 0 {
		return fmt.Sprintf("line %d: %s", e.row, e.msg)
	}
	return e.msg
}

// formatOf returns "csv", "xlsx", "fixed", "x12" or "edifact" for the options, file name and
// first bytes of the file.
func formatOf(name string, head []byte, opts Options) (string, error) {
	switch f := strings.ToLower(strings.TrimSpace(opts.Format)); f {
	case "csv", "xlsx", fixedwidth.Format, "x12", "edifact":
		return f, nil
	case "":
	default:
		return "", fmt.Errorf("unknown file format %q: use \"csv\", \"xlsx\", \"fixed\", \"x12\" or \"edifact\"", opts.Format)
	}
	if f := sniffEDI(head); f != "" {
		return f, nil
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv", ".txt", ".tsv":
		return "csv", nil
	case ".xlsx", ".xlsm":
		return "xlsx", nil
	case ".xls":
		return "", fmt.Errorf("%s is an old Excel 97-2003 workbook: save it as .xlsx (Excel Workbook) or .csv", name)
	}
	return "", fmt.Errorf("cannot tell the format of %s: name it .csv or .xlsx, or set format on the route (\"fixed\" with a layout; an X12 or EDIFACT interchange is recognised by its first segment)", name)
}

// openSource checks the size and opens the file as rows.
func openSource(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options) (rowSource, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opens.Add(1)
	if limit := opts.maxSize(); size > limit {
		return nil, fmt.Errorf("%s is %s, more than the %s allowed: split it into smaller files or raise the size limit of the route",
			name, humanBytes(size), humanBytes(limit))
	}
	// The first bytes tell the format, and the text reader starts with
	// them: they are read once.
	h, err := ReadHead(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r, head := h, h.head
	format, err := formatOf(name, head, opts)
	if err != nil {
		return nil, err
	}
	switch format {
	case "xlsx":
		return openXLSX(r, size, name, opts)
	case fixedwidth.Format:
		return openFixed(r, size, opts)
	case "x12":
		return openX12(r, size, opts)
	case "edifact":
		return openEDIFACT(r, size, opts)
	}
	return openCSV(r, size, opts)
}

// opens counts the calls of openSource in this process: a test sees that
// a file is opened and sniffed once however many passes read it.
var opens atomic.Int64

// sniffEDI names the EDI standard a file's first bytes start with, "" for
// none: an EDIFACT interchange starts with UNA, or UNB and its element
// separator (after an optional byte order mark).
func sniffEDI(head []byte) string {
	if x12.IsX12(head) {
		return "x12"
	}
	if edifact.IsEDIFACT(head) {
		return "edifact"
	}
	return ""
}

// humanBytes renders a byte count for people.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// isEmptyRow reports whether every cell is blank.
func isEmptyRow(cells []string) bool {
	for _, c := range cells {
		if c != "" && c[0]-'!' < utf8.RuneSelf-'!' {
			return false // starts with a visible ASCII character
		}
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// readRow skips empty rows and returns the next one.
func readRow(src rowSource) (int, []string, error) {
	for {
		row, cells, err := src.next()
		if err != nil {
			var re *rowError
			if errors.As(err, &re) {
				return row, cells, err
			}
			return 0, nil, err
		}
		if !isEmptyRow(cells) {
			return row, cells, nil
		}
	}
}
