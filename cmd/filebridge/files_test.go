package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// journalEnv runs three files through the real pipeline (process on the
// simulator): a good one, a bad one and a duplicate of the good one, and
// returns the config path.
func journalEnv(t *testing.T) string {
	t.Helper()
	cfg, _ := processEnv(t, "demo-token", "")
	src := t.TempDir()
	files := []struct{ name, content string }{
		{"SUPPLIERS_1.csv", processSuppliers},
		{"SUPPLIERS_BAD.csv", "code,name,relationship\nSUP-B,Supplier B,Manufacturer\nSUP-C,,Bogus\n"},
		{"SUPPLIERS_2.csv", processSuppliers},
	}
	for _, f := range files {
		runProcessCmd(t, "--config", cfg, "--inbox", "erp", writeFile(t, filepath.Join(src, f.name), f.content, 0o644))
	}
	return cfg
}

func TestFilesCommand(t *testing.T) {
	cfg := journalEnv(t)
	tests := []struct {
		name    string
		args    []string
		code    int
		want    []string // in this order
		notWant []string
	}{
		{"newest first", nil, exitOK,
			[]string{"ID", "SUPPLIERS_2.csv", "duplicate", "SUPPLIERS_BAD.csv", "failed", "1 invalid, 1 skipped", "error/SUPPLIERS_BAD.csv", "SUPPLIERS_1.csv", "done", "1 created", "3 of 3 files"}, nil},
		{"state", []string{"--state", "failed"}, exitOK, []string{"SUPPLIERS_BAD.csv", "1 of 1 files"}, []string{"SUPPLIERS_1.csv"}},
		{"states list", []string{"--state", "done,duplicate"}, exitOK, []string{"SUPPLIERS_2.csv", "SUPPLIERS_1.csv"}, []string{"BAD"}},
		{"paging", []string{"--limit", "1", "--page", "2"}, exitOK, []string{"SUPPLIERS_BAD.csv", "2-2 of 3 files; next page: --page 3"}, []string{"SUPPLIERS_1.csv"}},
		{"name", []string{"--name", "bad"}, exitOK, []string{"SUPPLIERS_BAD.csv"}, []string{"SUPPLIERS_1.csv"}},
		{"since", []string{"--since", "1h"}, exitOK, []string{"3 of 3 files"}, nil},
		{"since future", []string{"--since", time.Now().Add(time.Hour).Format(time.RFC3339)}, exitOK, []string{"no file matches"}, nil},
		{"bad state", []string{"--state", "lost"}, exitUsage, []string{"--state \"lost\": use claimed, submitting, held, done, failed or duplicate"}, nil},
		{"held with other states", []string{"--state", "held,done"}, exitUsage, []string{"give --state held without other states"}, nil},
		{"nothing held", []string{"--state", "held"}, exitOK, []string{"WAITING FOR", "no file is held for master data"}, nil},
		{"bad inbox", []string{"--inbox", "nope"}, exitUsage, []string{`--inbox "nope": no such inbox`, "use one of erp"}, nil},
		{"bad since", []string{"--since", "yesterday"}, exitUsage, []string{`--since "yesterday"`}, nil},
		{"bad format", []string{"--format", "xml"}, exitUsage, []string{"use table, json or csv"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runOn(t, cfg, newFilesCmd(), tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d:\n%s", code, tt.code, out)
			}
			if w, missing := missingInOrder(out, tt.want); missing {
				t.Errorf("output lacks %q (in this order):\n%s", w, out)
			}
			for _, nw := range tt.notWant {
				if strings.Contains(out, nw) {
					t.Errorf("output has %q:\n%s", nw, out)
				}
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		out, code := runOn(t, cfg, newFilesCmd(), "--format", "json", "--state", "failed")
		var got struct {
			Total int          `json:"total"`
			Files []fileRecord `json:"files"`
		}
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
			t.Fatalf("exit %d, %v:\n%s", code, err, out)
		}
		if got.Total != 1 || len(got.Files) != 1 || got.Files[0].Name != "SUPPLIERS_BAD.csv" ||
			got.Files[0].Documents["invalid"] != 1 || got.Files[0].Finished.IsZero() || got.Files[0].Type != "suppliers" {
			t.Errorf("json = %+v", got)
		}
	})
	t.Run("csv", func(t *testing.T) {
		out, code := runOn(t, cfg, newFilesCmd(), "--format", "csv")
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if code != 0 || err != nil || len(recs) != 4 || recs[0][1] != "NAME" || recs[3][1] != "SUPPLIERS_1.csv" {
			t.Errorf("exit %d, %v, csv %q", code, err, recs)
		}
	})
	t.Run("no journal yet", func(t *testing.T) {
		fresh, _ := processEnv(t, "demo-token", "http://127.0.0.1:1/api")
		out, err := execute(t, newFilesCmd(), false, "--config", fresh)
		if exitCode(err) != exitUnreachable || err == nil || !strings.Contains(err.Error(), "has not run with this config yet") {
			t.Errorf("exit %d, %v, %s", exitCode(err), err, out)
		}
	})
}

func TestShowCommand(t *testing.T) {
	cfg := journalEnv(t)
	dir := filepath.Dir(cfg)
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"by name", []string{"SUPPLIERS_BAD.csv"}, exitOK, []string{
			"#2 SUPPLIERS_BAD.csv  (inbox erp, suppliers)", "state       failed:",
			"original    " + filepath.Join(dir, "in", "error", "SUPPLIERS_BAD.csv"),
			"report      " + filepath.Join(dir, "in", "error", "SUPPLIERS_BAD.report.csv"),
			"rejected    " + filepath.Join(dir, "in", "error", "SUPPLIERS_BAD.rejected.csv"),
			"ROWS", "KEY", "RESULT", "SUP-B", "skipped", "SUP-C", "invalid", "is not an allowed relationship"}},
		{"by id", []string{"1"}, exitOK, []string{"#1 SUPPLIERS_1.csv", "state       done", "SUP-A", "created"}},
		{"by #id", []string{"#3"}, exitOK, []string{"#3 SUPPLIERS_2.csv", "duplicate", "no documents"}},
		{"unknown", []string{"NOPE.csv"}, exitUsage, []string{`file "NOPE.csv": not found in the journal`}},
		{"a failed file's problems", []string{"SUPPLIERS_BAD.csv"}, exitOK, []string{"documents not in the portal 1-2 of 2; every document: --docs all"}},
		{"a page of all documents", []string{"--docs", "all", "--limit", "1", "--page", "2", "SUPPLIERS_BAD.csv"}, exitOK,
			[]string{"SUP-C", "documents 2-2 of 2\n"}},
		{"a first page", []string{"--docs", "all", "--limit", "1", "SUPPLIERS_BAD.csv"}, exitOK, []string{"SUP-B", "documents 1-1 of 2; next page: --page 2"}},
		{"past the last page", []string{"--page", "5", "1"}, exitOK, []string{"no documents on page 5 (1 in all)"}},
		{"bad --docs", []string{"--docs", "some", "1"}, exitUsage, []string{`--docs "some": use "problems" or "all"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runOn(t, cfg, newShowCmd(), tt.args...)
			checkOutput(t, out, code, tt.code, tt.want...)
		})
	}
	t.Run("the report lies where show says", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(dir, "in", "error", "SUPPLIERS_BAD.rejected.csv")); err != nil {
			t.Error(err)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, _ := runOn(t, cfg, newShowCmd(), "--format", "json", "SUPPLIERS_BAD.csv")
		var got struct {
			File      fileRecord       `json:"file"`
			Files     fileLocations    `json:"files"`
			Documents []documentRecord `json:"documents"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if got.File.State != "failed" || len(got.Documents) != 2 || got.Documents[1].Result != "invalid" || got.Documents[1].Message == "" || got.Files.Rejected == "" {
			t.Errorf("json = %+v", got)
		}
	})
}

// TestHeldFiles: an orders file whose SKUs are not on the simulator is held
// by process (hold_missing default 30m); files lists it under --state held
// with the codes and when it fails, marks it in the full list, and show
// names what it waits for.
func TestHeldFiles(t *testing.T) {
	cfg, _ := processEnv(t, "demo-token", "")
	b, err := os.ReadFile(filepath.Join("..", "..", "samples", "A", "good", "ORDERS_20260316.csv"))
	if err != nil {
		t.Fatal(err)
	}
	src := writeFile(t, filepath.Join(t.TempDir(), "ORDERS_20260316.csv"), string(b), 0o644)
	if out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", src); code != exitInvalid || !strings.Contains(out, "held for master data") {
		t.Fatalf("process: exit %d, want %d (held):\n%s", code, exitInvalid, out)
	}
	tests := []struct {
		name string
		cmd  func() *cobra.Command
		args []string
		want []string // in this order
	}{
		{"files --state held", newFilesCmd, []string{"--state", "held"}, []string{"HELD SINCE", "FAILS AT", "WAITING FOR",
			"ORDERS_20260316.csv", `SKU "CHR-OAK-DIN"`, "and 16 more (see show)", "1 of 1 held files"}},
		{"files marks the held file", newFilesCmd, nil, []string{"ORDERS_20260316.csv", "claimed (held)", "1 of 1 files"}},
		{"show", newShowCmd, []string{"ORDERS_20260316.csv"}, []string{"held        for master data since", "; fails at", "if still missing",
			"waiting for SKU", `SKU "CHR-OAK-DIN"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRunOn(t, cfg, tt.cmd(), tt.args...)
			if w, missing := missingInOrder(out, tt.want); missing {
				t.Fatalf("output lacks %q (in this order):\n%s", w, out)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		out := mustRunOn(t, cfg, newShowCmd(), "--format", "json", "ORDERS_20260316.csv")
		var got struct {
			File fileRecord `json:"file"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		h := got.File.Held
		if h == nil || !h.Until.Equal(h.Since.Add(30*time.Minute)) || !slices.Contains(h.WaitingFor, `SKU "CHR-OAK-DIN"`) {
			t.Errorf("held = %+v", h)
		}
	})
}

// TestShowListsWhatExists: show lists a rejected-rows file only when one
// was written: a file that failed on its header has a report but no
// rejected rows, while a file whose rows were rejected has both.
func TestShowListsWhatExists(t *testing.T) {
	cfg, inDir := processEnv(t, "demo-token", "")
	src := t.TempDir()
	for name, content := range map[string]string{
		"SUPPLIERS_HEADER.csv": "kode,nom\nSUP-X,Supplier X\n",
		"SUPPLIERS_ROWS.csv":   "code,name,relationship\nSUP-C,,Bogus\n",
	} {
		runProcessCmd(t, "--config", cfg, "--inbox", "erp", writeFile(t, filepath.Join(src, name), content, 0o644))
	}
	errDir := filepath.Join(inDir, "error")
	tests := []struct {
		file     string
		rejected bool
	}{
		{"SUPPLIERS_HEADER.csv", false},
		{"SUPPLIERS_ROWS.csv", true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			stem := strings.TrimSuffix(tt.file, ".csv")
			out, code := runOn(t, cfg, newShowCmd(), tt.file)
			if code != exitOK || !strings.Contains(out, "state       failed:") || !strings.Contains(out, "report      "+filepath.Join(errDir, stem+".report.csv")) {
				t.Fatalf("exit %d, want the failed file with its report:\n%s", code, out)
			}
			_, err := os.Stat(filepath.Join(errDir, stem+".rejected.csv"))
			if exists := err == nil; exists != tt.rejected {
				t.Fatalf("rejected rows file exists: %v, want %v", exists, tt.rejected)
			}
			if listed := strings.Contains(out, "rejected    "); listed != tt.rejected {
				t.Errorf("show lists a rejected-rows file: %v, want %v:\n%s", listed, tt.rejected, out)
			}
			js, _ := runOn(t, cfg, newShowCmd(), "--format", "json", tt.file)
			var got struct {
				Files fileLocations `json:"files"`
			}
			if err := json.Unmarshal([]byte(js), &got); err != nil || (got.Files.Rejected != "") != tt.rejected {
				t.Errorf("json files = %+v (%v), want a rejected path: %v", got.Files, err, tt.rejected)
			}
		})
	}
}
