package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/portalsim"
)

const processSuppliers = "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n"

// processEnv writes a config with one local inbox on a simulator and
// returns the config path and the inbox folder.
func processEnv(t *testing.T, token, baseURL string) (cfgPath, inboxDir string) {
	t.Helper()
	dir := t.TempDir()
	if baseURL == "" {
		_, srv := startSim(t, portalsim.Options{Edition: model.EditionA})
		baseURL = srv.URL + "/api"
	}
	writeFile(t, filepath.Join(dir, "token"), token+"\n", 0o600)
	inboxDir = filepath.Join(dir, "in")
	if err := os.MkdirAll(inboxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`
[journal]
path = "state/fb.db"
[server]
listen = ""
[portals.main]
edition = "A"
base_url = %q
company = 42
token_file = "token"
max_retries = 0
timeout = "2s"
[[inboxes]]
name = "erp"
portal = "main"
url = "in"
`, baseURL)
	return writeFile(t, filepath.Join(dir, "filebridge.toml"), cfg, 0o644), inboxDir
}

const (
	skuHeader = "sku,name,description1,ean,eanBox,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n"
	recHeader = "orderNumber,warehouseLocation,supplierCode,orderType,dueAt,position,sku,quantity\n"
)

// masterDataEnv serves an Edition A simulator, writes a config for it
// (processEnv's, with extra appended) and processes SUPPLIERS_1.csv
// (SUP-A) and SKU_1.csv (SKU-1) through inbox erp. put writes a file
// into a folder of the test's and returns its path.
func masterDataEnv(t *testing.T, extra string) (sim *portalsim.Sim, cfg string, put func(name, content string) string) {
	t.Helper()
	sim, srv := startSim(t, portalsim.Options{Edition: model.EditionA})
	cfg, _ = processEnv(t, "demo-token", srv.URL+"/api")
	appendFile(t, cfg, extra)
	src := t.TempDir()
	put = func(name, content string) string { return writeFile(t, filepath.Join(src, name), content, 0o644) }
	for _, f := range []struct{ name, content string }{
		{"SUPPLIERS_1.csv", processSuppliers},
		{"SKU_1.csv", skuHeader + "SKU-1,Chair,Oak chair,7350123100419,17350123100416,2,47,53,89,6.8,14.4,79.00,SUP-A\n"},
	} {
		if out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", put(f.name, f.content)); code != exitOK {
			t.Fatalf("%s: exit %d\n%s", f.name, code, out)
		}
	}
	return sim, cfg, put
}

// appendFile appends text to the file at path.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// runProcessCmd returns the standard output of `filebridge process
// args...`, its error after "error: ", and its exit code.
func runProcessCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return runCmd(t, newProcessCmd(), args...)
}

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
	// A port nothing listens on.
	srv := httptest.NewServer(nil)
	deadURL := srv.URL + "/api"
	srv.Close()
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
		{"portal unreachable", "demo-token", deadURL, "SUPPLIERS.csv", processSuppliers,
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
