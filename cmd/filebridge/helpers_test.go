package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"filebridge/internal/portalsim"
	"filebridge/internal/testkit"
)

// execute runs cmd with args in process and returns its standard output
// (with its standard error when withStderr; else that is dropped) and its
// error; exitCode(err) is the status main would exit with.
func execute(t *testing.T, cmd *cobra.Command, withStderr bool, args ...string) (*bytes.Buffer, error) {
	t.Helper()
	resetTree(cmd.Root())
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	if withStderr {
		cmd.SetErr(&out)
	}
	cmd.SetArgs(args)
	return &out, cmd.ExecuteContext(t.Context())
}

// resetTree sets every flag of root's commands back to its default and
// drops the context an earlier run left on them: the command tree is
// global, so a flag an earlier run set (--version, --force) would still be
// set in the next, and cobra hands a command the caller's context only
// when it has none, so a command would keep the first test's context, done
// once that test ended.
func resetTree(root *cobra.Command) {
	walk(root, func(c *cobra.Command) {
		c.SetContext(nil)
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				_ = sv.Replace(nil)
			} else {
				_ = f.Value.Set(f.DefValue)
			}
			f.Changed = false
		})
	})
}

// runCmd returns the standard output of cmd run with args, its error
// after "error: ", and its exit code.
func runCmd(t *testing.T, cmd *cobra.Command, args ...string) (string, int) {
	t.Helper()
	out, err := execute(t, cmd, false, args...)
	if err != nil {
		out.WriteString("error: " + err.Error())
	}
	return out.String(), exitCode(err)
}

// runOn is runCmd with --config cfg before args.
func runOn(t *testing.T, cfg string, cmd *cobra.Command, args ...string) (string, int) {
	t.Helper()
	return runCmd(t, cmd, append([]string{"--config", cfg}, args...)...)
}

// mustRunOn is runOn for a command that must succeed: it returns the
// standard output, failing the test on an error.
func mustRunOn(t *testing.T, cfg string, cmd *cobra.Command, args ...string) string {
	t.Helper()
	out, err := execute(t, cmd, false, append([]string{"--config", cfg}, args...)...)
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", cmd.Name(), args, err, out)
	}
	return out.String()
}

// writeFile writes data to path with perm and returns path.
func writeFile(t *testing.T, path, data string, perm os.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkOutput fails t unless a command exited with wantCode and its
// output holds each of want.
func checkOutput(t *testing.T, out string, code, wantCode int, want ...string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit %d, want %d:\n%s", code, wantCode, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

// missingInOrder looks for each of want in out after the one before and
// returns the first it lacks, with true; false when out has them all in
// that order.
func missingInOrder(out string, want []string) (string, bool) {
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			return w, true
		}
		rest = rest[i+len(w):]
	}
	return "", false
}

// deadURL is a base_url on a port nothing listens on.
func deadURL(t *testing.T) string { return "http://" + testkit.FreeAddr(t) + "/api" }

const processSuppliers = "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n"

// processEnv writes a config with one local inbox on a simulator and
// returns the config path and the inbox folder.
func processEnv(t *testing.T, token, baseURL string) (cfgPath, inboxDir string) {
	t.Helper()
	dir := t.TempDir()
	if baseURL == "" {
		_, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA})
		baseURL = srv.URL + "/api"
	}
	writeFile(t, filepath.Join(dir, "token"), token+"\n", 0o600)
	inboxDir = filepath.Join(dir, "in")
	if err := os.MkdirAll(inboxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := testkit.PortalConfig("state/fb.db", "A", baseURL, `token_file = "token"`, "max_retries = 0", `timeout = "2s"`) + `
[server]
listen = ""
[[inboxes]]
name = "erp"
portal = "main"
url = "in"
`
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
	sim, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA})
	cfg, _ = processEnv(t, "demo-token", srv.URL+"/api")
	base, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg, string(base)+extra, 0o644)
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

// runProcessCmd returns the standard output of `filebridge process
// args...`, its error after "error: ", and its exit code.
func runProcessCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return runCmd(t, newProcessCmd(), args...)
}
