package testkit

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// Cell is one cell of a test workbook: its reference ("B2"), a value (a
// string, a number, a bool, or a formula "=..." without saved value) and
// an optional custom number format.
type Cell struct {
	Ref    string
	V      any
	NumFmt string
}

// Sheet is one sheet of a test workbook: its cells, the ranges merged
// ("A2:A4") and the rows hidden (from 1).
type Sheet struct {
	Name       string
	Hidden     bool
	Cells      []Cell
	Merges     []string
	HiddenRows []int
}

// Rows lays out rows of values from A1 on; a nil value leaves its cell
// empty.
func Rows(rows ...[]any) []Cell {
	var out []Cell
	for r, row := range rows {
		for c, v := range row {
			if v == nil {
				continue
			}
			ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
			out = append(out, Cell{Ref: ref, V: v})
		}
	}
	return out
}

// WithFormat sets the custom number format of the cell ref among cells.
func WithFormat(cells []Cell, ref, code string) []Cell {
	for i := range cells {
		if cells[i].Ref == ref {
			cells[i].NumFmt = code
		}
	}
	return cells
}

// Workbook writes a workbook of the sheets with excelize, as a spreadsheet
// program would; active is the index of the sheet it opens on.
func Workbook(t testing.TB, active int, sheets ...Sheet) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, sh := range sheets {
		if i == 0 {
			must(f.SetSheetName("Sheet1", sh.Name))
		} else {
			_, err := f.NewSheet(sh.Name)
			must(err)
		}
		for _, c := range sh.Cells {
			if s, ok := c.V.(string); ok && strings.HasPrefix(s, "=") {
				must(f.SetCellFormula(sh.Name, c.Ref, s[1:]))
			} else {
				must(f.SetCellValue(sh.Name, c.Ref, c.V))
			}
			if c.NumFmt != "" {
				code := c.NumFmt
				st, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
				must(err)
				must(f.SetCellStyle(sh.Name, c.Ref, c.Ref, st))
			}
		}
		for _, m := range sh.Merges {
			from, to, _ := strings.Cut(m, ":")
			must(f.MergeCell(sh.Name, from, to))
		}
		for _, r := range sh.HiddenRows {
			must(f.SetRowVisible(sh.Name, r, false))
		}
	}
	f.SetActiveSheet(active)
	for _, sh := range sheets {
		if sh.Hidden {
			must(f.SetSheetVisible(sh.Name, false))
		}
	}
	var b bytes.Buffer
	must(f.Write(&b))
	return b.Bytes()
}

// HostileWorkbook writes a small valid XLSX workbook whose one sheet holds
// the given rows (inline strings) followed by spaces bytes of spaces
// before the sheet's end: a file of about spaces/1000 bytes that unpacks
// to spaces bytes.
func HostileWorkbook(w io.Writer, rows [][]string, spaces int64) error {
	zw := zip.NewWriter(w)
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{"xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
	}
	for _, p := range parts {
		pw, err := zw.Create(p.name)
		if err == nil {
			_, err = io.WriteString(pw, p.body)
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", p.name, err)
		}
	}
	var sheet strings.Builder
	sheet.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
	for r, row := range rows {
		fmt.Fprintf(&sheet, `<row r="%d">`, r+1)
		for c, v := range row {
			fmt.Fprintf(&sheet, `<c r="%c%d" t="inlineStr"><is><t>`, 'A'+c, r+1)
			if err := xml.EscapeText(&sheet, []byte(v)); err != nil {
				return err
			}
			sheet.WriteString(`</t></is></c>`)
		}
		sheet.WriteString(`</row>`)
	}
	pw, err := zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		return fmt.Errorf("writing the sheet: %w", err)
	}
	if _, err := io.WriteString(pw, sheet.String()); err != nil {
		return fmt.Errorf("writing the sheet: %w", err)
	}
	blank := bytes.Repeat([]byte{' '}, 1<<20)
	for left := spaces; left > 0; left -= int64(len(blank)) {
		if _, err := pw.Write(blank[:min(left, int64(len(blank)))]); err != nil {
			return fmt.Errorf("writing the sheet: %w", err)
		}
	}
	if _, err := io.WriteString(pw, `</sheetData></worksheet>`); err != nil {
		return fmt.Errorf("writing the sheet: %w", err)
	}
	return zw.Close()
}
