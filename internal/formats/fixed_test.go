package formats

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/fixedwidth"
	"filebridge/internal/model"
)

// skuLayout is the layout of testdata/fixed/skus*.txt (Edition A SKUs).
func skuLayout() fixedwidth.Layout {
	return fixedwidth.Layout{Fields: []fixedwidth.Field{
		{Name: "sku", Start: 1, Length: 14},
		{Name: "name", Start: 15, Length: 30},
		{Name: "ean", Start: 45, Length: 13},
		{Name: "quantityPerBox", Start: 58, Length: 4},
		{Name: "length", Start: 62, Length: 6, Decimals: 1},
		{Name: "width", Start: 68, Length: 6, Decimals: 1},
		{Name: "height", Start: 74, Length: 6, Decimals: 1},
		{Name: "grossWeight", Start: 80, Length: 7, Decimals: 3},
		{Name: "grossWeightBox", Start: 87, Length: 7, Decimals: 3},
		{Name: "buyPrice", Start: 94, Length: 9, Decimals: 2},
		{Name: "supplierCode", Start: 103, Length: 10},
	}}
}

// orderLayout is the layout of testdata/fixed/orders*.txt (Edition A
// orders): header records H carry the order's columns onto its detail
// records D; trailers T are skipped.
func orderLayout() fixedwidth.Layout {
	return fixedwidth.Layout{
		Record: &fixedwidth.RecordType{Start: 1, Length: 1, Header: "H", Skip: []string{"T"}},
		Fields: []fixedwidth.Field{
			{Name: "orderNumber", Start: 2, Length: 17, Record: "H"},
			{Name: "externalOrderNumber", Start: 19, Length: 20, Record: "H"},
			{Name: "warehouseLocation", Start: 39, Length: 4, Record: "H"},
			{Name: "shipTo.name", Start: 43, Length: 30, Record: "H"},
			{Name: "shipTo.city", Start: 73, Length: 20, Record: "H"},
			{Name: "shipTo.countryCode", Start: 93, Length: 2, Record: "H"},
			{Name: "shipTo.streetAddress", Start: 95, Length: 30, Record: "H"},
			{Name: "shipTo.zipcode", Start: 125, Length: 10, Record: "H"},
			{Name: "position", Start: 2, Length: 4, Record: "D"},
			{Name: "sku", Start: 6, Length: 14, Record: "D"},
			{Name: "quantity", Start: 20, Length: 9, Record: "D"},
		},
	}
}

// TestFixedWidthGolden decodes fixed-width files: charset, implied
// decimals, trailing spaces, short and long lines, record types; the
// documents and every issue are compared with testdata/fixed/*.golden
// (go test -update-xlsx rewrites them).
func TestFixedWidthGolden(t *testing.T) {
	tests := []struct {
		name string
		file string
		opts Options
	}{
		{"skus", "skus.txt", Options{Type: "skus", Charset: "windows-1252", Layout: skuLayout()}},
		{"skus_comma", "skus.txt", Options{Type: "skus", Charset: "windows-1252", DecimalComma: true, Layout: skuLayout()}},
		{"skus_bad", "skus_bad.txt", Options{Type: "skus", Charset: "windows-1252", Layout: skuLayout()}},
		{"skus_cr", "skus_cr.txt", Options{Type: "skus", Charset: "windows-1252", Layout: skuLayout()}},
		{"skus_not_utf8", "skus.txt", Options{Type: "skus", Layout: skuLayout()}},
		{"skus_utf8_in_1252", "skus_utf8.txt", Options{Type: "skus", Charset: "windows-1252", Layout: skuLayout()}},
		{"orders", "orders.txt", Options{Type: "orders", Layout: orderLayout()}},
		{"orders_bad", "orders_bad.txt", Options{Type: "orders", Layout: orderLayout()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "fixed", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			tt.opts.Edition, tt.opts.Format = model.EditionA, "fixed"
			res := decodeBytes(t, tt.file, data, tt.opts)
			if res.err != nil {
				t.Fatal(res.err)
			}
			golden(t, filepath.Join("testdata", "fixed", tt.name+".golden"), renderResult(res))
		})
	}
}

// TestFixedWidthRows: Rows gives the cut cells of each row (the rejected
// rows of a fixed-width file), header records merged, trailers skipped.
func TestFixedWidthRows(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "fixed", "orders.txt"))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Edition: model.EditionA, Type: "orders", Format: "fixed", Layout: orderLayout()}
	var got []string
	header, err := Rows(context.Background(), strings.NewReader(string(data)), int64(len(data)), "orders.txt", opts, func(row int, cells []string, raw string) error {
		got = append(got, strings.Join(cells, "|"))
		return nil
	})
	if err != nil || header != nil {
		t.Fatalf("header %q, %v", header, err)
	}
	want := []string{
		"SO-1001|EXT-1|1|Jean Dupont|Lyon|FR|12 rue de la Paix|69001|0001|4711|000000200",
		"SO-1001|EXT-1|1|Jean Dupont|Lyon|FR|12 rue de la Paix|69001|0002|4712|000000100",
		"SO-1002|EXT-2|1|Anna Schmidt|Köln|DE|Domplatz 1|50667|0001|4711|000000050",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzDecodeFixed: any bytes read by a layout (SKUs, or orders with header,
// line and trailer records) give issues, never an error or a panic, and
// every valid document keeps the decoder's promises (see checkDocs).
func FuzzDecodeFixed(f *testing.F) {
	for _, name := range []string{"skus.txt", "skus_bad.txt", "orders.txt", "orders_bad.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "fixed", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, strings.HasPrefix(name, "orders"), false)
	}
	f.Add([]byte("H\nD\r\n\n   \nT"), true, true)
	f.Add([]byte("4711\xe9"), false, true)
	f.Fuzz(func(t *testing.T, data []byte, orders, comma bool) {
		opts := Options{Edition: A, Type: "skus", Format: "fixed", Layout: skuLayout(), DecimalComma: comma}
		if orders {
			opts.Type, opts.Layout = "orders", orderLayout()
		}
		r := decodeBytes(t, "F.txt", data, opts)
		if r.err != nil {
			t.Fatalf("a fixed-width file gives issues, not errors: %v", r.err)
		}
		if r.sum.Docs != len(r.docs) {
			t.Fatalf("summary counts %d docs, fn saw %d", r.sum.Docs, len(r.docs))
		}
		if !hasError(r.sum.FileIssues) {
			checkDocs(t, A, data, r.docs)
		}
	})
}

// genSKUFixed writes the SKU rows of BenchmarkValidateSKUs1M as
// fixed-width lines of skuLayout.
func genSKUFixed(rows int) func(string) error {
	return func(path string) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		l := skuLayout()
		vals := make([]string, len(l.Fields))
		var line strings.Builder
		for i := 0; i < rows; i++ {
			c := skuCells(i)
			row := map[string]string{}
			for j, h := range skuBenchHead {
				row[h] = c[j]
			}
			for j, fl := range l.Fields {
				pad := fixedwidth.PadText
				if fl.Decimals > 0 || fl.Name == "quantityPerBox" {
					pad = fixedwidth.PadNumber
				}
				if vals[j], err = pad(fl, row[fl.Name]); err != nil {
					return err
				}
			}
			line.Reset()
			l.Line(&line, vals)
			line.WriteByte('\n')
			_, _ = w.WriteString(line.String())
		}
		if err := w.Flush(); err != nil {
			return err
		}
		return f.Close()
	}
}

// BenchmarkValidateSKUsFixed1M is BenchmarkValidateSKUs1M on the same rows
// as a fixed-width file cut by skuLayout.
func BenchmarkValidateSKUsFixed1M(b *testing.B) {
	path := benchFile(b, "SKU_FIXED_1000000.txt", genSKUFixed(1_000_000))
	benchDecode(b, path, Options{Edition: A, Type: "skus", Format: "fixed", Layout: skuLayout(), MaxSize: 1 << 30}, 1_000_000)
}
