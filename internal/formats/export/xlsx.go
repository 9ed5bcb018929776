package export

import (
	"fmt"
	"io"
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
}

func newXLSXEncoder(w io.Writer, s *Schema, opts Options) (*xlsxEncoder, error) {
	f := excelize.NewFile()
	e := &xlsxEncoder{out: w, f: f, opts: opts}
	sheet := opts.Sheet
	if len(sheet) > 31 {
		sheet = sheet[:31]
	}
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("naming the sheet %q: %w", sheet, err)
	}
	dtFmt, dFmt := "yyyy-mm-dd hh:mm:ss", "yyyy-mm-dd"
	var err error
	if e.dateTime, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dtFmt}); err == nil {
		if e.date, err = f.NewStyle(&excelize.Style{CustomNumFmt: &dFmt}); err == nil {
			e.headStyle, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("creating cell styles: %w", err)
	}
	if e.sw, err = f.NewStreamWriter(sheet); err != nil {
		_ = f.Close()
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
			_ = f.Close()
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
	if _, err := e.f.WriteTo(e.out); err != nil {
		return fmt.Errorf("writing the workbook: %w", err)
	}
	return nil
}

// abort drops the workbook and its temporary spool files.
func (e *xlsxEncoder) abort() { _ = e.f.Close() }
