package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

func TestValidateRoughEdges(t *testing.T) {
	dir := t.TempDir()
	// A Windows-1252 CSV with decimal commas: both in one round, hints
	// naming the flags.
	cp1252 := filepath.Join(dir, "SKU_1252.csv")
	data := "sku,name,description1,ean,eanBox,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n" +
		"SKU-1,Stuhl f\xfcr K\xfcche,Eiche,7350123100419,17350123100416,2,47,53,89,\"6,8\",\"14,4\",\"79,00\",SUP-A\n"
	writeFile(t, cp1252, data, 0o644)
	// An XLSX whose date cell was typed as text.
	xlsx := filepath.Join(dir, "RECEPTIONS_TEXTDATE.xlsx")
	f := excelize.NewFile()
	rows := [][]any{
		{"orderNumber", "warehouseLocation", "supplierCode", "orderType", "dueAt", "position", "sku", "quantity"},
		{"R-1", 3, "SUP-A", "CONT40HC", "16.03.2026", 1, "SKU-1", 10},
	}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Sheet1", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SaveAs(xlsx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{"charset and decimal commas in one round", []string{"--edition", "A", cp1252}, []string{
			"it reads as Windows-1252, and the other problems below were found reading it so; add --charset windows-1252",
			`"6,8"`, `"79,00"`, "(or add --decimal-comma", "1 of 1 document invalid"}, nil},
		{"with --charset only the commas", []string{"--edition", "A", "--charset", "windows-1252", cp1252}, []string{"(or add --decimal-comma"}, []string{"UTF-8"}},
		{"both flags: valid", []string{"--edition", "A", "--charset", "windows-1252", "--decimal-comma", cp1252}, []string{"1 document valid, 0 invalid"}, []string{"PROBLEM"}},
		{"XLSX date typed as text", []string{"--edition", "A", xlsx}, []string{`"16.03.2026"`, "the cell holds text, not a spreadsheet date", "add --date-layout (date_layout on the route)"}, nil},
		{"XLSX date with --date-layout", []string{"--edition", "A", "--date-layout", "02.01.2006", xlsx}, nil, []string{"dueAt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := execute(t, newValidateCmd(), false, tt.args...)
			got := out.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("output has %q:\n%s", w, got)
				}
			}
		})
	}
}
