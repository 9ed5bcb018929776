package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runTemplatesCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := execute(t, newTemplatesCmd(), true, args...)
	return out.String(), exitCode(err)
}

func TestTemplatesCommand(t *testing.T) {
	tests := []struct {
		name  string
		args  func(dir string) []string
		files []string // relative to dir
	}{
		{"one edition", func(dir string) []string { return []string{"--edition", "b", "--out", dir} },
			[]string{"connections.csv", "variants.xlsx", "packagings.csv", "purchase_orders.xlsx", "sales_orders.csv"}},
		{"both editions", func(dir string) []string { return []string{"--out", dir} },
			[]string{"A/suppliers.csv", "A/skus.xlsx", "A/receptions.csv", "A/orders.xlsx", "B/packagings.xlsx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, code := runTemplatesCmd(t, tt.args(dir)...)
			if code != exitOK {
				t.Fatalf("exit code %d: %s", code, out)
			}
			for _, f := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(f))
				got, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out, p+"\n") {
					t.Errorf("output does not list %s:\n%s", p, out)
				}
				if strings.HasSuffix(f, ".csv") {
					// Same bytes as the committed templates.
					rel := f
					if !strings.Contains(f, "/") {
						rel = "B/" + f
					}
					want, err := os.ReadFile(filepath.Join("../../templates", filepath.FromSlash(rel)))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s differs from templates/%s", f, rel)
					}
				}
			}
		})
	}
}

func TestTemplatesCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--edition", "C", "--out", t.TempDir()},
		{"--edition", "A"},
		{"--out", t.TempDir(), "extra"},
	} {
		if out, code := runTemplatesCmd(t, args...); code != exitUsage {
			t.Errorf("%q: exit code %d, want %d: %s", args, code, exitUsage, out)
		}
	}
}
