package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/templates"
)

var update = flag.Bool("update", false, "rewrite the samples' NAME.errors.golden files")

const (
	samplesDir    = "../../samples"
	samplesConfig = "../../samples/samples.toml"
)

// sampleInbox is the inbox of samples/samples.toml for an edition.
func sampleInbox(e model.Edition) string { return "samples-" + strings.ToLower(string(e)) }

// runValidateCmd runs `filebridge validate args...` in process and returns
// its standard output and the exit code main would use.
func runValidateCmd(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := execute(t, newValidateCmd(), false, args...)
	return out.String(), exitCode(err)
}

func sampleFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.csv", "*.xlsx"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatalf("no samples in %s", dir)
	}
	return files
}

// TestGoodSamples validates every good sample, through the routes of
// samples.toml and through header detection: no error, and no warning but,
// without the routes, one per value outside the documents' enums (the
// samples use STANDARD as the documents' own samples do; samples.toml maps
// it).
func TestGoodSamples(t *testing.T) {
	for _, e := range model.Editions {
		for _, path := range sampleFiles(t, filepath.Join(samplesDir, string(e), "good")) {
			name := filepath.Base(path)
			for _, how := range []struct {
				label string
				args  []string
			}{
				{"route", []string{"--config", samplesConfig, "--inbox", sampleInbox(e)}},
				{"header", []string{"--edition", string(e)}},
			} {
				t.Run(string(e)+"/"+name+"/"+how.label, func(t *testing.T) {
					out, code := runValidateCmd(t, append(how.args, path)...)
					if code != exitOK {
						t.Fatalf("exit code %d, output:\n%s", code, out)
					}
					lines := strings.Split(strings.TrimSpace(out), "\n")
					verdict := lines[len(lines)-1]
					// The samples' receptions carry STANDARD, outside the
					// documents' enum: a warning, with a route or without
					// (samples.toml keeps the routes demo and the tests use,
					// without a value map, so that a new user sees it).
					if len(lines) > 1 {
						for _, l := range lines[2 : len(lines)-1] {
							if !strings.Contains(l, "warning: ") || !strings.Contains(l, "values the API documents list") {
								t.Errorf("want warnings about undocumented values only, got %q", l)
							}
						}
						verdict, _, _ = strings.Cut(verdict, ";")
					}
					if !strings.HasSuffix(verdict, " 0 invalid") {
						t.Errorf("want a verdict without invalid documents, got:\n%s", out)
					}
				})
			}
		}
	}
}

// TestBadSamples validates every bad sample with the routes of samples.toml
// and compares the table with NAME.errors.golden (-update rewrites them).
func TestBadSamples(t *testing.T) {
	for _, e := range model.Editions {
		dir := filepath.Join(samplesDir, string(e), "bad")
		files := sampleFiles(t, dir)
		goldens, _ := filepath.Glob(filepath.Join(dir, "*.errors.golden"))
		if !*update && len(goldens) != len(files) {
			t.Errorf("%s: %d bad samples but %d golden files", dir, len(files), len(goldens))
		}
		for _, path := range files {
			name := filepath.Base(path)
			t.Run(string(e)+"/"+name, func(t *testing.T) {
				out, code := runValidateCmd(t, "--config", samplesConfig, "--inbox", sampleInbox(e), path)
				if code != exitInvalid {
					t.Errorf("exit code %d, want %d (a bad sample must be invalid)", code, exitInvalid)
				}
				golden := path + ".errors.golden"
				if *update {
					writeFile(t, golden, out, 0o644)
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./cmd/filebridge -run TestBadSamples -update)", err)
				}
				if out != string(want) {
					t.Errorf("output differs from %s (-update to accept):\n--- got\n%s--- want\n%s", golden, out, want)
				}
			})
		}
	}
}

// TestTemplatesValidate checks that every template's header tells its type,
// that no template has a data row (a forgotten example would be
// submitted), and that the examples (the XLSX example sheet, the example
// CSV the documentation shows) are a valid document.
func TestTemplatesValidate(t *testing.T) {
	for _, e := range model.Editions {
		for _, dt := range model.DocTypes(e) {
			for _, ext := range []string{".csv", ".xlsx"} {
				path := filepath.Join("../../templates", string(e), dt.Name+ext)
				t.Run(string(e)+"/"+dt.Name+ext, func(t *testing.T) {
					// The header alone tells the type; there is no data row.
					out, _ := runValidateCmd(t, "--edition", string(e), path)
					if !strings.Contains(out, "("+dt.Name+"): 0 rows") && !strings.Contains(out, "("+dt.Name+`, sheet "data"): 0 rows`) {
						t.Errorf("the template's data: output:\n%s", out)
					}
					example := []string{"--edition", string(e), "--type", dt.Name}
					if ext == ".xlsx" {
						example = append(example, "--sheet", templates.ExampleSheet, path)
					} else {
						spec, err := templates.Spec(e, dt)
						if err != nil {
							t.Fatal(err)
						}
						data, err := templates.ExampleCSV(spec)
						if err != nil {
							t.Fatal(err)
						}
						example = append(example, writeFile(t, filepath.Join(t.TempDir(), dt.Name+".csv"), string(data), 0o644))
					}
					out, code := runValidateCmd(t, example...)
					if code != exitOK || !strings.Contains(out, ": 1 row, 1 document valid, 0 invalid") {
						t.Errorf("the example: exit code %d, output:\n%s", code, out)
					}
				})
			}
		}
	}
}
