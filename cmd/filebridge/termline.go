package main

import (
	"bytes"
	"io"
	"sync"
)

// termLine lets log lines and one progress line share a terminal: a log
// line clears the progress line, is written on a line of its own, and the
// progress line is drawn again below it, so that the two never run into
// each other. Bar is the progress bar's writer (it redraws its line after
// a carriage return), Logs the logger's.
type termLine struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	line     []byte // the progress line as last drawn, after its last '\r'
}

func newTermLine(w io.Writer) *termLine {
	return &termLine{w: w, terminal: isTerminal(w)}
}

// Terminal reports whether the shared writer is a terminal (isTerminal
// asks it).
func (t *termLine) Terminal() bool { return t.terminal }

// Bar is the writer of the progress line.
func (t *termLine) Bar() io.Writer { return barWriter{t} }

// Logs is the writer of whole log lines.
func (t *termLine) Logs() io.Writer { return logWriter{t} }

type barWriter struct{ t *termLine }

func (b barWriter) Write(p []byte) (int, error) {
	t := b.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := bytes.LastIndexByte(p, '\r'); i >= 0 {
		t.line = append(t.line[:0], p[i+1:]...)
	} else {
		t.line = append(t.line, p...)
	}
	if len(bytes.TrimSpace(t.line)) == 0 {
		t.line = t.line[:0] // cleared
	}
	return t.w.Write(p)
}

type logWriter struct{ t *termLine }

// clearLine is a carriage return and ANSI "erase to the end of the line".
const clearLine = "\r\x1b[K"

func (l logWriter) Write(p []byte) (int, error) {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.line) == 0 {
		return t.w.Write(p)
	}
	var buf bytes.Buffer
	buf.WriteString(clearLine)
	buf.Write(p)
	if len(p) > 0 && p[len(p)-1] != '\n' {
		buf.WriteByte('\n')
	}
	buf.WriteByte('\r')
	buf.Write(t.line)
	if _, err := t.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
