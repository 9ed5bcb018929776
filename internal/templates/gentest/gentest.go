// Package gentest checks in tests that generated files (documentation,
// workbooks, golden files) are the ones committed.
package gentest

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// UpToDate checks that the file at path holds want (see SameFile), after
// writing want there when update is set; regenerate is the command that
// does so.
func UpToDate(t testing.TB, path, want string, update bool, regenerate string) {
	t.Helper()
	SameFile(t, path, []byte(want), committed(t, path, []byte(want), update, regenerate), regenerate)
}

// Golden checks that the golden file at path holds got, after writing got
// there when update is set; flag is the test flag that does so (-update).
// A difference is an error showing both.
func Golden(t testing.TB, path string, got []byte, update bool, flag string) {
	t.Helper()
	if want := committed(t, path, got, update, "go test "+flag); !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test %s rewrites it):\n--- got\n%s\n--- want\n%s", path, flag, got, want)
	}
}

// committed writes data to path (and its folder) when update is set, and
// returns what the file at path holds.
func committed(t testing.TB, path string, data []byte, update bool, regenerate string) []byte {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v (run %s)", path, err, regenerate)
	}
	return b
}

// SameFile checks that got, the generated file called name, is the
// committed one: an XLSX workbook part by part (decompressed, so that a
// compressor change does not matter), any other file byte for byte. Each
// difference is an error saying to run regenerate.
func SameFile(t testing.TB, name string, got, committed []byte, regenerate string) {
	t.Helper()
	if !strings.HasSuffix(name, ".xlsx") {
		if !bytes.Equal(got, committed) {
			t.Errorf("%s is out of date: run %s", name, regenerate)
		}
		return
	}
	g, w := Parts(t, got), Parts(t, committed)
	for part, gb := range g {
		if wb, ok := w[part]; !ok || !bytes.Equal(gb, wb) {
			t.Errorf("%s: part %s is out of date: run %s", name, part, regenerate)
		}
	}
	for part := range w {
		if _, ok := g[part]; !ok {
			t.Errorf("%s: part %s should not be there: run %s", name, part, regenerate)
		}
	}
}

// Parts returns the decompressed parts of the archive b (an XLSX workbook)
// by name, to compare a generated one with a committed one part by part.
func Parts(t testing.TB, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	parts := make(map[string][]byte)
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		parts[zf.Name] = data
	}
	return parts
}
