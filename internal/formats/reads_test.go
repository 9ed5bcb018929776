package formats

import (
	"bytes"
	"context"
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
// read again; and OpenInterchange does not read a file whose route names a
// format other than X12 or EDIFACT.
func TestFirstBytesReadOnce(t *testing.T) {
	const suppliers = "code,name,relationship\nSUP-1,Supplier 1,Manufacturer\n"
	for _, tc := range []struct {
		name   string
		format string
		decode bool // Decode, else OpenInterchange
		reads  int64
	}{
		{"decode by name", "", true, 1},
		{"decode as csv", "csv", true, 1},
		{"interchange of a csv route", "csv", false, 0},
		{"interchange by its first bytes", "", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &readCounter{Reader: bytes.NewReader([]byte(suppliers))}
			opts := Options{Edition: A, Type: "suppliers", Format: tc.format}
			if tc.decode {
				docs := 0
				sum, err := Decode(context.Background(), r, r.Size(), "SUPPLIERS.csv", opts, func(Doc) error { docs++; return nil })
				if err != nil || docs != 1 || len(sum.FileIssues) != 0 {
					t.Fatalf("%d documents, issues %v, error %v; want 1 and none", docs, sum.FileIssues, err)
				}
			} else if ic, err := OpenInterchange(r, r.Size(), "SUPPLIERS.csv", opts); ic != nil || err != nil {
				t.Fatalf("interchange %v, error %v; want none", ic, err)
			}
			if got := r.reads.Load(); got != tc.reads {
				t.Errorf("%d reads of a %d-byte file, want %d", got, len(suppliers), tc.reads)
			}
		})
	}
}
