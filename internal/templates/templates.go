// Package templates writes the blank files an operator fills in: for each
// edition and inbound document type, a CSV template (header row and one
// example row) and an XLSX template (a "data" sheet to fill in and a
// "columns" sheet describing every column). Everything comes from
// model.SpecFor, so a template always carries exactly the columns filebridge
// reads. The output is deterministic: the same edition gives the same bytes.
//
// The templates/ folder at the repository root holds the generated files;
// refresh it with `go generate ./internal/templates` (or
// `go test ./internal/templates -update`).
package templates

//go:generate go run ./gen -out ../../templates

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"

	"filebridge/internal/model"
)

// utf8BOM starts every CSV template: without it, Excel reads a UTF-8 CSV as
// the local ANSI code page and mangles accented names.
const utf8BOM = "\uFEFF"

// Name returns the base file name (without extension) of a document type's
// templates: its canonical name, e.g. "purchase_orders".
func Name(dt model.DocType) string { return dt.Name }

// Spec returns the field table of a document type in an edition.
func Spec(e model.Edition, dt model.DocType) (model.Spec, error) {
	spec, ok := model.SpecFor(e, dt.Kind)
	if !ok {
		return model.Spec{}, fmt.Errorf("edition %s has no %s documents", e, dt.Name)
	}
	return spec, nil
}

// CSV returns the CSV template of a spec: a UTF-8 BOM, the header row and
// one example row, comma-separated, lines ended by CRLF (what Excel writes).
func CSV(spec model.Spec) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(utf8BOM)
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	header := make([]string, len(spec.Fields))
	example := make([]string, len(spec.Fields))
	for i, fl := range spec.Fields {
		header[i] = fl.Name
		example[i] = fl.Example
	}
	if err := w.Write(header); err != nil {
		return nil, fmt.Errorf("writing CSV header: %w", err)
	}
	if err := w.Write(example); err != nil {
		return nil, fmt.Errorf("writing CSV example row: %w", err)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("writing CSV template: %w", err)
	}
	return buf.Bytes(), nil
}

// Write writes the CSV and XLSX templates of every document type of edition
// e into dir (created if missing) and returns the paths written, in the
// edition's dependency order.
func Write(dir string, e model.Edition) ([]string, error) {
	if len(model.DocTypes(e)) == 0 {
		return nil, fmt.Errorf("writing templates: unknown edition %q", e)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating template folder: %w", err)
	}
	var paths []string
	for _, dt := range model.DocTypes(e) {
		spec, err := Spec(e, dt)
		if err != nil {
			return paths, err
		}
		csvData, err := CSV(spec)
		if err != nil {
			return paths, fmt.Errorf("building %s template: %w", dt.Name, err)
		}
		xlsxData, err := XLSX(spec, dt)
		if err != nil {
			return paths, fmt.Errorf("building %s template: %w", dt.Name, err)
		}
		for _, out := range []struct {
			ext  string
			data []byte
		}{{".csv", csvData}, {".xlsx", xlsxData}} {
			p := filepath.Join(dir, Name(dt)+out.ext)
			if err := os.WriteFile(p, out.data, 0o644); err != nil {
				return paths, fmt.Errorf("writing template: %w", err)
			}
			paths = append(paths, p)
		}
	}
	return paths, nil
}
