package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestProgressDisabledOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf)
	r := strings.NewReader("data")
	if got := p.track("f.csv", r, 10<<20); got != io.ReaderAt(r) {
		t.Error("a non-terminal writer must get the reader unwrapped")
	}
	p.done()
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
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
