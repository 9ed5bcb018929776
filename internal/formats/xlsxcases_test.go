package formats

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"filebridge/internal/templates/gentest"
	"filebridge/internal/testkit"
)

var updateXLSX = flag.Bool("update-xlsx", false, "rewrite the golden files of TestXLSXCases in testdata/xlsx/")

var (
	xSKUHead = []any{"sku", "name", "ean", "quantityPerBox", "length", "width", "height", "grossWeight", "grossWeightBox", "buyPrice", "supplierCode"}
	xRecHead = []any{"orderNumber", "warehouseLocation", "supplierCode", "dueAt", "sku", "quantity"}
)

func xSKU(over map[int]any) []any {
	row := []any{"CHAIR-OAK-01", "Oak chair", "4006381333931", 1, 45, 50, 90, 6.5, 7.2, 89.9, "SUP-001"}
	for i, v := range over {
		row[i] = v
	}
	return row
}

// dueSerial is 2026-12-01 08:30 as a spreadsheet serial.
const dueSerial = 46357.3541666667

func xRec(order any, sku string, qty int, due any) []any {
	return []any{order, 3, "SUP-001", due, sku, qty}
}

// TestXLSXCases reads workbooks as clerks and ERPs make them (written by
// excelize here, and by openpyxl in testdata/xlsx/make_openpyxl.py): each
// case either reads the value the spreadsheet shows or fails with a
// message naming the sheet, the cell, the value and the fix. The golden
// file of a case lists the sheet read, every document with its source rows
// and its content, and every issue (go test -update-xlsx rewrites them).
func TestXLSXCases(t *testing.T) {
	sheet := func(cells ...[]any) testkit.Sheet {
		return testkit.Sheet{Name: "Sheet1", Cells: testkit.Rows(cells...)}
	}
	file := func(name string) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b, err := os.ReadFile(filepath.Join("testdata", "xlsx", name))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	book := func(active int, sheets ...testkit.Sheet) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return testkit.Workbook(t, active, sheets...) }
	}
	partnerHead := []any{"code", "name", "relationship", "streetAddress", "zipcode", "city", "countryCode", "phone"}
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		opts Options
	}{
		// 1. Codes typed as numbers.
		{"zeros_excelize", book(0, testkit.Sheet{Name: "Sheet1", Cells: testkit.WithFormat(testkit.WithFormat(testkit.WithFormat(testkit.Rows(xSKUHead,
			xSKU(map[int]any{0: 456, 2: 12345678905, 10: 42}),
			xSKU(map[int]any{0: 789, 2: 4006381333931})),
			"A2", "00000"), "C2", "0000000000000"), "K2", `"00"#`)}), Options{}},
		{"zeros_openpyxl", file("opx_zeros.xlsx"), Options{}},
		{"zeros_partner", book(0, testkit.Sheet{Name: "Sheet1", Cells: testkit.WithFormat(testkit.WithFormat(testkit.Rows(partnerHead,
			[]any{42, "Bakker BV", "Manufacturer", "Dorpstraat 1", 1000, "Brussel", "BE", 612345678},
			[]any{7, "Smit", "Manufacturer", "Kerkstraat 2", 1012, "Amsterdam", "NL", 31201234567}),
			"A2", "000"), "E3", "0000")}), Options{Edition: B, Type: "connections"}},
		// 2. Which sheet.
		{"sheet_hidden_first", file("opx_sheets.xlsx"), Options{}},
		{"sheet_active", book(1,
			testkit.Sheet{Name: "Archive", Cells: testkit.Rows(xSKUHead, xSKU(map[int]any{0: "ARCHIVED-1"}))},
			testkit.Sheet{Name: "Today", Cells: testkit.Rows(xSKUHead, xSKU(nil))}), Options{}},
		{"sheet_named_hidden", file("opx_sheets.xlsx"), Options{Sheet: "old"}},
		// 3. Merged cells, formulas without a saved value.
		{"merged_order_openpyxl", file("opx_merged.xlsx"), Options{}},
		{"merged_order_excelize", book(0, testkit.Sheet{Name: "Sheet1", Merges: []string{"A2:A4"}, Cells: testkit.Rows(xRecHead,
			xRec("R-100", "SKU-1", 5, dueSerial), xRec(nil, "SKU-2", 6, dueSerial), xRec(nil, "SKU-3", 7, dueSerial),
			xRec("R-101", "SKU-1", 1, dueSerial))}), Options{}},
		{"merged_across_columns", book(0, testkit.Sheet{Name: "Sheet1", Merges: []string{"E3:F3"}, Cells: testkit.Rows(xRecHead,
			xRec("R-100", "SKU-1", 5, dueSerial), xRec("R-100", "SKU-2", 6, dueSerial), xRec("R-100", "SKU-3", 7, dueSerial),
			xRec("R-101", "SKU-1", 1, dueSerial))}), Options{}},
		{"merged_header", file("opx_merged_header.xlsx"), Options{}},
		{"formula_openpyxl", file("opx_formula.xlsx"), Options{}},
		{"formula_excelize", book(0, sheet(xSKUHead, xSKU(map[int]any{7: "=2*3"}))), Options{}},
		{"error_values_openpyxl", file("opx_errors.xlsx"), Options{}},
		// 5. Hidden rows, TRUE/FALSE, dates in 1899-1900.
		{"hidden_row", book(0, testkit.Sheet{Name: "Sheet1", HiddenRows: []int{3}, Cells: testkit.Rows(xSKUHead,
			xSKU(nil), xSKU(map[int]any{0: "CHAIR-OAK-02", 2: "4006381333948"}))}), Options{}},
		{"date_in_text", book(0, testkit.Sheet{Name: "Sheet1", Cells: testkit.WithFormat(testkit.WithFormat(testkit.Rows(xSKUHead,
			xSKU(map[int]any{1: 46023}), xSKU(map[int]any{0: "CHAIR-OAK-02", 2: "4006381333948", 1: 46054})),
			"B2", "d-mmm"), "B3", "yyyy-mm-dd")}), Options{}},
		{"bool_cells", book(0, sheet(xSKUHead, xSKU(map[int]any{1: true, 3: false}))), Options{}},
		{"date_small", book(0, sheet(xRecHead,
			xRec("R-1", "SKU-1", 1, 0.5), xRec("R-2", "SKU-1", 1, 5), xRec("R-3", "SKU-1", 1, 366), xRec("R-4", "SKU-1", 1, 367))), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Edition == "" {
				tt.opts.Edition = A
			}
			data := tt.data(t)
			r := decodeBytes(t, tt.name+".xlsx", data, tt.opts)
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := renderResult(r)
			golden(t, filepath.Join("testdata", "xlsx", tt.name+".golden"), got)
			// The same with the shared strings spilled to a temporary file.
			defer func(n uint64) { sstSpillSize = n }(sstSpillSize)
			sstSpillSize = 0
			if r := decodeBytes(t, tt.name+".xlsx", data, tt.opts); r.err != nil || renderResult(r) != got {
				t.Errorf("with the shared strings in a temporary file: %v\n%s", r.err, renderResult(r))
			}
		})
	}
}

// TestXLSXRowsShown checks that Rows, which NAME.rejected.csv is written
// from, gives zero-padded codes as the spreadsheet shows them.
func TestXLSXRowsShown(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "xlsx", "opx_zeros.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	_, err = Rows(context.Background(), bytes.NewReader(data), int64(len(data)), "SKU.xlsx", Options{Edition: A}, func(row int, cells []string, _ string) error {
		got = append(got, []string{cells[0], cells[2], cells[10]})
		return nil
	})
	want := [][]string{{"00456", "0012345678905", "0042"}, {"789", "4006381333931", "SUP-001"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %q (%v), want %q", got, err, want)
	}
}

// renderResult writes what a decode gave, for a golden file.
func renderResult(r result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sheet %q, %d rows, %d documents, %d invalid\n", r.sum.Sheet, r.sum.Rows, r.sum.Docs, r.sum.InvalidDocs)
	for _, is := range r.sum.FileIssues {
		b.WriteString("file: " + is.Error() + "\n")
	}
	for _, d := range r.docs {
		var body any
		switch {
		case d.Partner != nil:
			body = d.Partner
		case d.Item != nil:
			body = d.Item
		case d.Packaging != nil:
			body = d.Packaging
		case d.Inbound != nil:
			body = d.Inbound
		case d.Outbound != nil:
			body = d.Outbound
		}
		j, _ := json.Marshal(body)
		fmt.Fprintf(&b, "document %q rows %v valid %v: %s\n", d.Key, d.Rows, d.Valid(), j)
		for _, is := range d.Issues {
			b.WriteString("  " + is.Error() + "\n")
		}
	}
	return b.String()
}

// golden compares got with the golden file, or rewrites it with -update-xlsx.
func golden(t *testing.T, path, got string) {
	t.Helper()
	gentest.Golden(t, path, []byte(got), *updateXLSX, "-update-xlsx")
}
