package fixedwidth

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Cutter cuts the lines of one file into cells by a layout. It keeps the
// fields of the last header record (see RecordType.Header).
type Cutter struct {
	l Layout
	// comma writes implied decimals with a decimal comma (the route reads
	// "12,50").
	comma bool
	width int
	// lineWidth is the end of the last field of the row records, hdrWidth
	// that of the header records.
	lineWidth, hdrWidth int
	codes               []string // the codes of the records read
	cells, hdr          []string
	hdrSeen             bool
	line                chars
	problems            []string
	// Broken says the last line cut could not be read as a row at all
	// (its record type is unknown, no header record came before it, or it
	// is a header record with a problem): its problem is all there is to
	// say of it.
	Broken bool
	// Reported are the fields of the last line whose value the problem
	// already stands for (columns a short line cuts, a number column
	// holding more than digits).
	Reported []int
}

// NewCutter returns a Cutter of a checked layout (see Check).
func NewCutter(l Layout, decimalComma bool) *Cutter {
	c := &Cutter{l: l, comma: decimalComma, width: l.Width(), cells: make([]string, len(l.Fields)), hdr: make([]string, len(l.Fields))}
	for _, f := range l.Fields {
		if c.isHeader(f) {
			c.hdrWidth = max(c.hdrWidth, f.End())
		} else {
			c.lineWidth = max(c.lineWidth, f.End())
		}
		if !slices.Contains(c.codes, f.Record) {
			c.codes = append(c.codes, f.Record)
		}
	}
	return c
}

func (c *Cutter) isHeader(f Field) bool {
	return c.l.Record != nil && c.l.Record.Header != "" && f.Record == c.l.Record.Header
}

// Cut cuts one line (without its line end) into cells in layout order.
// row is false for a line that makes no row: a header record (its fields
// are kept for the rows after it) or a skipped record. problem says, when
// not "", what is wrong with the line, the columns first ("columns 31–40
// (quantity): ..."); cells then hold what could be read. cells are valid
// until the next call.
func (c *Cutter) Cut(line string) (cells []string, row bool, problem string) {
	line = strings.TrimRight(line, "\r")
	c.line.set(line)
	rs := &c.line
	c.problems = c.problems[:0]
	c.Broken, c.Reported = false, c.Reported[:0]
	if strings.TrimSpace(line) == "" {
		clear(c.cells)
		return c.cells, true, "" // an empty line: the decoder skips it
	}
	header := false
	if r := c.l.Record; r != nil {
		code := r.code(rs)
		switch {
		case slices.Contains(r.Skip, code):
			return nil, false, ""
		case r.Header != "" && code == r.Header:
			header = true
		case !slices.Contains(c.codes, code):
			clear(c.cells)
			c.Broken = true
			return c.cells, true, fmt.Sprintf("%s: record type %q is none of the layout's (%s): add it to record_type.skip if its lines are not to be read",
				spanOf(r.Start, r.Length, "record type"), code, strings.Join(quoted(c.codes), ", "))
		}
	}
	width := c.width
	if c.l.Record != nil {
		width = c.lineWidth
		if header {
			width = c.hdrWidth
		}
	}
	cut := false
	for i, f := range c.l.Fields {
		if c.isHeader(f) != header {
			if !header {
				c.cells[i] = c.hdr[i]
			}
			continue
		}
		s := rs.slice(f.Start-1, f.End())
		if f.End() > rs.len() {
			c.Reported = append(c.Reported, i) // the line's problem names it
		}
		if f.End() > rs.len() && !cut {
			cut = true
			c.problem("%s: the line ends at column %d, the layout needs %d characters: check that the file was not cut or its lines not trimmed",
				f.Span(), rs.len(), width)
		}
		s = strings.TrimRight(s, " ")
		if f.Decimals > 0 {
			if v, ok := Implied(s, f.Decimals, c.comma); ok {
				s = v
			} else {
				c.Reported = append(c.Reported, i)
				c.problem("%s: %q is not a number: the layout gives it %s, so it holds digits only (and a sign), e.g. %s for %s",
					f.Span(), strings.TrimSpace(s), impliedDecimals(f.Decimals), example(f), exampleValue(f, c.comma))
			}
		}
		if header {
			c.hdr[i] = s
		} else {
			c.cells[i] = s
		}
	}
	if rs.len() > width {
		if extra := strings.TrimRight(rs.slice(width, rs.len()), " "); extra != "" {
			n := utf8.RuneCountInString(extra)
			c.problem("%s: %d characters past the layout's last column %d (%q): the line is longer than the layout; check the starts and lengths",
				spanOf(width+1, n, ""), n, width, clip(extra))
		}
	}
	if header {
		c.hdrSeen = true
		if len(c.problems) == 0 {
			return nil, false, ""
		}
		// The problem of a header record is reported on its line, a row
		// of its own that is no line of the order.
		c.Broken = true
		for i, f := range c.l.Fields {
			if c.isHeader(f) {
				c.cells[i] = c.hdr[i]
			} else {
				c.cells[i] = ""
			}
		}
		return c.cells, true, strings.Join(c.problems, "; ")
	}
	if c.l.Record != nil && c.l.Record.Header != "" && !c.hdrSeen {
		c.Broken = true
		c.problem("the line comes before any header record %q: the columns of its order are not known", c.l.Record.Header)
	}
	return c.cells, true, strings.Join(c.problems, "; ")
}

func impliedDecimals(n int) string {
	if n == 1 {
		return "1 implied decimal"
	}
	return fmt.Sprintf("%d implied decimals", n)
}

func (c *Cutter) problem(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

func spanOf(start, length int, name string) string {
	s := fmt.Sprintf("columns %d–%d", start, start+length-1)
	if length == 1 {
		s = fmt.Sprintf("column %d", start)
	}
	if name != "" {
		s += " (" + name + ")"
	}
	return s
}

func clip(s string) string {
	if r := []rune(s); len(r) > 20 {
		return string(r[:20]) + "…"
	}
	return s
}

// example is 1250 with the field's decimals (12.50 with 2) written in
// field f: "000001250".
func example(f Field) string {
	digits := "1250"
	if len(digits) > f.Length {
		digits = digits[len(digits)-f.Length:]
	}
	return strings.Repeat("0", f.Length-len(digits)) + digits
}

func exampleValue(f Field, comma bool) string {
	v, _ := Implied(example(f), f.Decimals, comma)
	return v
}

// Implied reads a number with implied decimals: digits with an optional
// sign before or after them ("000001250", "-00001250", "00001250-"), spaces
// around; "" stays "". It returns the number with its decimal separator
// ("12.50", or "12,50" with comma) and whether s is such a number.
func Implied(s string, decimals int, comma bool) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", true
	}
	neg := false
	switch {
	case s[0] == '-' || s[0] == '+':
		neg, s = s[0] == '-', s[1:]
	case s[len(s)-1] == '-' || s[len(s)-1] == '+':
		neg, s = s[len(s)-1] == '-', s[:len(s)-1]
	}
	if s == "" {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	whole := strings.TrimLeft(s[:len(s)-decimals], "0")
	if whole == "" {
		whole = "0"
	}
	sep := "."
	if comma {
		sep = ","
	}
	out := whole + sep + s[len(s)-decimals:]
	if neg && strings.Trim(s, "0") != "" {
		out = "-" + out
	}
	return out, true
}

// chars indexes a line by character: offs holds the byte offset of each
// character, nil for an ASCII line (nearly every line), whose characters
// are its bytes. Slices share the line's memory.
type chars struct {
	s    string
	offs []int
}

func (c *chars) set(s string) {
	c.s, c.offs = s, c.offs[:0]
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			for j := range s {
				c.offs = append(c.offs, j)
			}
			return
		}
	}
}

// len is the number of characters.
func (c *chars) len() int {
	if len(c.offs) == 0 {
		return len(c.s)
	}
	return len(c.offs)
}

// slice returns characters a to b-1 (as many of them as the line has).
func (c *chars) slice(a, b int) string {
	n := c.len()
	a, b = min(a, n), min(b, n)
	if len(c.offs) == 0 {
		return c.s[a:b]
	}
	off := func(i int) int {
		if i == n {
			return len(c.s)
		}
		return c.offs[i]
	}
	return c.s[off(a):off(b)]
}
