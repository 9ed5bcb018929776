// Package ziptest reads ZIP archives (XLSX workbooks) in tests, to compare
// a generated one with a committed one part by part, decompressed.
package ziptest

import (
	"archive/zip"
	"bytes"
	"io"
	"testing"
)

// Parts returns the decompressed parts of the archive b by name.
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
