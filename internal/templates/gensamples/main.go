// Command gensamples writes the generated part of the samples/ folder: the
// good files of both editions (built from one catalogue, so that orders
// reference SKUs of the SKU file and SKUs suppliers of the supplier file,
// with EANs whose check digits are computed), the XLSX samples, and the bad
// files a text editor cannot write (Windows-1252, XLSX cells). The other
// bad files are written by hand next to them.
//
//	go run ./internal/templates/gensamples -out samples
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

func main() {
	out := flag.String("out", "samples", "samples folder to write into")
	flag.Parse()
	if err := write(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gensamples:", err)
		os.Exit(1)
	}
}

// write writes every generated sample into the samples folder out.
func write(out string) error {
	files, err := generate()
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(out, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(p)
	}
	return nil
}

// generate returns every generated sample by its slash-separated path
// relative to the samples folder.
func generate() (map[string][]byte, error) {
	files := make(map[string][]byte)
	for _, s := range slices.Concat(goodA(), goodB(), []sample{
		{"A/bad/SKU_LEGACY_20260309.csv", csvFile(legacySKUs(), csvStyle{comma: ';', crlf: true, windows1252: true})},
		{"A/bad/RECEPTIONS_BAD_20260312.xlsx", receptionsBadXLSX},
		{"B/bad/VARIANTS_BAD_20260312.xlsx", variantsBadXLSX},
	}) {
		b, err := s.build()
		if err != nil {
			return nil, fmt.Errorf("generating %s: %w", s.path, err)
		}
		files[s.path] = b
	}
	return files, nil
}

// sample is a generated file: its path in the samples folder and what
// builds it.
type sample struct {
	path  string
	build func() ([]byte, error)
}

// csvFile builds the table as CSV in a style.
func csvFile(t *table, st csvStyle) func() ([]byte, error) {
	return func() ([]byte, error) { return t.encode(st) }
}

// xlsxFile builds the table as the sheet of an XLSX file, with the number
// and date columns it names.
func xlsxFile(sheet string, t *table, numeric, dates []string) func() ([]byte, error) {
	return func() ([]byte, error) {
		sh, err := fromTable(sheet, t, numeric, dates)
		if err != nil {
			return nil, err
		}
		return sh.build()
	}
}

// legacySKUs is an old ERP's export: Windows-1252, semicolons, decimal
// commas (its route in samples/samples.toml says so). Three rows are
// wrong: a typo in an EAN, a carton of 0 units, a carton of 6 without its
// EAN.
func legacySKUs() *table {
	t := &table{}
	rows := []struct {
		p     product
		ean   string // "" = the right one
		noBox bool
	}{
		{p: product{"ETAG-CHENE-80", "Étagère murale chêne 80 cm", "Étagère murale en chêne massif – fixations incluses", "SUP-HOLZWERK", 20077, 1, "82", "24", "4", "3,6", "3,6", "44,90"}},
		{p: product{"KOMMODE-BUCHE", "Kommode Buche, 3 Schübe", "Kommode aus Buche, Größe 90×45×80 cm", "SUP-HOLZWERK", 20084, 1, "95", "50", "85", "38,5", "38,5", "219,00"}},
		{p: product{"SPIEGEL-OVAL", "Spiegel oval Ø 60", "Wandspiegel oval, Rahmen Eiche geölt", "SUP-HOLZWERK", 20091, 1, "68", "48", "6", "5,2", "5,2", "49,50"}, ean: "typo"},
		{p: product{"BOUGIE-FIGUE", "Bougie parfumée figue", "Bougie parfumée à la figue, cire végétale, 45 h", "SUP-LUMIERE", 70032, 0, "9", "9", "11", "0,48", "0,48", "14,90"}},
		{p: product{"PLAID-MERINOS", "Plaid laine mérinos", "Plaid en laine mérinos, 130×170 cm, « bleu nuit »", "SUP-LINVOSGES", 30086, 6, "40", "32", "12", "0,95", "6,1", "39,00"}, noBox: true},
	}
	for _, r := range rows {
		ean, box := r.p.EAN(), r.p.EANBox()
		if r.ean == "typo" {
			ean = ean[:12] + string('0'+(ean[12]-'0'+3)%10)
		}
		if r.noBox {
			box = ""
		}
		addSKU(t, r.p, ean, box)
	}
	return t
}
