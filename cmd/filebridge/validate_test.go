package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

const (
	legacySKUs = "../../samples/A/bad/SKU_LEGACY_20260309.csv"
	goodSKUs   = "../../samples/A/good/SKU_20260302.csv"
	badSKUs    = "../../samples/A/bad/SKU_BAD_20260305.csv"
)

func TestValidateUsage(t *testing.T) {
	cfg := writeFile(t, filepath.Join(t.TempDir(), "bad.toml"), "[portals.x]\nedition = \"C\"\n", 0o644)
	tests := []struct {
		name string
		args []string
		want string // in the error, checked through the exit code only
	}{
		{"no file", []string{"--edition", "A"}, ""},
		{"no edition", []string{goodSKUs}, ""},
		{"unknown edition", []string{"--edition", "C", goodSKUs}, ""},
		{"unknown type", []string{"--edition", "A", "--type", "variants_packs", goodSKUs}, ""},
		{"type of the other edition", []string{"--edition", "A", "--type", "packagings", goodSKUs}, ""},
		{"config without inbox", []string{"--config", samplesConfig, goodSKUs}, ""},
		{"inbox without config", []string{"--inbox", "samples-a", goodSKUs}, ""},
		{"unknown inbox", []string{"--config", samplesConfig, "--inbox", "nope", goodSKUs}, ""},
		{"edition contradicts inbox", []string{"--config", samplesConfig, "--inbox", "samples-a", "--edition", "B", goodSKUs}, ""},
		{"invalid config", []string{"--config", cfg, "--inbox", "x", goodSKUs}, ""},
		{"missing config", []string{"--config", "nope.toml", "--inbox", "x", goodSKUs}, ""},
		{"bad delimiter", []string{"--edition", "A", "--delimiter", ":", goodSKUs}, ""},
		{"bad charset", []string{"--edition", "A", "--charset", "ebcdic", goodSKUs}, ""},
		{"bad timezone", []string{"--edition", "A", "--timezone", "Mars/Olympus", goodSKUs}, ""},
		{"bad output format", []string{"--edition", "A", "--format", "xml", goodSKUs}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, code := runValidateCmd(t, tt.args...); code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
		})
	}
}

// TestValidateFlagsOverride reads the Windows-1252 sample with flags instead
// of its route: the same three errors as with the route.
func TestValidateFlagsOverride(t *testing.T) {
	withRoute, code := runValidateCmd(t, "--config", samplesConfig, "--inbox", "samples-a", legacySKUs)
	if code != exitInvalid {
		t.Fatalf("with route: exit code %d", code)
	}
	withFlags, code := runValidateCmd(t, "--edition", "A", "--type", "skus", "--delimiter", ";",
		"--charset", "windows-1252", "--decimal-comma", legacySKUs)
	if code != exitInvalid {
		t.Fatalf("with flags: exit code %d", code)
	}
	if withFlags != withRoute {
		t.Errorf("flags and route disagree:\n--- flags\n%s--- route\n%s", withFlags, withRoute)
	}
	// Without the decimal comma every measure is an error.
	noComma, _ := runValidateCmd(t, "--edition", "A", "--type", "skus", "--charset", "windows-1252", legacySKUs)
	if !strings.Contains(noComma, "5 invalid") {
		t.Errorf("without --decimal-comma, want every row invalid:\n%s", noComma)
	}
	// A route option can be switched off from the command line.
	off, _ := runValidateCmd(t, "--config", samplesConfig, "--inbox", "samples-a", "--decimal-comma=false", legacySKUs)
	if !strings.Contains(off, "5 invalid") {
		t.Errorf("--decimal-comma=false over the route, want every row invalid:\n%s", off)
	}
}

func TestValidateSeveralFiles(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "SKU_MISSING.csv")
	out, code := runValidateCmd(t, "--edition", "A", goodSKUs, badSKUs, missing)
	if code != exitInvalid {
		t.Errorf("exit code %d, want %d", code, exitInvalid)
	}
	for _, want := range []string{
		"SKU_20260302.csv (skus): 21 rows, 21 documents valid, 0 invalid\n",
		"SKU_BAD_20260305.csv (skus): 12 rows, 1 document valid, 11 invalid\n",
		"SKU_MISSING.csv: cannot be read: opening file:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestValidateWarningsOnly(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "SUPPLIERS_X.csv"), "code,name,relationship,vatNumber\nSUP-A,Alpha AB,Manufacturer,SE1\n", 0o644)
	out, code := runValidateCmd(t, "--edition", "A", p)
	if code != exitOK {
		t.Errorf("exit code %d: warnings alone must not fail", code)
	}
	if !strings.Contains(out, "warning: column \"vatNumber\"") || !strings.Contains(out, "1 document valid, 0 invalid; 1 warning") {
		t.Errorf("output:\n%s", out)
	}
}

func TestValidateJSON(t *testing.T) {
	out, code := runValidateCmd(t, "--format", "json", "--config", samplesConfig, "--inbox", "samples-a",
		goodSKUs, "../../samples/A/bad/RECEPTIONS_BAD_20260312.xlsx")
	if code != exitInvalid {
		t.Errorf("exit code %d", code)
	}
	var got struct {
		Valid bool
		Files []struct {
			File, Type, Route string
			Valid             bool
			Rows, Documents   int
			InvalidDocs       int `json:"invalid_documents"`
			Issues            []struct {
				Row                          int
				Sheet, Cell, Column, Message string
				Value                        string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.Valid || len(got.Files) != 2 {
		t.Fatalf("got %+v", got)
	}
	good, bad := got.Files[0], got.Files[1]
	if !good.Valid || good.Type != "skus" || good.Route != "SKU_*" || good.Rows != 21 || len(good.Issues) != 0 {
		t.Errorf("good file: %+v", good)
	}
	if bad.Valid || bad.InvalidDocs != 2 || len(bad.Issues) != 5 { // four errors and the STANDARD warning
		t.Fatalf("bad file: %+v", bad)
	}
	first := bad.Issues[0]
	if first.Sheet != "Wareneingang" || first.Cell != "K3" || first.Column != "item.ean" || first.Value != "7.35012E+12" {
		t.Errorf("first issue: %+v", first)
	}
}

// TestValidateBinaryExitCodes runs the built binary: 0 valid, 1 invalid,
// 2 usage.
func TestValidateBinaryExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "filebridge")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string
		stderrPart string
	}{
		{"valid", []string{"validate", "--edition", "A", goodSKUs}, 0, "SKU_20260302.csv (skus): 21 rows, 21 documents valid, 0 invalid\n", ""},
		{"invalid", []string{"validate", "--config", samplesConfig, "--inbox", "samples-a", legacySKUs}, 1, "", "filebridge: 1 of 1 file invalid"},
		{"usage", []string{"validate", goodSKUs}, 2, "", "--edition A or B"},
		{"unknown flag", []string{"validate", "--nope", goodSKUs}, 2, "", "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if tt.stdout != "" && stdout.String() != tt.stdout {
				t.Errorf("stdout = %q, want %q", stdout.String(), tt.stdout)
			}
			if !strings.Contains(stderr.String(), tt.stderrPart) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tt.stderrPart)
			}
			// stderr is not a terminal here: no progress indicator.
			if strings.Contains(stderr.String(), "\r") {
				t.Errorf("progress written to a non-terminal stderr: %q", stderr.String())
			}
		})
	}
}

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
