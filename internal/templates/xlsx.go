package templates

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"filebridge/internal/model"
)

// Sheet names of the XLSX templates.
const (
	DataSheet    = "data"
	ExampleSheet = "example"
	ColumnsSheet = "columns"
)

// fixedTime is the creation and modification time written into every
// template, so that regenerating gives the same file.
const fixedTime = "2026-01-01T00:00:00Z"

// numFmtText is Excel's built-in "@" (text) number format: what is typed in
// such a cell stays as typed (EANs are not turned into 4.00638E+12, zip
// codes keep their leading zero).
const numFmtText = 49

// Number formats of the date and date-time columns: what a clerk types
// there becomes a spreadsheet date, read in the route's time zone.
const (
	numFmtDate     = "yyyy-mm-dd"
	numFmtDateTime = "yyyy-mm-dd hh:mm"
)

// validationRows is how far down the data sheet the drop-down lists of enum
// columns reach.
const validationRows = 10000

// XLSX returns the XLSX template of a spec: a "data" sheet with the header
// row only (a forgotten example is never submitted), date columns
// formatted as dates and every other non-numeric column (codes, EANs,
// postcodes) as text; an "example" sheet with the header and one
// example row; and a "columns" sheet describing each column. filebridge
// reads the sheet it opens on, "data".
func XLSX(spec model.Spec, dt model.DocType) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", DataSheet); err != nil {
		return nil, fmt.Errorf("naming data sheet: %w", err)
	}
	st, err := newStyles(f)
	if err != nil {
		return nil, err
	}
	if err := writeData(f, st, spec, DataSheet, false); err != nil {
		return nil, fmt.Errorf("writing data sheet: %w", err)
	}
	if _, err := f.NewSheet(ExampleSheet); err != nil {
		return nil, fmt.Errorf("adding example sheet: %w", err)
	}
	if err := writeData(f, st, spec, ExampleSheet, true); err != nil {
		return nil, fmt.Errorf("writing example sheet: %w", err)
	}
	if err := writeColumns(f, st, spec); err != nil {
		return nil, fmt.Errorf("writing columns sheet: %w", err)
	}
	f.SetActiveSheet(0)
	if err := f.SetDocProps(&excelize.DocProperties{
		Title:          fmt.Sprintf("filebridge template: Edition %s %s", spec.Edition, dt.Name),
		Subject:        fmt.Sprintf("customer-portal API v%s", spec.Edition.APIVersion()),
		Creator:        "filebridge",
		LastModifiedBy: "filebridge",
		Description:    "Fill in the data sheet, one row per document (per line for orders); the example sheet shows a filled-in row and the columns sheet describes each column.",
		Created:        fixedTime,
		Modified:       fixedTime,
	}); err != nil {
		return nil, fmt.Errorf("setting document properties: %w", err)
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, fmt.Errorf("writing XLSX: %w", err)
	}
	return buf.Bytes(), nil
}

type styles struct {
	header, headerText, text, date, dateTime int
}

func newStyles(f *excelize.File) (styles, error) {
	var st styles
	bold := &excelize.Font{Bold: true}
	fill := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"DDEBF7"}}
	d, dt := numFmtDate, numFmtDateTime
	for _, s := range []struct {
		id    *int
		what  string
		style excelize.Style
	}{
		{&st.header, "header", excelize.Style{Font: bold, Fill: fill}},
		{&st.headerText, "header", excelize.Style{Font: bold, Fill: fill, NumFmt: numFmtText}},
		{&st.text, "text", excelize.Style{NumFmt: numFmtText}},
		{&st.date, "date", excelize.Style{CustomNumFmt: &d}},
		{&st.dateTime, "date-time", excelize.Style{CustomNumFmt: &dt}},
	} {
		var err error
		if *s.id, err = f.NewStyle(&s.style); err != nil {
			return st, fmt.Errorf("creating %s style: %w", s.what, err)
		}
	}
	return st, nil
}

// columnStyle is the style of a column's cells: a date format for dates,
// text for other non-numeric columns, 0 (General) for numbers.
func (st styles) columnStyle(t model.FieldType) int {
	switch {
	case t == model.TDate:
		return st.date
	case t == model.TDateTime:
		return st.dateTime
	case isNumeric(t):
		return 0
	}
	return st.text
}

// isNumeric reports whether a column holds numbers in the template.
func isNumeric(t model.FieldType) bool { return t == model.TInt || t == model.TDecimal }

// writeData writes the header row of sheet, formats and sizes its columns
// and adds the drop-down lists; withExample adds the example row.
func writeData(f *excelize.File, st styles, spec model.Spec, sheet string, withExample bool) error {
	for i, fl := range spec.Fields {
		col, err := excelize.ColumnNumberToName(i + 1)
		if err != nil {
			return err
		}
		width := float64(max(utf8.RuneCountInString(fl.Name), utf8.RuneCountInString(fl.Example)) + 3)
		if err := f.SetColWidth(sheet, col, col, min(width, 45)); err != nil {
			return err
		}
		headerStyle := st.header
		if cs := st.columnStyle(fl.Type); cs != 0 {
			if cs == st.text {
				headerStyle = st.headerText
			}
			if err := f.SetColStyle(sheet, col, cs); err != nil {
				return err
			}
		}
		if err := setStr(f, sheet, col, 1, fl.Name, headerStyle); err != nil {
			return err
		}
		if withExample {
			if err := writeExample(f, st, sheet, fl, col); err != nil {
				return fmt.Errorf("example of %s: %w", fl.Name, err)
			}
		}
		if len(fl.Enum) > 0 {
			dv := excelize.NewDataValidation(true)
			dv.SetSqref(fmt.Sprintf("%s2:%s%d", col, col, validationRows))
			if err := dv.SetDropList(fl.Enum); err != nil {
				return err
			}
			dv.SetError(excelize.DataValidationErrorStyleStop, fl.Name, "Choose one of the listed values.")
			if err := f.AddDataValidation(sheet, dv); err != nil {
				return err
			}
		}
	}
	return f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"})
}

// writeExample writes a field's example into row 2: numbers as numbers,
// dates as dates, everything else as text.
func writeExample(f *excelize.File, st styles, sheet string, fl model.Field, col string) error {
	cell := col + "2"
	if fl.Example == "" {
		return nil
	}
	if isNumeric(fl.Type) {
		if n, err := strconv.ParseInt(fl.Example, 10, 64); err == nil {
			return f.SetCellInt(sheet, cell, n)
		}
		v, err := strconv.ParseFloat(fl.Example, 64)
		if err != nil {
			return fmt.Errorf("example %q is not a number: %w", fl.Example, err)
		}
		return f.SetCellFloat(sheet, cell, v, -1, 64)
	}
	if cs := st.columnStyle(fl.Type); cs != st.text {
		t, err := time.Parse(time.RFC3339, fl.Example)
		if err != nil {
			if t, err = time.Parse(time.DateOnly, fl.Example); err != nil {
				return fmt.Errorf("example %q is not a date: %w", fl.Example, err)
			}
		}
		if err := f.SetCellValue(sheet, cell, t); err != nil {
			return err
		}
		return f.SetCellStyle(sheet, cell, cell, cs)
	}
	return setStr(f, sheet, col, 2, fl.Example, st.text)
}

func setStr(f *excelize.File, sheet, col string, row int, v string, style int) error {
	cell := col + strconv.Itoa(row)
	if err := f.SetCellStr(sheet, cell, v); err != nil {
		return err
	}
	return f.SetCellStyle(sheet, cell, cell, style)
}

func writeColumns(f *excelize.File, st styles, spec model.Spec) error {
	if _, err := f.NewSheet(ColumnsSheet); err != nil {
		return err
	}
	header := []string{"column", "required", "type", "limit", "example", "description"}
	widths := []float64{34, 40, 14, 40, 26, 70}
	for i, h := range header {
		col, _ := excelize.ColumnNumberToName(i + 1)
		if err := f.SetColWidth(ColumnsSheet, col, col, widths[i]); err != nil {
			return err
		}
		if err := f.SetColStyle(ColumnsSheet, col, st.text); err != nil {
			return err
		}
		if err := setStr(f, ColumnsSheet, col, 1, h, st.headerText); err != nil {
			return err
		}
	}
	for r, c := range Columns(spec) {
		for i, v := range []string{c.Name, c.Required, c.Type, c.Limit, c.Example, c.Description} {
			col, _ := excelize.ColumnNumberToName(i + 1)
			if err := setStr(f, ColumnsSheet, col, r+2, v, st.text); err != nil {
				return err
			}
		}
	}
	return f.SetPanes(ColumnsSheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"})
}
