package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressDisabledOffTerminal: a buffer, a file and /dev/null (a
// character device, not a terminal) get no progress line.
func TestProgressDisabledOffTerminal(t *testing.T) {
	open := func(name string) func(t *testing.T) io.Writer {
		return func(t *testing.T) io.Writer {
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			return f
		}
	}
	tests := []struct {
		name string
		w    func(t *testing.T) io.Writer
	}{
		{"buffer", func(*testing.T) io.Writer { return new(bytes.Buffer) }},
		{"file", open(filepath.Join(t.TempDir(), "err.log"))},
		{"dev null", open(os.DevNull)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w(t)
			p := newProgress(w)
			r := strings.NewReader("data")
			if got := p.track("f.csv", r, 10<<20); got != io.ReaderAt(r) {
				t.Error("a non-terminal writer must get the reader unwrapped")
			}
			p.done()
			if b, ok := w.(*bytes.Buffer); ok && b.Len() != 0 {
				t.Errorf("wrote %q", b.String())
			}
		})
	}
}

func TestProgressCountsFurthestOffset(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, enabled: true}
	data := strings.Repeat("x", progressMinSize)
	r := p.track("big.csv", strings.NewReader(data), int64(len(data)))
	c, ok := r.(*countingReaderAt)
	if !ok {
		t.Fatalf("reader not wrapped: %T", r)
	}
	b := make([]byte, 100)
	if _, err := r.ReadAt(b, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	if got := c.high.Load(); got != 1100 {
		t.Errorf("furthest offset = %d, want 1100", got)
	}
	p.done()
	out := buf.String()
	if !strings.Contains(out, "big.csv") || !strings.Contains(out, "1.1 kB/5.2 MB") {
		t.Errorf("the progress line does not show the bytes read: %q", out)
	}
	if !strings.HasSuffix(out, "\r") {
		t.Errorf("the progress line is not cleared: %q", out)
	}
}
