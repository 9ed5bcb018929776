package export

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/xuri/excelize/v2"

	"filebridge/internal/model"
)

// maxExactDigits is the number of significant digits an XLSX number (an
// IEEE double) keeps exactly; a decimal with more is written as text so that
// its value is not changed.
const maxExactDigits = 15

// xlsxEncoder writes one sheet with excelize's StreamWriter. Cells are
// typed: text as inline strings, integers and decimals as numbers,
// date-times as date cells in the export's time zone ("yyyy-mm-dd
// hh:mm:ss"), dates as date cells ("yyyy-mm-dd"), booleans as booleans.
type xlsxEncoder struct {
	out       io.Writer
	f         *excelize.File
	sw        *excelize.StreamWriter
	opts      Options
	dateTime  int // style ids
	date      int
	headStyle int
	cells     []any
	// cols and rows are the range the sheet fills, for its dimension.
	cols, rows int
}

func newXLSXEncoder(w io.Writer, s *Schema, opts Options) (_ *xlsxEncoder, err error) {
	f := excelize.NewFile()
	defer func() {
		if err != nil {
			_ = f.Close()
		}
	}()
	e := &xlsxEncoder{out: w, f: f, opts: opts, cols: len(s.Columns)}
	sheet := opts.Sheet
	if len(sheet) > 31 {
		sheet = sheet[:31]
	}
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return nil, fmt.Errorf("naming the sheet %q: %w", sheet, err)
	}
	dtFmt, dFmt := "yyyy-mm-dd hh:mm:ss", "yyyy-mm-dd"
	if e.dateTime, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dtFmt}); err == nil {
		if e.date, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dFmt}); err == nil {
			e.headStyle, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
		}
	}
	if err != nil {
		return nil, fmt.Errorf("creating cell styles: %w", err)
	}
	if e.sw, err = f.NewStreamWriter(sheet); err != nil {
		return nil, fmt.Errorf("starting sheet %q: %w", sheet, err)
	}
	for i, c := range s.Columns {
		width := 14.0
		switch c.Kind {
		case DateTime:
			width = 20
		case Text:
			width = 18
		}
		if err := e.sw.SetColWidth(i+1, i+1, width); err != nil {
			return nil, fmt.Errorf("sizing column %s: %w", c.Name, err)
		}
	}
	return e, nil
}

func (e *xlsxEncoder) header(names []string) error {
	cells := make([]any, len(names))
	for i, n := range names {
		cells[i] = excelize.Cell{StyleID: e.headStyle, Value: n}
	}
	e.rows = 1
	return e.sw.SetRow("A1", cells)
}

func (e *xlsxEncoder) record(vals []value, row int, key string) error {
	if cap(e.cells) < len(vals) {
		e.cells = make([]any, len(vals))
	}
	cells := e.cells[:len(vals)]
	for i := range vals {
		cells[i] = e.cell(&vals[i])
	}
	ref, err := excelize.CoordinatesToCellName(1, row)
	if err == nil {
		err = e.sw.SetRow(ref, cells)
	}
	if err != nil {
		return fmt.Errorf("row %d (%s): %w", row, key, err)
	}
	e.rows = max(e.rows, row)
	return nil
}

// cell returns the typed excelize value of v; nil leaves the cell empty.
func (e *xlsxEncoder) cell(v *value) any {
	if v.empty {
		return nil
	}
	switch v.col.Kind {
	case Text:
		return Neutralize(v.s)
	case Integer:
		return v.i
	case Number:
		if significantDigits(model.Decimal(v.s)) > maxExactDigits {
			return v.s
		}
		f, err := strconv.ParseFloat(v.s, 64)
		if err != nil {
			return v.s
		}
		return f
	case DateTime:
		return excelize.Cell{StyleID: e.dateTime, Value: v.t.In(e.opts.Location)}
	case Date:
		return excelize.Cell{StyleID: e.date, Value: dateOf(v.t)}
	case Boolean:
		return v.b
	}
	return nil
}

func (e *xlsxEncoder) close() error {
	defer e.f.Close()
	if err := e.sw.Flush(); err != nil {
		return fmt.Errorf("completing the sheet: %w", err)
	}
	ref, err := excelize.CoordinatesToCellName(max(e.cols, 1), max(e.rows, 1))
	if err != nil {
		return fmt.Errorf("naming the sheet's range: %w", err)
	}
	dz := &dimensionZip{part: sheetPart, ref: "A1:" + ref}
	e.f.SetZipWriter(func(w io.Writer) excelize.ZipWriter {
		dz.Writer = zip.NewWriter(w)
		return dz
	})
	if _, err := e.f.WriteTo(e.out); err != nil {
		return fmt.Errorf("writing the workbook: %w", err)
	}
	if !dz.done {
		return fmt.Errorf("writing the workbook: the sheet's dimension %s was not written in %s", dz.ref, sheetPart)
	}
	return nil
}

// sheetPart is the part of the export's only sheet.
const sheetPart = "xl/worksheets/sheet1.xml"

// dimensionZip writes the workbook's parts, giving the sheet part the
// dimension (used range) its rows fill: excelize's StreamWriter writes
// the dimension before the rows and leaves it at A1, and readers that
// trust it (openpyxl in read-only mode) would see the header cell only.
type dimensionZip struct {
	*zip.Writer
	part, ref string
	dim       *dimensionWriter // the sheet part, while it is written
	done      bool             // the dimension was written
}

func (z *dimensionZip) Create(name string) (io.Writer, error) {
	if err := z.flush(); err != nil {
		return nil, err
	}
	w, err := z.Writer.Create(name)
	if err != nil || name != z.part {
		return w, err
	}
	z.dim = &dimensionWriter{w: w, z: z}
	return z.dim, nil
}

func (z *dimensionZip) Close() error {
	if err := z.flush(); err != nil {
		return err
	}
	return z.Writer.Close()
}

// flush writes what the sheet part holds back, if it was cut short.
func (z *dimensionZip) flush() error {
	if z.dim == nil {
		return nil
	}
	d := z.dim
	z.dim = nil
	if d.head == nil {
		return nil
	}
	return d.writeHead()
}

// dimensionWriter holds the start of the sheet part up to its rows,
// rewrites the dimension there, then passes the rest through.
type dimensionWriter struct {
	w    io.Writer
	z    *dimensionZip
	head []byte // nil once written
}

// maxSheetHead bounds what is held of the part before its rows.
const maxSheetHead = 1 << 20

var (
	sheetDataStart = []byte("<sheetData")
	dimensionRef   = regexp.MustCompile(`<dimension ref="[^"]*"`)
)

func (d *dimensionWriter) Write(p []byte) (int, error) {
	if d.head == nil && d.z.done {
		return d.w.Write(p)
	}
	d.head = append(d.head, p...)
	if !bytes.Contains(d.head, sheetDataStart) && len(d.head) < maxSheetHead {
		return len(p), nil
	}
	if err := d.writeHead(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeHead writes the held start of the part with the dimension set.
func (d *dimensionWriter) writeHead() error {
	head := d.head
	d.head = nil
	loc := dimensionRef.FindIndex(head)
	if loc == nil {
		return errors.New("the sheet part has no dimension to set")
	}
	d.z.done = true
	out := make([]byte, 0, len(head)+len(d.z.ref))
	out = append(out, head[:loc[0]]...)
	out = append(out, `<dimension ref="`+d.z.ref+`"`...)
	out = append(out, head[loc[1]:]...)
	_, err := d.w.Write(out)
	return err
}

// abort drops the workbook and its temporary spool files.
func (e *xlsxEncoder) abort() { _ = e.f.Close() }
