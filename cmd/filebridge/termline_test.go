package main

import (
	"bytes"
	"testing"
)

// TestTermLine: a log line written while a progress line shows clears
// it, stands on a line of its own, and the progress line is drawn again
// after it; once the bar cleared its line, log lines pass unchanged.
func TestTermLine(t *testing.T) {
	var out bytes.Buffer
	term := newTermLine(&out)
	bar, logs := term.Bar(), term.Logs()
	steps := []struct {
		w    func() (int, error)
		want string
	}{
		{func() (int, error) { return logs.Write([]byte("level=INFO msg=claimed\n")) }, "level=INFO msg=claimed\n"},
		{func() (int, error) { return bar.Write([]byte("\rdocuments  10% |###       | (10/100)")) }, "\rdocuments  10% |###       | (10/100)"},
		{func() (int, error) { return logs.Write([]byte("level=WARN msg=retrying\n")) },
			"\r\x1b[Klevel=WARN msg=retrying\n\rdocuments  10% |###       | (10/100)"},
		{func() (int, error) { return bar.Write([]byte("\r                                      \r")) }, "\r                                      \r"},
		{func() (int, error) { return logs.Write([]byte("level=INFO msg=done\n")) }, "level=INFO msg=done\n"},
	}
	for i, s := range steps {
		out.Reset()
		if _, err := s.w(); err != nil {
			t.Fatal(err)
		}
		if out.String() != s.want {
			t.Errorf("step %d wrote %q, want %q", i, out.String(), s.want)
		}
	}
	if term.Terminal() {
		t.Error("a buffer is taken for a terminal")
	}
}
