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
		sim, err := portalsim.New(portalsim.Options{Edition: model.EditionA})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		baseURL = srv.URL + "/api"
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
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
	cfgPath = filepath.Join(dir, "filebridge.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfgPath, inboxDir
}

// runProcessCmd returns the standard output of `filebridge process
// args...`, its error after "error: ", and its exit code.
func runProcessCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := execute(t, newProcessCmd(), false, args...)
	if err != nil {
		out.WriteString("error: " + err.Error())
	}
	return out.String(), exitCode(err)
}

func TestProcessCommand(t *testing.T) {
	write := func(t *testing.T, p, content string) string {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("local path is copied in and processed", func(t *testing.T) {
		cfg, in := processEnv(t, "demo-token", "")
		src := write(t, filepath.Join(t.TempDir(), "SUPPLIERS.csv"), processSuppliers)
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
	t.Run("name in the inbox, rejected rows", func(t *testing.T) {
		cfg, in := processEnv(t, "demo-token", "")
		write(t, filepath.Join(in, "SUPPLIERS.csv"), processSuppliers+"SUP-B,,Manufacturer\n")
		out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", "SUPPLIERS.csv")
		if code != exitInvalid || !strings.Contains(out, "SUPPLIERS.rejected.csv") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if _, err := os.Stat(filepath.Join(in, "error", "SUPPLIERS.csv")); err != nil {
			t.Error(err)
		}
	})
	t.Run("refused token", func(t *testing.T) {
		cfg, in := processEnv(t, "wrong", "")
		write(t, filepath.Join(in, "SUPPLIERS.csv"), processSuppliers)
		out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", "SUPPLIERS.csv")
		if code != exitInvalid || !strings.Contains(out, "the portal refused the token: check token_env/token_file of [portals.main], then run process again") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if _, err := os.Stat(filepath.Join(in, "processing", "SUPPLIERS.csv")); err != nil {
			t.Error(err)
		}
	})
	t.Run("portal unreachable", func(t *testing.T) {
		srv := httptest.NewServer(nil)
		url := srv.URL + "/api"
		srv.Close()
		cfg, in := processEnv(t, "demo-token", url)
		write(t, filepath.Join(in, "SUPPLIERS.csv"), processSuppliers)
		out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", "SUPPLIERS.csv")
		if code != exitUnreachable || !strings.Contains(out, "; nothing listens there: check the host and port of base_url in [portals.main]") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if _, err := os.Stat(filepath.Join(in, "processing", "SUPPLIERS.csv")); err != nil {
			t.Error(err)
		}
	})
	t.Run("held for master data", func(t *testing.T) {
		cfg, in := processEnv(t, "demo-token", "")
		sample, err := os.ReadFile(filepath.Join("..", "..", "samples", "A", "good", "SKU_20260302.csv"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(in, "SKU.csv"), string(sample)) // its suppliers are not on the empty portal
		out, code := runProcessCmd(t, "--config", cfg, "--inbox", "erp", "SKU.csv")
		if code != exitInvalid || !strings.Contains(out, "held") || !strings.Contains(out, `supplierCode "SUP-NORDIC"`) {
			t.Fatalf("exit %d, want %d naming the missing supplier:\n%s", code, exitInvalid, out)
		}
		if _, err := os.Stat(filepath.Join(in, "processing", "SKU.csv")); err != nil {
			t.Error(err)
		}
	})
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
