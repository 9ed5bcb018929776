package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"filebridge/internal/fixedwidth"
)

// fixedEncoder writes each row as one fixed-width line placed by a layout
// (see fixedwidth): no header row, no delimiter. A value that does not fit
// its column fails the export with a *CellError naming the line and the
// column, unless the column lets a text be cut (truncate).
type fixedEncoder struct {
	textEncoder
	w      *bufio.Writer
	opts   Options
	layout fixedwidth.Layout
	col    []int // per layout field, the index of its schema column
	eol    string
	vals   []string
	line   strings.Builder
}

func newFixedEncoder(w io.Writer, s *Schema, opts Options) (*fixedEncoder, error) {
	if len(opts.Layout) == 0 {
		return nil, errors.New("a fixed-width export needs a layout")
	}
	te, err := newTextEncoder(opts.Charset)
	if err != nil {
		return nil, err
	}
	if opts.BOM {
		return nil, errors.New("a fixed-width file has no byte order mark")
	}
	e := &fixedEncoder{textEncoder: te, w: bufio.NewWriter(w), opts: opts, eol: "\n",
		layout: fixedwidth.Layout{Fields: opts.Layout}, vals: make([]string, len(opts.Layout))}
	if opts.CRLF {
		e.eol = "\r\n"
	}
	if probs := e.layout.Check(nil); len(probs) > 0 {
		return nil, fmt.Errorf("layout: %s", strings.Join(probs, "; "))
	}
	for _, f := range opts.Layout {
		i := -1
		for j, c := range s.Columns {
			if c.Name == f.Name {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("layout: %q is not a column of the %s export (edition %s): use one of %v", f.Name, s.Type, s.Edition, s.Header())
		}
		e.col = append(e.col, i)
	}
	return e, nil
}

// header writes nothing: the layout is the header.
func (e *fixedEncoder) header([]string) error { return nil }

func (e *fixedEncoder) record(vals []value, row int, key string) error {
	line := row - 1 // the Writer counts a header row; this file has none
	for i, f := range e.layout.Fields {
		v := &vals[e.col[i]]
		s, err := e.pad(f, v)
		if err == nil {
			_, err = e.encode(s)
		}
		if err != nil {
			return &CellError{Row: line, Key: key, Column: f.Name, Err: err}
		}
		e.vals[i] = s
	}
	e.line.Reset()
	e.layout.Line(&e.line, e.vals)
	out, err := e.encode(e.line.String())
	if err != nil {
		return &CellError{Row: line, Key: key, Err: err}
	}
	if _, err := e.w.WriteString(out); err != nil {
		return err
	}
	_, err = e.w.WriteString(e.eol)
	return err
}

// pad renders one value into its column.
func (e *fixedEncoder) pad(f fixedwidth.Field, v *value) (string, error) {
	switch {
	case v.empty:
		return fixedwidth.PadText(f, "")
	case v.col.Kind == Number:
		return fixedwidth.PadNumber(f, v.s)
	case v.col.Kind == Integer:
		return fixedwidth.PadNumber(f, strconv.FormatInt(v.i, 10))
	case v.col.Kind == Text:
		return fixedwidth.PadText(f, v.s)
	}
	// A date or a boolean is never cut (config checks its width).
	s := formatOther(e.opts, v)
	if n := utf8.RuneCountInString(s); n > f.Length {
		return "", fmt.Errorf("%q has %d characters, %s has %d: %w; lengthen the column, or set a shorter date_layout", s, n, f.Span(), f.Length, fixedwidth.ErrTooLong)
	}
	return fixedwidth.PadText(f, s)
}

func (e *fixedEncoder) close() error { return e.w.Flush() }

func (e *fixedEncoder) abort() {}
