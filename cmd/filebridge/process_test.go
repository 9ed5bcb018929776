package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessCommand: a file is processed from a local path or by its
// name in the inbox; what becomes of it (moved, left in processing/) and
// the exit code follow the data, the token and the portal's reach.
func TestProcessCommand(t *testing.T) {
	t.Run("local path is copied in and processed", func(t *testing.T) {
		cfg, in := processEnv(t, "demo-token", "")
		src := writeFile(t, filepath.Join(t.TempDir(), "SUPPLIERS.csv"), processSuppliers, 0o644)
		out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", src)
		if code != exitOK || !strings.Contains(out, "moved to") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if _, err := os.Stat(src); err != nil {
			t.Error("the original was touched")
		}
		m, _ := filepath.Glob(filepath.Join(in, "processed", "*", "*", "*", "SUPPLIERS.csv"))
		if len(m) != 1 {
			t.Errorf("not in processed/: %s", out)
		}
	})
	sku, err := os.ReadFile(filepath.Join("..", "..", "samples", "A", "good", "SKU_20260302.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, token, baseURL string
		file, content        string
		code                 int
		want                 []string
		stays                string // where the file is left, in the inbox
	}{
		{"name in the inbox, rejected rows", "demo-token", "", "SUPPLIERS.csv", processSuppliers + "SUP-B,,Manufacturer\n",
			exitInvalid, []string{"SUPPLIERS.rejected.csv"}, "error/SUPPLIERS.csv"},
		{"refused token", "wrong", "", "SUPPLIERS.csv", processSuppliers,
			exitInvalid, []string{"the portal refused the token: check token_env/token_file of [portals.main], then run process again"}, "processing/SUPPLIERS.csv"},
		{"portal unreachable", "demo-token", deadURL(t), "SUPPLIERS.csv", processSuppliers,
			exitUnreachable, []string{"; nothing listens there: check the host and port of base_url in [portals.main]"}, "processing/SUPPLIERS.csv"},
		// Its suppliers are not on the empty portal.
		{"held for master data", "demo-token", "", "SKU.csv", string(sku),
			exitInvalid, []string{"held", `supplierCode "SUP-NORDIC"`}, "processing/SKU.csv"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, in := processEnv(t, tt.token, tt.baseURL)
			writeFile(t, filepath.Join(in, tt.file), tt.content, 0o644)
			out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", tt.file)
			if code != tt.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tt.code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Fatalf("output lacks %q:\n%s", w, out)
				}
			}
			if _, err := os.Stat(filepath.Join(in, filepath.FromSlash(tt.stays))); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("usage errors", func(t *testing.T) {
		cfg, _ := processEnv(t, "demo-token", "")
		for _, args := range [][]string{
			{"--config", cfg, "--inbox", "nope", "X.csv"},
			{"--config", cfg, "--inbox", "erp", "MISSING.csv"},
			{"--config", cfg, "--inbox", "erp", "/no/such/dir/X.csv"},
			{"--config", "missing.toml", "--inbox", "erp", "X.csv"},
		} {
			if out, code := runProcessCmd(t, args...); code != exitUsage {
				t.Errorf("%v: exit %d, want %d:\n%s", args, code, exitUsage, out)
			}
		}
	})
}
