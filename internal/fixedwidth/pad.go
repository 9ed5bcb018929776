package fixedwidth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ErrTooLong is wrapped by the error of a value that does not fit its field.
var ErrTooLong = errors.New("does not fit the layout")

// PadText writes a text left-aligned in the field, padded with spaces. A
// text longer than the field fails with ErrTooLong, or is cut when the
// field says truncate.
func PadText(f Field, s string) (string, error) {
	n := utf8.RuneCountInString(s)
	if n > f.Length {
		if !f.Truncate {
			return "", fmt.Errorf("%q has %d characters, %s has %d: %w; lengthen the column, or set truncate = true on it to cut such texts",
				s, n, f.Span(), f.Length, ErrTooLong)
		}
		s, n = string([]rune(s)[:f.Length]), f.Length
	}
	return s + strings.Repeat(" ", f.Length-n), nil
}

// PadNumber writes a number ("12", "-12.5": digits, an optional leading
// minus and decimal point) right-aligned in the field, zero-padded, with
// the field's implied decimals and no decimal point: 12.5 with 2 decimals
// in 9 characters is "000001250", -12.5 is "-00001250". A number with more
// decimals than the field keeps, or more digits than it holds, fails with
// ErrTooLong: a number is never cut.
func PadNumber(f Field, s string) (string, error) {
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > f.Decimals {
		return "", fmt.Errorf("%s has %d decimals, %s keeps %d: %w; give the column decimals = %d",
			s, len(frac), f.Span(), f.Decimals, ErrTooLong, len(frac))
	}
	digits := strings.TrimLeft(whole, "0") + frac + strings.Repeat("0", f.Decimals-len(frac))
	room := f.Length
	if neg && strings.Trim(digits, "0") != "" {
		room--
	} else {
		neg = false
	}
	if len(digits) > room {
		digits = strings.TrimLeft(digits, "0")
	}
	if len(digits) > room {
		return "", fmt.Errorf("%s needs %d characters, %s has %d: %w; lengthen the column", s, len(digits)+(f.Length-room), f.Span(), f.Length, ErrTooLong)
	}
	out := strings.Repeat("0", room-len(digits)) + digits
	if neg {
		out = "-" + out
	}
	return out, nil
}

// Line assembles the padded values of one line: vals[i] goes in field i,
// cut or padded with spaces to its length. Characters no field covers are
// spaces. The line has no line end. The layout must be checked (no
// overlapping fields).
func (l Layout) Line(b *strings.Builder, vals []string) {
	order := make([]int, len(l.Fields))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return l.Fields[i].Start - l.Fields[j].Start })
	pos := 1 // the next character to write
	for _, i := range order {
		f := l.Fields[i]
		writeSpaces(b, f.Start-pos)
		v := vals[i]
		n := utf8.RuneCountInString(v)
		if n > f.Length {
			v, n = string([]rune(v)[:f.Length]), f.Length
		}
		b.WriteString(v)
		writeSpaces(b, f.Length-n)
		pos = f.End() + 1
	}
}

const spaces = "                                "

func writeSpaces(b *strings.Builder, n int) {
	for ; n > len(spaces); n -= len(spaces) {
		b.WriteString(spaces)
	}
	if n > 0 {
		b.WriteString(spaces[:n])
	}
}
