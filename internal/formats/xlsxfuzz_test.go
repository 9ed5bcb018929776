package formats

import (
	"archive/zip"
	"strings"
	"testing"
)

// withSheetXML returns the workbook base with its first sheet's part
// replaced by a worksheet of the given sheetData content and merged ranges.
func withSheetXML(t testing.TB, base []byte, rows, merges string) []byte {
	t.Helper()
	return rezip(t, base, func(fh *zip.FileHeader, raw []byte) ([]byte, []byte) {
		if fh.Name != sheetPart {
			return raw, nil
		}
		return nil, []byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
			rows + `</sheetData><mergeCells>` + merges + `</mergeCells></worksheet>`)
	})
}

// FuzzXLSXSheet feeds the sheet reader arbitrary rows and merged ranges in
// a well-formed workbook (shared strings and styles of a real one): it
// never panics (recoverWorkbook would turn a panic into a "runtime error"
// message), and a valid document keeps its promises.
func FuzzXLSXSheet(f *testing.F) {
	base := workbook(f, "Sheet1", false, [][]string{strings.Split(skuHead, ","), strings.Split(skuRow, ",")}, "")
	head := `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>name</t></is></c><c r="C1" t="s"><v>2</v></c></row>`
	f.Add(head+`<row r="2"><c r="A2" s="1"><v>456</v></c><c r="B2" t="b"><v>1</v></c><c r="C2"><f>1+1</f></c></row>`, `<mergeCell ref="A2:A4"/>`)
	f.Add(head+`<row r="3" hidden="1"><c r="A3" t="e"><v>#N/A</v></c><c t="inlineStr"><is><r><t>a</t></r><rPh><t>x</t></rPh></is></c></row>`, `<mergeCell ref="A1:B1"/><mergeCell ref="B3:C5"/>`)
	f.Add(`<row><c><v>1</v></c></row><row r="7"><c r="XFD7" t="s"><v>99</v></c></row>`, `<mergeCell ref="Z9"/>`)
	f.Fuzz(func(t *testing.T, rows, merges string) {
		data := withSheetXML(t, base, rows, merges)
		r := decodeBytes(t, "F.xlsx", data, Options{Edition: A, Type: "skus", UnzipSizeLimit: 4 << 20})
		if r.err != nil {
			if strings.Contains(r.err.Error(), "runtime error") {
				t.Fatalf("the reader panicked: %v", r.err)
			}
			return
		}
		for _, is := range r.all() {
			if is.Message == "" {
				t.Fatalf("issue without a message: %+v", is)
			}
		}
		if !hasError(r.sum.FileIssues) {
			checkDocs(t, "", data, r.docs)
		}
	})
}
