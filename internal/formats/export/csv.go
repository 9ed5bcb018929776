package export

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// csvEncoder writes rows with encoding/csv. Cells are converted to the
// target charset one by one before they reach the csv.Writer, so that a
// character the charset lacks is reported with its row and column; the
// single-byte charsets never produce a byte the csv.Writer would treat as a
// delimiter, quote or line end other than the characters themselves.
type csvEncoder struct {
	textEncoder
	w    *csv.Writer
	opts Options
	rec  []string
}

// textEncoder converts text to the charset of a file (CSV, fixed-width).
type textEncoder struct {
	charset string
	charmap *charmap.Charmap // nil: UTF-8
	buf     []byte
}

func newTextEncoder(charset string) (textEncoder, error) {
	t := textEncoder{charset: charset}
	switch charset {
	case UTF8:
	case Windows1252:
		t.charmap = charmap.Windows1252
	case Latin1:
		t.charmap = charmap.ISO8859_1
	default:
		return t, fmt.Errorf("charset %q: use %q, %q or %q", charset, UTF8, Windows1252, Latin1)
	}
	return t, nil
}

func newCSVEncoder(w io.Writer, opts Options) (*csvEncoder, error) {
	te, err := newTextEncoder(opts.Charset)
	if err != nil {
		return nil, err
	}
	e := &csvEncoder{textEncoder: te, opts: opts}
	if opts.BOM && e.charmap != nil {
		return nil, fmt.Errorf("a byte order mark needs charset %q, not %q", UTF8, opts.Charset)
	}
	switch opts.Delimiter {
	case '"', '\r', '\n', utf8.RuneError:
		return nil, fmt.Errorf("delimiter %q cannot separate CSV cells", opts.Delimiter)
	}
	if e.charmap != nil {
		if _, ok := e.charmap.EncodeRune(opts.Delimiter); !ok {
			return nil, fmt.Errorf("delimiter %q cannot be written in %s", opts.Delimiter, opts.Charset)
		}
	}
	if opts.BOM {
		if _, err := io.WriteString(w, "\uFEFF"); err != nil {
			return nil, fmt.Errorf("writing the byte order mark: %w", err)
		}
	}
	cw := csv.NewWriter(w)
	cw.Comma = opts.Delimiter
	if e.charmap != nil && opts.Delimiter >= utf8.RuneSelf {
		// The csv.Writer compares runes of the (already encoded) cells;
		// only an ASCII delimiter keeps that comparison byte-exact.
		return nil, fmt.Errorf("delimiter %q: use an ASCII delimiter with charset %s", opts.Delimiter, opts.Charset)
	}
	cw.UseCRLF = opts.CRLF
	e.w = cw
	return e, nil
}

func (e *csvEncoder) header(names []string) error {
	rec := make([]string, len(names))
	for i, n := range names {
		s, err := e.encode(n)
		if err != nil {
			return &CellError{Row: 1, Column: n, Err: err}
		}
		rec[i] = s
	}
	return e.w.Write(rec)
}

func (e *csvEncoder) record(vals []value, row int, key string) error {
	if cap(e.rec) < len(vals) {
		e.rec = make([]string, len(vals))
	}
	rec := e.rec[:len(vals)]
	for i := range vals {
		v := &vals[i]
		s := e.format(v)
		if v.col.Kind == Text && s != "" {
			var err error
			if s, err = e.encode(s); err != nil {
				return &CellError{Row: row, Key: key, Column: v.col.Name, Err: err}
			}
		}
		rec[i] = s
	}
	return e.w.Write(rec)
}

// format renders a value as text (still UTF-8).
func (e *csvEncoder) format(v *value) string {
	if v.empty {
		return ""
	}
	switch v.col.Kind {
	case Text:
		return Neutralize(v.s)
	case Number:
		if e.opts.Decimal == "," {
			return strings.Replace(v.s, ".", ",", 1)
		}
		return v.s
	}
	return formatOther(e.opts, v)
}

// formatOther renders an integer, a date or a boolean as text.
func formatOther(opts Options, v *value) string {
	switch v.col.Kind {
	case Integer:
		return strconv.FormatInt(v.i, 10)
	case DateTime:
		return v.t.In(opts.Location).Format(cmp.Or(opts.DateLayout, time.RFC3339))
	case Date:
		return dateOf(v.t).Format(cmp.Or(opts.DateLayout, time.DateOnly))
	case Boolean:
		return strconv.FormatBool(v.b)
	}
	return ""
}

// encode converts s to the target charset, failing on the first character
// it lacks.
func (e *textEncoder) encode(s string) (string, error) {
	if e.charmap == nil {
		return s, nil
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s, nil
	}
	b := e.buf[:0]
	for _, r := range s {
		c, ok := e.charmap.EncodeRune(r)
		if !ok {
			return "", fmt.Errorf("%w: %q (%U) cannot be written in %s; set charset = \"utf-8\" on this export, or change the text in the portal",
				ErrUnencodable, r, r, e.charset)
		}
		b = append(b, c)
	}
	e.buf = b
	return string(b), nil
}

func (e *csvEncoder) close() error {
	e.w.Flush()
	return e.w.Error()
}

func (e *csvEncoder) abort() {}
