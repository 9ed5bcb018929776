package templates

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"filebridge/internal/model"
	"filebridge/internal/templates/gentest"
)

var update = flag.Bool("update", false, "rewrite the templates/ folder at the repository root")

// repoTemplates is the committed templates folder.
const repoTemplates = "../../templates"

// TestTemplatesUpToDate regenerates every template and compares it with the
// committed templates/ folder: CSV byte for byte, XLSX part by part
// (decompressed), so that a compressor change does not fail the test.
func TestTemplatesUpToDate(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			want := filepath.Join(repoTemplates, string(e))
			if *update {
				if err := os.RemoveAll(want); err != nil {
					t.Fatal(err)
				}
				if _, err := Write(want, e); err != nil {
					t.Fatal(err)
				}
				return
			}
			dir := t.TempDir()
			paths, err := Write(dir, e)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range paths {
				name := filepath.Base(p)
				names = append(names, name)
				got := readFile(t, p)
				committed := readFile(t, filepath.Join(want, name))
				gentest.SameFile(t, string(e)+"/"+name, got, committed, "go generate ./internal/templates")
			}
			entries, err := os.ReadDir(want)
			if err != nil {
				t.Fatal(err)
			}
			for _, en := range entries {
				if !slices.Contains(names, en.Name()) {
					t.Errorf("templates/%s/%s is not a template any more: delete it", e, en.Name())
				}
			}
		})
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go generate ./internal/templates)", err)
	}
	return b
}

func TestWriteIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	pa, err := Write(a, model.EditionB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(b, model.EditionB); err != nil {
		t.Fatal(err)
	}
	for _, p := range pa {
		rel, _ := filepath.Rel(a, p)
		if !bytes.Equal(readFile(t, p), readFile(t, filepath.Join(b, rel))) {
			t.Errorf("%s differs between two runs", rel)
		}
	}
}

func TestWriteUnknownEdition(t *testing.T) {
	if _, err := Write(t.TempDir(), model.Edition("C")); err == nil {
		t.Fatal("want an error for edition C")
	}
}

// TestContent checks every template against its spec: the header row is the
// spec's column list and nothing follows it in the CSV or the XLSX data
// sheet; the XLSX example sheet holds the examples, the data sheet keeps
// code and EAN columns as text and the columns sheet describes every column.
func TestContent(t *testing.T) {
	eachSpec(t, func(t *testing.T, e model.Edition, dt model.DocType, spec model.Spec) {
		var names, examples []string
		for _, fl := range spec.Fields {
			names = append(names, fl.Name)
			examples = append(examples, fl.Example)
		}
		data, err := CSV(spec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte(utf8BOM)) {
			t.Error("CSV template does not start with a UTF-8 BOM")
		}
		rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte(utf8BOM)))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || !slices.Equal(rows[0], names) {
			t.Errorf("CSV rows = %q\nwant the header %q alone", rows, names)
		}
		ex, err := ExampleCSV(spec)
		if err != nil {
			t.Fatal(err)
		}
		rows, err = csv.NewReader(bytes.NewReader(ex)).ReadAll()
		if err != nil || len(rows) != 2 || !slices.Equal(rows[1], examples) {
			t.Errorf("example CSV rows = %q (%v), want the examples %q", rows, err, examples)
		}
		checkXLSX(t, spec, dt, names)
	})
}

// eachSpec runs f as a subtest for every document type of every edition.
func eachSpec(t *testing.T, f func(t *testing.T, e model.Edition, dt model.DocType, spec model.Spec)) {
	for _, e := range model.Editions {
		for _, dt := range model.DocTypes(e) {
			t.Run(string(e)+"/"+dt.Name, func(t *testing.T) {
				spec, err := Spec(e, dt)
				if err != nil {
					t.Fatal(err)
				}
				f(t, e, dt, spec)
			})
		}
	}
}

// exampleDate is how a date or date-time example shows in its column's format.
func exampleDate(t *testing.T, example string, ft model.FieldType) string {
	t.Helper()
	d, err := time.Parse(time.RFC3339, example)
	if err != nil {
		if d, err = time.Parse(time.DateOnly, example); err != nil {
			t.Fatalf("example %q: %v", example, err)
		}
	}
	if ft == model.TDate {
		return d.Format("2006-01-02")
	}
	return d.Format("2006-01-02 15:04")
}

func checkXLSX(t *testing.T, spec model.Spec, dt model.DocType, names []string) {
	t.Helper()
	data, err := XLSX(spec, dt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !slices.Equal(got, []string{DataSheet, ExampleSheet, ColumnsSheet}) {
		t.Fatalf("sheets = %q", got)
	}
	if data, err := f.GetRows(DataSheet); err != nil || len(data) != 1 || !slices.Equal(data[0], names) {
		t.Fatalf("data rows = %q (%v), want the header %q alone", data, err, names)
	}
	rows, err := f.GetRows(ExampleSheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || !slices.Equal(rows[0], names) {
		t.Fatalf("example rows = %q, want header %q and one example", rows, names)
	}
	for i, fl := range spec.Fields {
		cell, _ := excelize.CoordinatesToCellName(i+1, 2)
		got := ""
		if i < len(rows[1]) {
			got = rows[1][i]
		}
		wantFmt := ""
		switch fl.Type {
		case model.TDate:
			wantFmt = numFmtDate
		case model.TDateTime:
			wantFmt = numFmtDateTime
		}
		if wantFmt != "" && fl.Example != "" {
			// A date example is a date cell, shown in the column's format.
			shown, _ := f.GetCellValue(ExampleSheet, cell)
			if want := exampleDate(t, fl.Example, fl.Type); shown != want {
				t.Errorf("%s example shows %q, want %q", fl.Name, shown, want)
			}
		} else if got != fl.Example && !isNumeric(fl.Type) {
			t.Errorf("%s example = %q, want %q", fl.Name, got, fl.Example)
		}
		styleID, err := f.GetCellStyle(DataSheet, cell)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.GetStyle(styleID)
		if err != nil {
			t.Fatal(err)
		}
		custom := ""
		if st.CustomNumFmt != nil {
			custom = *st.CustomNumFmt
		}
		switch {
		case wantFmt != "":
			if custom != wantFmt {
				t.Errorf("%s (%s): number format %q (built-in %d), want %q", fl.Name, fl.Type, custom, st.NumFmt, wantFmt)
			}
		case isNumeric(fl.Type):
			if st.NumFmt != 0 || custom != "" {
				t.Errorf("%s (%s): number format %q (built-in %d), want General", fl.Name, fl.Type, custom, st.NumFmt)
			}
		case st.NumFmt != numFmtText:
			t.Errorf("%s (%s): number format %q (built-in %d), want Text", fl.Name, fl.Type, custom, st.NumFmt)
		}
	}
	desc, err := f.GetRows(ColumnsSheet)
	if err != nil {
		t.Fatal(err)
	}
	if len(desc) != len(names)+1 {
		t.Fatalf("columns sheet has %d rows, want %d", len(desc), len(names)+1)
	}
	for i, row := range desc[1:] {
		if row[0] != names[i] || row[1] == "" || row[2] == "" {
			t.Errorf("columns sheet row %d = %q", i+2, row)
		}
	}
}

func TestColumnsRequired(t *testing.T) {
	tests := []struct {
		e      model.Edition
		kind   model.Kind
		column string
		want   string
	}{
		{model.EditionA, model.KindItem, "sku", "yes"},
		{model.EditionA, model.KindItem, "eanBox", "conditional: when quantityPerBox is above 1"},
		{model.EditionA, model.KindItem, "description1", "no"},
		{model.EditionA, model.KindInbound, "quantity", "yes, on every line"},
		{model.EditionA, model.KindInbound, "item.ean", "conditional: when the line carries SKU master data (item.* columns)"},
		{model.EditionA, model.KindOutbound, "serviceType", "conditional: on a service line (a row without sku)"},
		{model.EditionA, model.KindOutbound, "shipTo.city", "yes: the receiver's address"},
		{model.EditionB, model.KindOutbound, "shipTo.city", "conditional: when the order embeds a consignee (shipTo.* columns)"},
		{model.EditionB, model.KindInbound, "warehouseCode", "conditional: warehouseLocation or warehouseCode"},
	}
	for _, tt := range tests {
		t.Run(string(tt.e)+"/"+tt.column, func(t *testing.T) {
			spec, _ := model.SpecFor(tt.e, tt.kind)
			for _, c := range Columns(spec) {
				if c.Name == tt.column {
					if c.Required != tt.want {
						t.Errorf("required = %q, want %q", c.Required, tt.want)
					}
					return
				}
			}
			t.Fatalf("no column %s", tt.column)
		})
	}
}

func TestColumnsLimit(t *testing.T) {
	spec, _ := model.SpecFor(model.EditionA, model.KindItem)
	want := map[string]string{
		"sku":            "at most 14 characters",
		"quantityPerBox": "> 0; decimal point '.'",
		"ean":            "8, 12, 13 or 14 digits with a valid check digit",
	}
	for _, c := range Columns(spec) {
		if w, ok := want[c.Name]; ok && c.Limit != w {
			t.Errorf("%s limit = %q, want %q", c.Name, c.Limit, w)
		}
	}
	b, _ := model.SpecFor(model.EditionB, model.KindPackaging)
	for _, c := range Columns(b) {
		if c.Name == "level" && c.Limit != "one of PCB, SPCB, UVC" {
			t.Errorf("level limit = %q", c.Limit)
		}
	}
}
