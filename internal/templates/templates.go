// Package templates writes the blank files an operator fills in: for each
// edition and inbound document type, a CSV template (the header row only:
// docs/columns.md gives an example of every column) and an XLSX template (a
// "data" sheet to fill in, an "example" sheet with a filled-in row and a
// "columns" sheet describing every column). No template carries an example
// in the rows filebridge reads, so a forgotten example is never submitted.
// For hosts that write fixed-width files, NAME.fixed.txt is a sample of the
// example row and NAME.fixed.toml the route whose layout reads it. Everything comes from
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

// Spec returns the field table of a document type in an edition.
func Spec(e model.Edition, dt model.DocType) (model.Spec, error) {
	spec, ok := model.SpecFor(e, dt.Kind)
	if !ok {
		return model.Spec{}, fmt.Errorf("edition %s has no %s documents", e, dt.Name)
	}
	return spec, nil
}

// CSV returns the CSV template of a spec: a UTF-8 BOM and the header row,
// comma-separated, ended by CRLF (what Excel writes). The examples are
// documented (ExampleCSV, docs/columns.md), not put in the file.
func CSV(spec model.Spec) ([]byte, error) { return writeCSV(spec, true) }

// ExampleCSV is a CSV of the header and one example row, as the
// documentation shows it (never written as a template).
func ExampleCSV(spec model.Spec) ([]byte, error) { return writeCSV(spec, false) }

// writeCSV writes the header row of a spec: as the template (template),
// or followed by the examples, as the documentation shows them.
func writeCSV(spec model.Spec, template bool) ([]byte, error) {
	header := make([]string, len(spec.Fields))
	example := make([]string, len(spec.Fields))
	for i, fl := range spec.Fields {
		header[i], example[i] = fl.Name, fl.Example
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	rows := [][]string{header, example}
	if template {
		buf.WriteString(utf8BOM)
		w.UseCRLF = true
		rows = rows[:1]
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, fmt.Errorf("writing a CSV of %s: %w", spec.Kind, err)
	}
	return buf.Bytes(), nil
}

// Write writes the CSV and XLSX templates of every document type of edition
// e into dir (created if missing), a sample fixed-width file with the
// route that reads it, and a sample X12 interchange of the set and an
// EDIFACT one of the message that feed it (orders.940.x12,
// orders.ORDERS.edi: the spec's examples), and returns the paths written,
// in the edition's dependency order.
func Write(dir string, e model.Edition) ([]string, error) {
	if len(model.DocTypes(e)) == 0 {
		return nil, fmt.Errorf("writing templates: unknown edition %q", e)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating template folder: %w", err)
	}
	var paths []string
	for _, dt := range model.DocTypes(e) {
		files, err := build(e, dt)
		if err != nil {
			return paths, err
		}
		for _, f := range files {
			p := filepath.Join(dir, dt.Name+f.ext)
			if err := os.WriteFile(p, f.data, 0o644); err != nil {
				return paths, fmt.Errorf("writing template: %w", err)
			}
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// file is one file Write writes for a document type: what its name adds
// to the type's name, and its content.
type file struct {
	ext  string
	data []byte
}

// build returns the files of a document type's templates, in the order
// Write writes them.
func build(e model.Edition, dt model.DocType) ([]file, error) {
	spec, err := Spec(e, dt)
	if err != nil {
		return nil, err
	}
	csvData, err := CSV(spec)
	if err != nil {
		return nil, fmt.Errorf("building %s template: %w", dt.Name, err)
	}
	xlsxData, err := XLSX(spec, dt)
	if err != nil {
		return nil, fmt.Errorf("building %s template: %w", dt.Name, err)
	}
	fixedData, err := FixedSample(spec)
	if err != nil {
		return nil, fmt.Errorf("building %s fixed-width sample: %w", dt.Name, err)
	}
	files := []file{{".csv", csvData}, {".xlsx", xlsxData}, {".fixed.txt", fixedData}, {".fixed.toml", FixedRoute(spec, dt)}}
	for _, s := range []struct {
		ext    string
		sample func(model.Spec, model.DocType) ([]byte, string, bool, error)
	}{{"x12", X12Sample}, {"edi", EDIFACTSample}} {
		data, set, ok, err := s.sample(spec, dt)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, file{"." + set + "." + s.ext, data})
		}
	}
	return files, nil
}
