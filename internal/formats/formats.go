// Package formats decodes the CSV and XLSX files legacy systems drop into an
// inbox and validates every row against the edition tables of package model.
//
// Decode turns a file into model documents (partners, items, packagings,
// inbound and outbound orders) and collects every problem as an Issue that
// names the file, the line (or sheet and cell), the column, the value and
// what to do. Rows streams the raw cells of a file, to write back exactly the
// rows that failed.
//
// Inputs are an io.ReaderAt with its size (an *os.File, a *bytes.Reader, an
// SFTP file...). CSV files are streamed; XLSX workbooks are read whole into
// memory (at most Options.MaxSize bytes, decompressed parts capped by
// Options.UnzipSizeLimit) and their sheet is streamed row by row.
package formats

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"filebridge/internal/fixedwidth"
	"filebridge/internal/model"
)

// Options say how to read one file; an inbox route sets them.
type Options struct {
	Edition model.Edition
	// Type is a document type name or alias of the edition ("skus",
	// "purchase_orders"...); "" detects it from the header row.
	Type string
	// Format is "csv", "xlsx", "fixed", "x12" or "edifact"; "" picks it by
	// content (an X12 interchange starts with ISA, an EDIFACT one with UNA
	// or UNB) or file extension (.csv, .txt, .tsv: csv; .xlsx: xlsx).
	Format string
	// Layout cuts the lines of a "fixed" file into columns (the file has no
	// header row: the layout names the columns).
	Layout fixedwidth.Layout
	// Delimiter of CSV fields; 0 detects it among ',' ';' '\t' '|'.
	Delimiter rune
	// Charset of CSV files: "" or "utf-8", "windows-1252", "iso-8859-1".
	Charset string
	// DecimalComma reads "12,5" as 12.5 (thousands separators are then refused).
	DecimalComma bool
	// DateLayout is an extra Go time layout tried after RFC 3339 and 2006-01-02.
	DateLayout string
	// Location is the zone of dates and times written without an offset
	// (default UTC). Decoded instants are always UTC.
	Location *time.Location
	// Sheet is the XLSX sheet to read (default: the only visible sheet,
	// else the active one; a hidden sheet is read only when named).
	Sheet string
	// NoHeader says the file has no header row: column i is Positions[i],
	// one of our column names ("" skips the column).
	NoHeader  bool
	Positions []string
	// HeaderRow is the line (CSV) or row (XLSX) of the header row when
	// rows above it hold a title or a date: they are skipped. 0: the first
	// non-empty row.
	HeaderRow int
	// Columns maps foreign headers to our column names ("Art.-Nr." -> "sku").
	// Both sides match like headers do (case, spaces, '_', '-', '.' ignored).
	Columns map[string]string
	// Defaults are constants for columns the file lacks, or whose cell is empty.
	Defaults map[string]string
	// Values map cell values of a column to the values read instead (""
	// leaves the cell empty), per column name; a cell is matched exactly,
	// after trimming.
	Values map[string]map[string]string
	// MaxSize caps the file size in bytes (0: DefaultMaxSize); a bigger file
	// is refused before reading.
	MaxSize int64
	// UnzipSizeLimit caps the decompressed size of an XLSX workbook
	// (0: 16 × MaxSize, at least 256 MiB).
	UnzipSizeLimit int64
}

// DefaultMaxSize is the file-size cap when Options.MaxSize is 0.
const DefaultMaxSize = 100 << 20

// minUnzipSizeLimit is the smallest default decompressed-size cap of a workbook.
const minUnzipSizeLimit = 256 << 20

func (o Options) maxSize() int64 {
	if o.MaxSize > 0 {
		return o.MaxSize
	}
	return DefaultMaxSize
}

func (o Options) unzipSizeLimit() int64 {
	if o.UnzipSizeLimit > 0 {
		return o.UnzipSizeLimit
	}
	return max(16*o.maxSize(), minUnzipSizeLimit)
}

func (o Options) location() *time.Location { return cmp.Or(o.Location, time.UTC) }

// Issue is one problem found in a file: an error, or a warning that does not
// make the document invalid.
type Issue struct {
	File string
	// Row is the CSV physical line number (1-based, counting the lines of
	// quoted newlines) or the XLSX row number; 0 means the whole file.
	Row int
	// Sheet and Cell ("D7") locate an XLSX cell.
	Sheet, Cell string
	// Column is the column as the file names it (or our column name when
	// the file lacks it); Value the offending cell text.
	Column, Value, Message string
	Warning                bool
}

// Error renders the issue as one line a clerk can act on, e.g.
// `ORDERS.csv line 12, column "quantity" (value "-3"): must be greater than 0`.
func (i Issue) Error() string {
	var b strings.Builder
	b.WriteString(i.File)
	switch {
	case i.Sheet != "" && i.Cell != "":
		fmt.Fprintf(&b, " sheet %q cell %s", i.Sheet, i.Cell)
	case i.Cell != "" && i.Sheet == "":
		b.WriteString(" ")
		b.WriteString(i.Cell) // an EDI segment and element
	case i.Sheet != "" && i.Row > 0:
		fmt.Fprintf(&b, " sheet %q row %d", i.Sheet, i.Row)
	case i.Row > 0:
		b.WriteString(" line ")
		b.WriteString(strconv.Itoa(i.Row))
	}
	if i.Column != "" {
		fmt.Fprintf(&b, ", column %q", i.Column)
	}
	if i.Value != "" {
		fmt.Fprintf(&b, " (value %q)", model.Clip(i.Value, 60))
	}
	b.WriteString(": ")
	if i.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(i.Message)
	return b.String()
}

// Doc is one decoded document with the rows it came from. Exactly one of the
// document pointers is set, matching Kind.
type Doc struct {
	Kind model.Kind
	// Key is the document's key value (SKU, code, orderNumber); it may be
	// empty on an invalid document.
	Key string
	// Rows are the source rows (CSV lines or XLSX rows) of the document.
	Rows []int

	Partner   *model.Partner
	Item      *model.Item
	Packaging *model.Packaging
	Inbound   *model.Inbound
	Outbound  *model.Outbound

	// Issues are the errors and warnings of the document's rows.
	Issues []Issue
}

// Valid reports whether the document has no error (warnings allowed).
func (d Doc) Valid() bool { return !hasError(d.Issues) }

func hasError(is []Issue) bool {
	for _, i := range is {
		if !i.Warning {
			return true
		}
	}
	return false
}

// Summary describes a decoded file.
type Summary struct {
	Type model.DocType
	// Header is the header row as the file has it (the Positions when the
	// file has no header).
	Header []string
	// Delimiter is the CSV field separator, as configured or detected; 0
	// for a workbook.
	Delimiter rune
	// LikelyCharset is, for a CSV file whose bytes do not fit the route's
	// charset (a file error says so), the charset they fit: Rows reads the
	// rows to reject in it.
	LikelyCharset string
	// Sheet is the workbook's sheet that was read; "" for a CSV file.
	Sheet string
	// Rows counts the data rows read (empty rows are skipped).
	Rows        int
	Docs        int
	InvalidDocs int
	// FileIssues are issues not tied to one document: unknown column
	// (warning), missing required or duplicate column, bad encoding, empty
	// file... An error among them makes the whole file invalid: then no
	// document of the file may be submitted, whatever its own Issues say.
	FileIssues []Issue
}

// Valid reports whether the file has no file-level error and no invalid
// document.
func (s Summary) Valid() bool { return !hasError(s.FileIssues) && s.InvalidDocs == 0 }

// Decode reads the whole file and calls fn for every document in file order.
//
// Master data (partners, items, packagings) are streamed row by row: memory
// does not grow with rows except for the set of keys seen in the file.
// Grouped types (inbound and outbound orders: one row per line, grouped by
// orderNumber wherever the rows are in the file) call fn per order, in
// order of first appearance, once its last row is read: the file is read
// once to number the orders, then once more when every order's rows are
// adjacent, else once per window of about 100,000 rows of orders, so that
// memory stays bounded (see grouper). The reader must give the same bytes
// on every pass.
//
// A damaged workbook (a part that does not match its zip headers, a cut
// archive or sheet) is an error: nothing of it is decoded.
//
// A returned error is a fatal file error (unreadable, too big, corrupt or
// password-protected workbook, invalid options) or fn's error; problems of
// rows and columns are Issues, never errors, and all of them are collected.
func Decode(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options, fn func(Doc) error) (Summary, error) {
	decodes.Add(1)
	return decode(ctx, r, size, name, opts, fn)
}

// decodes counts the calls of Decode in this process.
var decodes atomic.Int64

// Decodes says how many times Decode was called in this process: a test
// sees that a file is decoded once however it is processed.
func Decodes() int64 { return decodes.Load() }

// Rows streams the raw cells of every non-empty data row (after charset
// decoding) with its row number (CSV line or XLSX row), and returns the
// header row (nil with NoHeader). It serves to write NAME.rejected.csv with
// exactly the rows that failed. cells is reused between calls. A CSV
// record that cannot be parsed (a quote left open...) comes with raw: its
// physical lines as the file has them, in UTF-8, joined by "\n"; cells
// are then what encoding/csv made of it.
func Rows(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options, fn func(row int, cells []string, raw string) error) (header []string, err error) {
	opts = opts.withLayout()
	if _, err := checkOptions(opts); err != nil {
		return nil, err
	}
	src, err := openSource(ctx, r, size, name, opts)
	if err != nil {
		return nil, err
	}
	defer src.close()
	if c, ok := src.(*csvSource); ok {
		c.keepRaw = true
	}
	if !opts.NoHeader {
		_, cells, err := readHeaderRow(src, opts)
		var re *rowError
		switch {
		case err == nil, errors.As(err, &re):
			header = cloneCells(cells, false)
		case errors.Is(err, io.EOF):
			return nil, nil
		default:
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
	x, _ := src.(*xlsxSource)
	// A problem that ends the rows ends them here too: Decode reports it.
	_, err = eachRow(ctx, src, name, nil, func(row int, cells []string, re *rowError) error {
		raw := ""
		if re != nil {
			raw = re.raw
		}
		if x != nil {
			x.showDigits(cells)
		}
		return fn(row, cells, raw)
	})
	return header, err
}

// FileType is the document type of a file without decoding it: opts.Type
// when set, else the type its header row names (after the route's column
// renames). It reads the header row only.
func FileType(ctx context.Context, r io.ReaderAt, size int64, name string, opts Options) (model.DocType, error) {
	if opts.Type != "" {
		return model.LookupDocType(opts.Edition, opts.Type)
	}
	errStop := errors.New("header read")
	header, err := Rows(ctx, r, size, name, opts, func(int, []string, string) error { return errStop })
	if err != nil && !errors.Is(err, errStop) {
		return model.DocType{}, err
	}
	return detectType(opts.Edition, OurNames(header, opts.Columns))
}
