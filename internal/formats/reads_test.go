package formats

import (
	"bytes"
	"context"
	"io"
	"sync/atomic"
	"testing"
)

// readCounter counts the ReadAt calls made on a file.
type readCounter struct {
	*bytes.Reader
	reads atomic.Int64
}

func (c *readCounter) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.Reader.ReadAt(p, off)
}

// TestFirstBytesReadOnce: a small file is read once by Decode: the bytes
// that told its format (no EDI) are the text reader's first buffer, not
// read again; OpenInterchange does not read a file whose route names a
// format other than X12 or EDIFACT; and a file whose Head was read is
// read once by OpenInterchange and Decode together (the inbox's run).
func TestFirstBytesReadOnce(t *testing.T) {
	const suppliers = "code,name,relationship\nSUP-1,Supplier 1,Manufacturer\n"
	for _, tc := range []struct {
		name   string
		format string
		ic     bool // OpenInterchange first
		decode bool
		head   bool // through ReadHead
		reads  int64
	}{
		{"decode by name", "", false, true, false, 1},
		{"decode as csv", "csv", false, true, false, 1},
		{"interchange of a csv route", "csv", true, false, false, 0},
		{"interchange by its first bytes", "", true, false, false, 1},
		{"interchange then decode of a head", "", true, true, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &readCounter{Reader: bytes.NewReader([]byte(suppliers))}
			var file io.ReaderAt = r
			if tc.head {
				h, err := ReadHead(r, r.Size())
				if err != nil {
					t.Fatal(err)
				}
				file = h
			}
			opts := Options{Edition: A, Type: "suppliers", Format: tc.format}
			if tc.ic {
				if ic, err := OpenInterchange(file, r.Size(), "SUPPLIERS.csv", opts); ic != nil || err != nil {
					t.Fatalf("interchange %v, error %v; want none", ic, err)
				}
			}
			if tc.decode {
				docs := 0
				sum, err := Decode(context.Background(), file, r.Size(), "SUPPLIERS.csv", opts, func(Doc) error { docs++; return nil })
				if err != nil || docs != 1 || len(sum.FileIssues) != 0 {
					t.Fatalf("%d documents, issues %v, error %v; want 1 and none", docs, sum.FileIssues, err)
				}
			}
			if got := r.reads.Load(); got != tc.reads {
				t.Errorf("%d reads of a %d-byte file, want %d", got, len(suppliers), tc.reads)
			}
		})
	}
}
