package export

import (
	"bytes"
	"testing"

	"github.com/xuri/excelize/v2"

	"filebridge/internal/model"
)

// encodeXLSX writes rows of Edition B as a workbook and opens it, closed
// when the test ends.
func encodeXLSX[R any](t *testing.T, typ model.ExportType, opts Options, rows []R) *excelize.File {
	t.Helper()
	opts.Format = XLSX
	data, err := encode(t, typ, model.EditionB, opts, rows)
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func TestXLSXReadBack(t *testing.T) {
	paris := parisZone(t)
	rows := sampleReceipts()
	rows[0].ReferenceNumber = "=1+1"
	f := encodeXLSX(t, model.ExportReceipts, Options{Location: paris}, rows)
	if got := f.GetSheetList(); len(got) != 1 || got[0] != "receipts" {
		t.Fatalf("sheets = %v, want [receipts]", got)
	}
	all, err := f.GetRows("receipts", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Fatalf("%d rows, want header + 3", len(all))
	}
	header := MustFor(model.ExportReceipts, model.EditionB).Header()
	for i, h := range header {
		if all[0][i] != h {
			t.Errorf("header cell %d = %q, want %q", i+1, all[0][i], h)
		}
	}
	tests := []struct {
		cell     string
		typ      excelize.CellType
		raw      string // raw value; "" skips
		formated string // formatted value; "" skips
	}{
		{"A2", excelize.CellTypeInlineString, "PO-0001", ""},
		{"B2", excelize.CellTypeInlineString, "'=1+1", ""}, // formula start neutralised
		{"C2", excelize.CellTypeUnset, "75", ""},           // integer: a number cell
		{"G2", excelize.CellTypeInlineString, "007", ""},   // leading zeros: text
		{"I2", excelize.CellTypeInlineString, "0012345", ""},
		{"L2", excelize.CellTypeUnset, "-2", ""}, // negative difference stays a number
		{"I3", excelize.CellTypeInlineString, "'-SKU2", ""},
		{"E2", excelize.CellTypeUnset, "", "2026-11-21 10:30:00"}, // in Paris time
		{"N2", excelize.CellTypeUnset, "", "2027-05-31"},
		{"N3", excelize.CellTypeUnset, "", ""}, // empty date: empty cell
		{"O2", excelize.CellTypeInlineString, "Größe €", ""},
	}
	for _, tt := range tests {
		typ, err := f.GetCellType("receipts", tt.cell)
		if err != nil {
			t.Fatal(err)
		}
		if typ != tt.typ {
			t.Errorf("%s: type %v, want %v", tt.cell, typ, tt.typ)
		}
		if tt.raw != "" {
			v, _ := f.GetCellValue("receipts", tt.cell, excelize.Options{RawCellValue: true})
			if v != tt.raw {
				t.Errorf("%s = %q, want %q", tt.cell, v, tt.raw)
			}
		}
		if tt.formated != "" {
			v, _ := f.GetCellValue("receipts", tt.cell)
			if v != tt.formated {
				t.Errorf("%s formatted = %q, want %q", tt.cell, v, tt.formated)
			}
		}
	}
	if v, _ := f.GetCellValue("receipts", "N3"); v != "" {
		t.Errorf("N3 = %q, want empty", v)
	}
}

func TestXLSXDecimals(t *testing.T) {
	items := []ItemRow{{SKU: "A1", Length: "12.5", Width: "-0.001", Height: "1234567890.1234567", GrossWeight: ""}}
	f := encodeXLSX(t, model.ExportItems, Options{Sheet: "Items"}, items)
	for cell, want := range map[string]struct {
		typ excelize.CellType
		raw string
	}{
		"D2": {excelize.CellTypeUnset, "12.5"},
		"E2": {excelize.CellTypeUnset, "-0.001"},
		// 17 significant digits do not fit a double: kept exact, as text.
		"F2": {excelize.CellTypeInlineString, "1234567890.1234567"},
		"G2": {excelize.CellTypeUnset, ""},
	} {
		typ, _ := f.GetCellType("Items", cell)
		v, _ := f.GetCellValue("Items", cell, excelize.Options{RawCellValue: true})
		if typ != want.typ || v != want.raw {
			t.Errorf("%s = %v %q, want %v %q", cell, typ, v, want.typ, want.raw)
		}
	}
}
