package formats

import (
	"bytes"
	"cmp"
	"strings"
	"testing"

	"filebridge/internal/model"
)

// checkDocs verifies what a valid document promises: required values set,
// limits kept, numbers canonical and positive, EANs valid, positions unique.
func checkDocs(t *testing.T, e model.Edition, src []byte, docs []Doc) {
	t.Helper()
	for _, d := range docs {
		for _, is := range d.Issues {
			if is.Message == "" || is.Row <= 0 {
				t.Fatalf("issue without message or row: %+v", is)
			}
		}
		if !d.Valid() {
			continue
		}
		dec := func(name string, x model.Decimal, positive bool) {
			if x == "" {
				return
			}
			if y, err := model.ParseDecimal(string(x)); err != nil || y != x || positive && x.Sign() <= 0 {
				t.Fatalf("%s: %s %q is not canonical and positive", d.Key, name, x)
			}
		}
		ean := func(s string) {
			if s != "" && model.CheckEAN(s) != nil {
				t.Fatalf("%s: valid document with a bad EAN %q", d.Key, s)
			}
		}
		text := func(s string) {
			if !bytes.Contains(src, []byte(s)) && e != "" {
				t.Fatalf("%s: value %q is not in the file", d.Key, s)
			}
		}
		switch {
		case d.Item != nil:
			it := d.Item
			// "" stands for a workbook of Edition A (its text is zipped).
			spec, _ := model.SpecFor(cmp.Or(e, A), model.KindItem)
			if it.SKU == "" || len([]rune(it.SKU)) > spec.Fields[0].MaxLen || it.Name == "" {
				t.Fatalf("item %+v", it)
			}
			text(it.SKU)
			text(it.Name)
			ean(it.EAN)
			ean(it.EANBox)
			for n, x := range map[string]model.Decimal{"length": it.Length, "width": it.Width, "height": it.Height, "grossWeight": it.GrossWeight, "qpb": it.QuantityPerBox, "price": it.BuyPrice} {
				dec(n, x, true)
			}
		case d.Partner != nil:
			if d.Partner.Name == "" {
				t.Fatalf("partner %+v", d.Partner)
			}
			text(d.Partner.Name)
		case d.Packaging != nil:
			ean(d.Packaging.EAN)
		case d.Inbound != nil:
			seen := map[int]bool{}
			for _, l := range d.Inbound.Lines {
				if l.Position <= 0 || seen[l.Position] || l.Quantity <= 0 || l.SKU == "" {
					t.Fatalf("inbound line %+v", l)
				}
				seen[l.Position] = true
			}
		case d.Outbound != nil:
			seen := map[int]bool{}
			for _, l := range d.Outbound.Lines {
				if l.Position <= 0 || seen[l.Position] || l.Quantity <= 0 {
					t.Fatalf("outbound line %+v", l)
				}
				seen[l.Position] = true
			}
		}
	}
}

func FuzzDecodeCSV(f *testing.F) {
	f.Add([]byte(skuHead+"\n"+skuRow+"\n"), false, false)
	f.Add([]byte(strings.ReplaceAll(skuHead+"\n"+skuRow, ",", ";")+"\n"), false, true)
	f.Add([]byte("code,name\nSUP-1,\"Nordic\nAB\"\n"), false, false)
	f.Add(csvFile(',', header(A, model.KindOutbound), exampleRow(A, model.KindOutbound, nil), exampleRow(A, model.KindOutbound, map[string]string{"sku": "", "serviceType": "X", "position": "2"})), false, false)
	f.Add(csvFile('|', header(B, model.KindInbound), exampleRow(B, model.KindInbound, nil)), true, false)
	f.Add(csvFile('\t', header(B, model.KindPackaging), exampleRow(B, model.KindPackaging, nil)), true, true)
	f.Fuzz(func(t *testing.T, data []byte, edB, comma bool) {
		e := A
		if edB {
			e = B
		}
		r := decodeBytes(t, "F.csv", data, Options{Edition: e, DecimalComma: comma})
		if r.err != nil {
			t.Fatalf("a CSV file gives issues, not errors: %v", r.err)
		}
		if r.sum.Docs != len(r.docs) {
			t.Fatalf("summary counts %d docs, fn saw %d", r.sum.Docs, len(r.docs))
		}
		if !hasError(r.sum.FileIssues) { // a file error invalidates every document
			checkDocs(t, e, data, r.docs)
		}
	})
}

func FuzzDecodeXLSX(f *testing.F) {
	f.Add(workbook(f, "Sheet1", false, [][]string{strings.Split(skuHead, ","), strings.Split(skuRow, ",")}, ""))
	f.Add(workbook(f, "Sheet1", true, [][]string{{"orderNumber", "warehouseLocation", "supplierCode", "dueAt", "sku", "quantity"}, {"R1", "#3", "S", "#46000.5", "A", "#2"}}, ""))
	// Damaged workbooks: parts that do not match their zip headers, a cut sheet.
	_, bad := corruptWorkbooks(f)
	for _, data := range bad {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A small unzip cap: excelize allocates what the zip entries declare.
		r := decodeBytes(t, "F.xlsx", data, Options{Edition: A, UnzipSizeLimit: 4 << 20})
		if r.err != nil {
			return // a damaged workbook is one clear error
		}
		if !hasError(r.sum.FileIssues) {
			checkDocs(t, "", data, r.docs)
		}
	})
}
