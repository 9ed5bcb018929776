package testkit

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

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
