package export

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"filebridge/internal/model"
)

// systemPython is Debian's Python, where python3-openpyxl installs.
const systemPython = "/usr/bin/python3"

// readBackScript reads an export file with an independent reader and
// prints its size and cells as text: openpyxl in read-only mode (as many
// import scripts do, trusting the sheet's dimension) for XLSX, Python's
// csv module for CSV.
// It reads a JSON list of files ({"path", "kind", "delimiter", "encoding"})
// on stdin and prints a JSON list of results.
const readBackScript = `
import csv, json, sys
import openpyxl
def read(job):
    if job["kind"] == "xlsx":
        wb = openpyxl.load_workbook(job["path"], read_only=True)
        ws = wb.active
        rows = [["" if v is None else str(v) for v in r] for r in ws.iter_rows(values_only=True)]
        return {"sheet": ws.title, "max_row": ws.max_row, "max_column": ws.max_column, "rows": rows}
    with open(job["path"], newline="", encoding=job["encoding"]) as f:
        rows = list(csv.reader(f, delimiter=job["delimiter"]))
    return {"max_row": len(rows), "max_column": max(len(r) for r in rows), "rows": rows}
json.dump([read(job) for job in json.load(sys.stdin)], sys.stdout)
`

// readBackJob is one file for readBackScript.
type readBackJob struct {
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Delimiter string `json:"delimiter,omitempty"`
	Encoding  string `json:"encoding,omitempty"`
}

// openpyxlPython returns the Python that has openpyxl. Without it the
// test is skipped, or fails when $CI is set: CI installs python3-openpyxl.
func openpyxlPython(t *testing.T) string {
	t.Helper()
	err := exec.Command(systemPython, "-c", "import openpyxl").Run()
	if err == nil {
		return systemPython
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s cannot import openpyxl (%v) and CI is set: install python3-openpyxl", systemPython, err)
	}
	t.Skipf("SKIPPING the openpyxl read-back: %s cannot import openpyxl (%v); apt-get install python3-openpyxl to run it", systemPython, err)
	return ""
}

type readBack struct {
	Sheet     string     `json:"sheet"`
	MaxRow    int        `json:"max_row"`
	MaxColumn int        `json:"max_column"`
	Rows      [][]string `json:"rows"`
}

// fillRow returns row i of schema s: every text cell "<column>-<i> é",
// numbers, dates and flags set.
func fillRow(s *Schema, i int) any {
	v := reflect.New(s.rowType).Elem()
	at := time.Date(2026, 11, 2, 8, 30, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	for _, c := range s.Columns {
		f := v.Field(c.field)
		switch c.Kind {
		case Text:
			f.SetString(textCell(c.Name, i))
		case Integer:
			f.SetInt(int64(i + 1))
		case Number:
			f.Set(reflect.ValueOf(model.Decimal(fmt.Sprintf("%d.5", i+1))))
		case DateTime, Date:
			f.Set(reflect.ValueOf(at))
		case Boolean:
			f.SetBool(i%2 == 0)
		}
	}
	return v.Interface()
}

func textCell(col string, i int) string { return fmt.Sprintf("%s-%04d é", col, i) }

// TestExportsReadBack writes every export type of both editions, 500 rows,
// in every file format (XLSX; CSV in UTF-8 with BOM and ';', and in
// Windows-1252), and reads each file back with an independent reader: all
// 501 rows, the header, every text cell. An XLSX sheet's dimension names
// the range its rows fill (excelize's StreamWriter leaves it at A1, and
// openpyxl in read-only mode then sees the header cell only).
func TestExportsReadBack(t *testing.T) {
	python := openpyxlPython(t)
	const rows = 500
	formats := []struct {
		name string
		opts Options
		job  readBackJob
	}{
		{"xlsx", Options{Format: XLSX}, readBackJob{Kind: "xlsx"}},
		{"csv-utf8-bom", Options{Format: CSV, Delimiter: ';', BOM: true, CRLF: true}, readBackJob{Kind: "csv", Delimiter: ";", Encoding: "utf-8-sig"}},
		{"csv-windows-1252", Options{Format: CSV, Charset: Windows1252, Decimal: ","}, readBackJob{Kind: "csv", Delimiter: ",", Encoding: "cp1252"}},
	}
	// Every file is written first, then read back by one Python process.
	type file struct {
		name   string
		schema *Schema
	}
	var files []file
	var jobs []readBackJob
	dir := t.TempDir()
	for _, e := range model.Editions {
		for _, typ := range model.ExportTypes(e) {
			s := MustFor(typ, e)
			for _, ft := range formats {
				name := fmt.Sprintf("%s/%s/%s", e, typ, ft.name)
				var buf bytes.Buffer
				w, err := NewWriter(&buf, s, ft.opts)
				if err != nil {
					t.Fatal(err)
				}
				for i := range rows {
					if err := w.Write(fillRow(s, i)); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if ft.opts.Format == XLSX {
					t.Run(name+"/dimension", func(t *testing.T) { wantDimension(t, buf.Bytes(), len(s.Columns), rows+1) })
				}
				job := ft.job
				job.Path = filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+"."+job.Kind)
				if err := os.WriteFile(job.Path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				files, jobs = append(files, file{name, s}), append(jobs, job)
			}
		}
	}
	in, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-c", readBackScript)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reading the exports back with openpyxl and csv: %v: %s", err, stderr.String())
	}
	var got []readBack
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(files) {
		t.Fatalf("read back %d files of %d: %v", len(got), len(files), err)
	}
	for k, f := range files {
		t.Run(f.name, func(t *testing.T) {
			s, got := f.schema, got[k]
			if got.MaxRow != rows+1 || got.MaxColumn != len(s.Columns) || len(got.Rows) != rows+1 {
				t.Fatalf("read back %d rows (max_row %d) of %d columns, want %d rows of %d", len(got.Rows), got.MaxRow, got.MaxColumn, rows+1, len(s.Columns))
			}
			if !reflect.DeepEqual(got.Rows[0], s.Header()) {
				t.Errorf("header %q, want %q", got.Rows[0], s.Header())
			}
			for i, r := range got.Rows[1:] {
				if len(r) != len(s.Columns) {
					t.Fatalf("row %d has %d cells, want %d", i+2, len(r), len(s.Columns))
				}
				for ci, c := range s.Columns {
					if c.Kind == Text && r[ci] != textCell(c.Name, i) {
						t.Fatalf("row %d column %s = %q, want %q", i+2, c.Name, r[ci], textCell(c.Name, i))
					}
					if r[ci] == "" {
						t.Fatalf("row %d column %s is empty", i+2, c.Name)
					}
				}
			}
		})
	}
}

var dimensionAttr = regexp.MustCompile(`<dimension ref="([^"]*)"`)

// wantDimension checks the sheet part's dimension: A1 to the last column
// of the last row.
func wantDimension(t *testing.T, data []byte, cols, rows int) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open(sheetPart)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	part, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := excelize.CoordinatesToCellName(cols, rows)
	m := dimensionAttr.FindSubmatch(part)
	if m == nil || string(m[1]) != "A1:"+last {
		t.Fatalf("dimension %q, want A1:%s (start of the part: %.300s)", m, last, part)
	}
	if n := strings.Count(string(part), "<dimension "); n != 1 {
		t.Errorf("%d dimension elements", n)
	}
}
