package export

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"filebridge/internal/edi/edifact"
	"filebridge/internal/edi/x12"
	"filebridge/internal/fixedwidth"
	"filebridge/internal/model"
)

// Format is the file format of an export.
type Format string

const (
	CSV     Format = "csv"
	XLSX    Format = "xlsx"
	Fixed   Format = fixedwidth.Format // fixed-width lines placed by Options.Layout
	X12     Format = "x12"
	EDIFACT Format = "edifact" // UN/EDIFACT (RECADV, DESADV, INVRPT)
)

// Charsets an export may be written in (CSV only; XLSX is always UTF-8).
const (
	UTF8        = "utf-8"
	Windows1252 = "windows-1252"
	Latin1      = "iso-8859-1"
)

// Options say how an export file is written. The zero value writes UTF-8
// CSV with "," between cells, "\n" line ends, "." decimals and RFC 3339 UTC
// date-times.
type Options struct {
	// Format is CSV (default) or XLSX.
	Format Format
	// Delimiter separates CSV cells; default ','.
	Delimiter rune
	// Charset of a CSV file: UTF8 (default), Windows1252 or Latin1. A text
	// cell holding a character the charset lacks fails the export with a
	// *CellError naming the row and column: nothing is silently replaced.
	Charset string
	// BOM starts a UTF-8 CSV file with a byte order mark (for Excel).
	BOM bool
	// CRLF ends CSV lines with "\r\n" instead of "\n".
	CRLF bool
	// Decimal is the decimal separator of Number cells in CSV: "." (default)
	// or ",". Integers have none; XLSX numbers are real numbers.
	Decimal string
	// DateLayout is the Go layout of DateTime cells in CSV, default
	// time.RFC3339. Date cells use "2006-01-02" unless DateLayout is set.
	DateLayout string
	// Location is the time zone DateTime cells are written in (CSV and
	// XLSX); default UTC. Date cells are calendar dates and never shift.
	Location *time.Location
	// Sheet names the XLSX sheet; default the export type.
	Sheet string
	// Layout places the columns of a Fixed file (no header row): texts
	// left-aligned, numbers right-aligned and zero-padded with implied
	// decimals, dates as DateLayout writes them.
	Layout []fixedwidth.Field
	// X12 is the envelope of an X12 export: partners, version, test flag
	// and the interchange's control number (from the journal).
	X12 *x12.Envelope
	// EDIFACT is the envelope of an EDIFACT export: partners, control
	// reference (from the journal), release and test flag.
	EDIFACT *edifact.Envelope
}

// CellError is a value that cannot be written, with its place in the file.
type CellError struct {
	Row    int    // row in the file; the header is row 1
	Key    string // the row's key column and value, e.g. "sku 4711"
	Column string
	Err    error
}

func (e *CellError) Error() string {
	key := ""
	if e.Key != "" {
		key = " (" + e.Key + ")"
	}
	return fmt.Sprintf("row %d%s, column %s: %v", e.Row, key, e.Column, e.Err)
}

func (e *CellError) Unwrap() error { return e.Err }

// ErrUnencodable is wrapped by a CellError when a text holds a character the
// file's charset cannot represent.
var ErrUnencodable = errors.New("character not representable in the charset")

// Writer streams the rows of one schema into a CSV or XLSX file: each row
// is encoded as it is written, so memory stays flat whatever the row count
// (XLSX rows are spooled to a temporary file by excelize beyond 16 MiB and
// zipped on Close).
type Writer struct {
	schema *Schema
	opts   Options
	enc    encoder
	vals   []value
	rows   int
	err    error
}

// encoder is one file format.
type encoder interface {
	header(names []string) error
	record(vals []value, row int, key string) error
	close() error
	abort()
}

// value is one cell before formatting.
type value struct {
	col   *Column
	empty bool
	s     string // Text, Number (canonical decimal)
	i     int64
	t     time.Time
	b     bool
}

// NewWriter starts a file of schema s on w and writes its header row. Close
// must be called to complete the file; it does not close w.
func NewWriter(w io.Writer, s *Schema, opts Options) (*Writer, error) {
	opts.Format = cmp.Or(opts.Format, CSV)
	opts.Delimiter = cmp.Or(opts.Delimiter, ',')
	opts.Charset = strings.ToLower(cmp.Or(opts.Charset, UTF8))
	opts.Decimal = cmp.Or(opts.Decimal, ".")
	opts.Location = cmp.Or(opts.Location, time.UTC)
	opts.Sheet = cmp.Or(opts.Sheet, string(s.Type))
	if opts.Decimal != "." && opts.Decimal != "," {
		return nil, fmt.Errorf("starting export file: decimal separator %q: use \".\" or \",\"", opts.Decimal)
	}
	var (
		enc encoder
		err error
	)
	switch opts.Format {
	case CSV:
		enc, err = newCSVEncoder(w, opts)
	case XLSX:
		enc, err = newXLSXEncoder(w, s, opts)
	case Fixed:
		enc, err = newFixedEncoder(w, s, opts)
	case X12:
		enc, err = newX12Encoder(w, s, opts)
	case EDIFACT:
		enc, err = newEDIFACTEncoder(w, s, opts)
	default:
		err = fmt.Errorf("format %q: use \"csv\", \"xlsx\", \"fixed\", \"x12\" or \"edifact\"", opts.Format)
	}
	if err != nil {
		return nil, fmt.Errorf("starting export file: %w", err)
	}
	wr := &Writer{schema: s, opts: opts, enc: enc, vals: make([]value, len(s.Columns))}
	for i := range s.Columns {
		wr.vals[i].col = &s.Columns[i]
	}
	if err := enc.header(s.Header()); err != nil {
		return nil, fmt.Errorf("writing the header row: %w", err)
	}
	return wr, nil
}

// Write encodes one row, a value (or pointer) of the schema's row type.
// After an error the Writer refuses further rows.
func (w *Writer) Write(row any) error {
	if w.err != nil {
		return w.err
	}
	v := reflect.ValueOf(row)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Type() != w.schema.rowType {
		return fmt.Errorf("writing a %s row: got a %s, want a %s", w.schema.Type, v.Type(), w.schema.rowType)
	}
	for i := range w.vals {
		w.vals[i].set(v.Field(w.vals[i].col.field))
	}
	key := ""
	if w.schema.keyIdx >= 0 {
		key = w.schema.Key + " " + v.Field(w.schema.keyIdx).String()
	}
	// The header is row 1.
	if err := w.enc.record(w.vals, w.rows+2, key); err != nil {
		w.err = err
		return err
	}
	w.rows++
	return nil
}

// Abort releases the Writer without completing the file (after an error;
// the caller discards what was written).
func (w *Writer) Abort() { w.enc.abort() }

// Rows returns the number of rows written, header excluded.
func (w *Writer) Rows() int { return w.rows }

// Close completes the file (flushes CSV, writes the XLSX archive).
func (w *Writer) Close() error {
	if err := w.enc.close(); err != nil {
		return fmt.Errorf("completing the %s file: %w", w.opts.Format, err)
	}
	return w.err
}

// set reads a struct field into the cell value.
func (c *value) set(f reflect.Value) {
	*c = value{col: c.col}
	switch c.col.Kind {
	case Text, Number:
		c.s = f.String()
		c.empty = c.s == ""
	case Integer:
		c.i = f.Int()
		c.empty = c.i == 0 && c.col.OmitEmpty
	case DateTime, Date:
		c.t = f.Interface().(time.Time)
		c.empty = c.t.IsZero()
	case Boolean:
		c.b = f.Bool()
	}
}

// namedCells are the cells of a row by column name, for the encoders
// that place columns by name (X12, EDIFACT).
type namedCells struct {
	idx  map[string]int
	vals []value
}

func newNamedCells(s *Schema) namedCells {
	c := namedCells{idx: make(map[string]int, len(s.Columns))}
	for i, col := range s.Columns {
		c.idx[col.Name] = i
	}
	return c
}

// get returns the cell of column name, nil when it is empty or the
// edition lacks the column.
func (c *namedCells) get(name string) *value {
	if i, ok := c.idx[name]; ok && !c.vals[i].empty {
		return &c.vals[i]
	}
	return nil
}

// integer is an integer column, 0 when empty or absent.
func (c *namedCells) integer(name string) int64 {
	if v := c.get(name); v != nil {
		return v.i
	}
	return 0
}

// Neutralize defuses a text cell that a spreadsheet would read as a formula:
// a value starting with '=', '+', '-', '@', a tab or a carriage return gets
// a leading apostrophe. Number cells are never passed through it, so a
// negative quantity stays a number.
func Neutralize(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// dateOf returns the calendar date of t as written (in t's own offset),
// at midnight UTC.
func dateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// significantDigits counts the digits of a canonical decimal without
// leading zeros.
func significantDigits(d model.Decimal) int {
	s := strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(string(d)), "0")
	return utf8.RuneCountInString(s)
}
