package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"filebridge/internal/fixedwidth"
)

// skuLine is one SKU record of the layout of testdata/fixed.toml.
func skuLine(sku, name, ean string, qpb, length, width, height, weight, weightBox, price int, supplier string) string {
	return fmt.Sprintf("%-14s%-30s%-13s%04d%06d%06d%06d%07d%07d%09d%-12s", sku, name, ean, qpb, length, width, height, weight, weightBox, price, supplier)
}

// TestFixedWidthFiles runs fixed-width files through the built binary:
// validate reads them by the route's layout (a cut line is reported with
// its line and columns), process submits a SKU file in Windows-1252 with
// implied decimals and an order file of header and detail records to the
// simulator, each document once, and the stock export is written as
// fixed-width lines that the same layout reads back.
func TestFixedWidthFiles(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A", "--preload", "1")
	dir := t.TempDir()
	inbox, outDir := mkdir(t, dir, "in"), mkdir(t, dir, "out")
	mustWrite(t, filepath.Join(dir, "token"), s.Token+"\n")
	cfg := filepath.Join(dir, "config.toml")
	// testdata/fixed.toml is an Edition A configuration whose inbox reads
	// fixed-width SKU files (Windows-1252, implied decimals) and order files
	// (header records H carry the order onto its detail records D, trailers
	// T are skipped), and whose outbox writes the stock as fixed-width lines.
	mustWrite(t, cfg, fmt.Sprintf(readFile(t, filepath.Join("testdata", "fixed.toml")), filepath.Join(dir, "var", "filebridge.db"), s.Base, inbox, outDir))

	skus := []string{
		skuLine("FW-CHAIR", "Chaise pliante é", "4006381333931", 1, 305, 410, 880, 2500, 2500, 1250, "PRE-SUP-0001"),
		skuLine("FW-TABLE", "Table basse", "4006381333948", 1, 1200, 600, 450, 15250, 15250, 8999, "PRE-SUP-0001"),
	}
	cp1252, err := charmap.Windows1252.NewEncoder().String(strings.Join(skus, "\r\n") + "\r\n")
	if err != nil {
		t.Fatal(err)
	}
	work := mkdir(t, dir, "work")
	skuFile := filepath.Join(work, "SKU_1.txt")
	mustWrite(t, skuFile, cp1252)
	bad := filepath.Join(work, "SKU_BAD.txt")
	mustWrite(t, bad, cp1252[:strings.Index(cp1252, "\r\n")]+"\n"+skus[1][:70]+"\n")

	h := func(no, name, street, zip, city, cc string) string {
		return fmt.Sprintf("H%-17s%-20s%-4s%-30s%-30s%-10s%-20s%-2s", no, "EXT-"+no, "3", name, street, zip, city, cc)
	}
	d := func(pos int, sku string, qty int) string { return fmt.Sprintf("D%04d%-14s%09d", pos, sku, qty) }
	orders := strings.Join([]string{
		h("FW-SO-1", "Martin", "12 rue des Lilas", "69003", "Lyon", "FR"), d(1, "FW-CHAIR", 4), d(2, "FW-TABLE", 1),
		h("FW-SO-2", "Schmidt", "Domplatz 1", "50667", "Köln", "DE"), d(1, "FW-CHAIR", 2),
		"T000005",
	}, "\n") + "\n"
	orderFile := filepath.Join(work, "ORDERS_1.txt")
	mustWrite(t, orderFile, orders)

	for _, f := range []string{skuFile, orderFile} {
		if out, code := runCmd(t, 30*time.Second, "validate", "--config", cfg, "--inbox", "erp", f); code != 0 {
			t.Fatalf("validate %s: exit %d, want 0:\n%s", filepath.Base(f), code, out)
		}
	}
	out, code := runCmd(t, 30*time.Second, "validate", "--config", cfg, "--inbox", "erp", bad)
	if code == 0 || !strings.Contains(out, "columns 68–73 (width): the line ends at column 70") {
		t.Fatalf("validate of a cut line: exit %d, want a failure naming line 2's columns:\n%s", code, out)
	}

	// Processed, the cut file goes to error/ whole, its report naming the
	// line and the columns.
	out, code = runCmd(t, 60*time.Second, "process", "--config", cfg, "--inbox", "erp", bad)
	report := readFile(t, filepath.Join(inbox, "error", "SKU_BAD.report.csv"))
	if code == 0 || !has(files(t, inbox), "error/SKU_BAD.txt") ||
		!strings.Contains(report, "2,FW-TABLE,invalid,,\"line 2: columns 68–73 (width): the line ends at column 70") ||
		!strings.Contains(report, "1,FW-CHAIR,") || strings.Contains(report, "FW-CHAIR,invalid") {
		t.Fatalf("process of a cut line: exit %d, want the file in error/ with line 2's columns in its report:\n%s\n%s", code, out, report)
	}
	if n := s.stats(t).Counts["variants"]; n != 1 {
		t.Fatalf("the portal holds %d variants after a rejected file, want the 1 preloaded", n)
	}

	before := s.stats(t).Requests
	for _, f := range []string{skuFile, orderFile} {
		if out, code := runCmd(t, 60*time.Second, "process", "--config", cfg, "--inbox", "erp", f); code != 0 {
			t.Fatalf("process %s: exit %d, want 0:\n%s", filepath.Base(f), code, out)
		}
	}
	// The count is read before the checks below list the portal.
	n := s.stats(t).Requests - before
	t.Logf("2 SKUs and 2 orders: %d requests", n)
	if n > 12 {
		t.Errorf("2 SKUs and 2 orders took %d requests, want at most 12 (4 creates and their look-ups)", n)
	}
	variants := s.onceEach(t, "variants", "sku")
	if variants["FW-CHAIR"] != 1 || variants["FW-TABLE"] != 1 {
		t.Errorf("the portal's variants %v lack the two fixed-width SKUs", variants)
	}
	var chair map[string]any
	for _, v := range s.listAll(t, "variants") {
		if v["sku"] == "FW-CHAIR" {
			chair = v
		}
	}
	if chair["name"] != "Chaise pliante é" || fmt.Sprint(chair["length"]) != "30.5" || fmt.Sprint(chair["buyPrice"]) != "12.5" {
		t.Errorf("FW-CHAIR as the portal holds it: %v; want name \"Chaise pliante é\", length 30.5, buyPrice 12.5", chair)
	}
	s.ordersOnce(t, 2)

	out, code = runCmd(t, 60*time.Second, "export", "--config", cfg, "--outbox", "out", "stock")
	if code != 0 {
		t.Fatalf("export stock: exit %d:\n%s", code, out)
	}
	m := wroteFile.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("export names no file:\n%s", out)
	}
	body, err := os.ReadFile(filepath.Join(outDir, m[1]))
	if err != nil {
		t.Fatal(err)
	}
	cut := fixedwidth.NewCutter(fixedwidth.Layout{Fields: []fixedwidth.Field{
		{Name: "sku", Start: 1, Length: 14}, {Name: "available", Start: 15, Length: 9}, {Name: "updatedAt", Start: 24, Length: 8},
	}}, false)
	got := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		cells, _, problem := cut.Cut(line)
		if problem != "" || len(line) != 31 || len(cells[2]) != 8 {
			t.Fatalf("export line %q does not read back by its layout: %s", line, problem)
		}
		got[cells[0]] = true
	}
	if len(got) != 3 || !got["FW-CHAIR"] || !got["FW-TABLE"] || !got["PRE-000001"] {
		t.Errorf("the stock export holds %v, want the preloaded SKU and the two fixed-width ones:\n%s", got, body)
	}
}
