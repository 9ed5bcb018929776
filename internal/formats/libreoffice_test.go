package formats

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLibreOfficeSavedCSV reads workbooks as many clerks make them: a CSV
// opened in LibreOffice Calc and saved as XLSX (soffice --convert-to, the
// Debian package libreoffice-calc-nogui, which .ci/run installs). Calc
// takes codes of digits for numbers and a date-time for a date, as Excel
// does: each case reads the value the clerk sees in Calc, or says what was
// lost and how to mend it.
func TestLibreOfficeSavedCSV(t *testing.T) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("soffice is not installed: .ci/run installs the Debian package libreoffice-calc-nogui")
		}
		t.Skip("SKIPPED: the LibreOffice cases need soffice: apt-get install --no-install-recommends libreoffice-calc-nogui")
	}
	cases := []struct {
		name, csv string
		opts      Options
	}{
		// A SKU of digits with a leading zero becomes the number 456 and an
		// EAN of 13 digits with one the number 12345678905.
		{"lo_skus", "sku,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n" +
			"00456,Oak chair,4006381333931,1,45,50,90,6.5,7.2,89.9,SUP-001\n" +
			"CHAIR-2,Birch stool,0012345678905,2,40,40,45,3.25,7,19.95,SUP-001\n", Options{}},
		// A due date-time becomes a date cell, read back to the minute.
		{"lo_receptions", "orderNumber,warehouseLocation,supplierCode,dueAt,sku,quantity\n" +
			"R-100,3,SUP-001,2026-12-01 08:30,SKU-1,5\n" +
			"R-100,3,SUP-001,2026-12-01 08:30,SKU-2,6\n", Options{}},
		// A postcode and a phone of digits become numbers: 01000 is lost.
		{"lo_partners", "code,name,relationship,streetAddress,zipcode,city,countryCode,phone\n" +
			"SUP-7,Bakker BV,Manufacturer,Dorpstraat 1,01000,Brussel,BE,0612345678\n", Options{Edition: B, Type: "connections"}},
	}
	dir := t.TempDir()
	var inputs []string
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".csv")
		if err := os.WriteFile(p, []byte(c.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	// CSV:44,34,76,1 = comma, double quote, UTF-8, from line 1: as Calc's
	// import dialog offers a UTF-8 CSV.
	args := append([]string{"-env:UserInstallation=file://" + filepath.Join(dir, "profile"), "--headless",
		"--infilter=CSV:44,34,76,1", "--convert-to", "xlsx", "--outdir", out}, inputs...)
	cmd := exec.CommandContext(ctx, soffice, args...)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, b)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(out, c.name+".xlsx"))
			if err != nil {
				t.Fatalf("LibreOffice wrote no workbook: %v", err)
			}
			if c.opts.Edition == "" {
				c.opts.Edition = A
			}
			r := decodeBytes(t, c.name+".xlsx", data, c.opts)
			if r.err != nil {
				t.Fatal(r.err)
			}
			got := renderResult(r)
			if !strings.Contains(got, "sheet ") {
				t.Fatalf("no result: %s", got)
			}
			golden(t, filepath.Join("testdata", "xlsx", c.name+".golden"), got)
		})
	}
}
