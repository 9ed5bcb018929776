package main

import (
	"bytes"
	"context"
	"flag"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"filebridge/internal/formats"
	"filebridge/internal/model"
	"filebridge/internal/templates/gentest"
)

var update = flag.Bool("update", false, "rewrite the generated files of samples/")

const samplesDir = "../../../samples"

// TestSamplesUpToDate regenerates the samples and compares them with the
// committed ones (XLSX part by part, decompressed).
func TestSamplesUpToDate(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(samplesDir, filepath.FromSlash(name))
			gentest.UpToDate(t, p, string(files[name]), *update, "go run ./internal/templates/gensamples")
		})
	}
}

// TestCatalogue checks the catalogue itself: valid EANs, SKU codes within
// each edition's limit, unique codes, suppliers that exist.
func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	all := append(append(append([]product{}, products...), productsXLSX...), productsB...)
	for _, p := range all {
		if seen[p.SKU] {
			t.Errorf("SKU %s twice", p.SKU)
		}
		seen[p.SKU] = true
		if err := model.CheckEAN(p.EAN()); err != nil {
			t.Errorf("%s: EAN %s: %v", p.SKU, p.EAN(), err)
		}
		if box := p.EANBox(); box != "" {
			if err := model.CheckEAN(box); err != nil {
				t.Errorf("%s: EAN box %s: %v", p.SKU, box, err)
			}
		}
		supplierByCode(p.Supplier) // panics when unknown
	}
	for _, p := range append(append([]product{}, products...), productsXLSX...) {
		if len(p.SKU) > 14 {
			t.Errorf("SKU %s is longer than Edition A allows", p.SKU)
		}
	}
	for _, o := range ordersOfA {
		for _, l := range o.Lines {
			if l.SKU != "" {
				productBySKU(l.SKU)
			}
		}
	}
	if got := withCheckDigit("400638133393"); got != "4006381333931" {
		t.Errorf("withCheckDigit = %s", got)
	}
}

// TestSamplesDecode reads back the samples whose meaning depends on the
// reader: Excel dates, Windows-1252 text with decimal commas.
func TestSamplesDecode(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	decode := func(name string, opts formats.Options) []formats.Doc {
		t.Helper()
		b := files[name]
		var docs []formats.Doc
		sum, err := formats.Decode(context.Background(), bytes.NewReader(b), int64(len(b)), filepath.Base(name), opts,
			func(d formats.Doc) error { docs = append(docs, d); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.FileIssues) > 0 {
			t.Fatalf("%s: %v", name, sum.FileIssues)
		}
		return docs
	}
	t.Run("excel dates", func(t *testing.T) {
		docs := decode("B/good/PURCHASE_ORDERS_20260310.xlsx", formats.Options{Edition: model.EditionB, Type: "purchase_orders"})
		if len(docs) != 2 {
			t.Fatalf("%d documents", len(docs))
		}
		po1, po2 := docs[0].Inbound, docs[1].Inbound
		if want := time.Date(2026, 3, 25, 8, 0, 0, 0, time.UTC); !po1.DueAt.Equal(want) {
			t.Errorf("dueAt = %v, want %v", po1.DueAt, want)
		}
		if want := time.Date(2028, 3, 31, 0, 0, 0, 0, time.UTC); !po2.Lines[0].ExpiryDate.Equal(want) {
			t.Errorf("expiryDate = %v, want %v", po2.Lines[0].ExpiryDate, want)
		}
		if po2.WarehouseCode != whHamburgCde || po2.Lines[0].LotNumber != "L2603-131" || po2.Lines[0].Quantity != 360 {
			t.Errorf("second purchase order: %+v", po2)
		}
	})
	t.Run("windows-1252 and decimal commas", func(t *testing.T) {
		docs := decode("A/bad/SKU_LEGACY_20260309.csv", formats.Options{Edition: model.EditionA, Type: "skus",
			Delimiter: ';', Charset: "windows-1252", DecimalComma: true})
		first := docs[0].Item
		if first.Name != "Étagère murale chêne 80 cm" || first.GrossWeight != "3.6" || first.BuyPrice != "44.9" {
			t.Errorf("first item: %+v", first)
		}
		if d := docs[4].Item.Description1; d != "Plaid en laine mérinos, 130×170 cm, « bleu nuit »" {
			t.Errorf("description = %q", d)
		}
	})
	t.Run("text EANs in XLSX", func(t *testing.T) {
		docs := decode("A/good/SKU_20260310.xlsx", formats.Options{Edition: model.EditionA})
		for i, p := range productsXLSX {
			if it := docs[i].Item; it.EAN != p.EAN() || it.EANBox != p.EANBox() || !docs[i].Valid() {
				t.Errorf("%s: %+v %v", p.SKU, it, docs[i].Issues)
			}
		}
	})
}
