// Package fixedwidth owns the layout of fixed-width files, the format of
// AS/400-era hosts: each column is a run of characters at a fixed place on
// every line, numbers may carry implied decimals ("000001250" with two
// decimals is 12.50), and lines may start with a record type code that
// tells header records from line records.
//
// The inbox decoder (package formats) cuts lines by a Layout; the export
// writer (package formats/export) pads values into one; package config
// checks a Layout with Check. Positions and lengths count characters, not
// bytes: a file in a single-byte charset has as many of either.
package fixedwidth

import (
	"fmt"
	"slices"
	"strings"
)

// Format is the name of the format in a route or an export.
const Format = "fixed"

// Field is one column of a layout.
type Field struct {
	// Name is the column name, as a CSV header or a template names it.
	Name string `toml:"name"`
	// Start is the position of the first character (the first of a line
	// is 1); Length the number of characters.
	Start  int `toml:"start"`
	Length int `toml:"length"`
	// Decimals is the number of implied decimals of a number: with 2,
	// "000001250" is 12.50.
	Decimals int `toml:"decimals"`
	// Truncate lets an export cut a text longer than Length instead of
	// failing.
	Truncate bool `toml:"truncate"`
	// Record is the record type code of the lines the field is on, when the
	// layout has record types.
	Record string `toml:"record"`
}

// End is the position of the field's last character.
func (f Field) End() int { return f.Start + f.Length - 1 }

// Span names the field's place for a message: "columns 31–40 (quantity)".
func (f Field) Span() string {
	if f.Length == 1 {
		return fmt.Sprintf("column %d (%s)", f.Start, f.Name)
	}
	return fmt.Sprintf("columns %d–%d (%s)", f.Start, f.End(), f.Name)
}

// RecordType says where a line's record type code is and what the codes
// mean. Without one every line is a row.
type RecordType struct {
	Start  int `toml:"start"`
	Length int `toml:"length"`
	// Header is the code of header records: their fields carry onto the
	// line records after them, the way a CSV file repeats an order's header
	// columns on each of its lines. "": every record is a row of its own.
	Header string `toml:"header"`
	// Skip are codes of records that are not read (file headers, trailers).
	Skip []string `toml:"skip"`
}

// code returns the record type code of a line (what there is of it on a
// short line).
func (r *RecordType) code(line *chars) string {
	return strings.TrimRight(line.slice(r.Start-1, r.Start-1+r.Length), " ")
}

// Layout is the columns of a fixed-width file, and its record types.
type Layout struct {
	Fields []Field
	Record *RecordType
}

// Width is the position of the last character any field uses.
func (l Layout) Width() int {
	w := 0
	for _, f := range l.Fields {
		w = max(w, f.End())
	}
	if l.Record != nil {
		w = max(w, l.Record.Start+l.Record.Length-1)
	}
	return w
}

// Names are the field names in layout order.
func (l Layout) Names() []string {
	out := make([]string, len(l.Fields))
	for i, f := range l.Fields {
		out[i] = f.Name
	}
	return out
}

// Check returns what is wrong with the layout, one message per problem;
// known says whether a name is a column of the file's type ("" when it
// is, else why not; nil skips the check).
func (l Layout) Check(known func(name string) string) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if len(l.Fields) == 0 {
		add("layout is empty: give each column its name, start and length, e.g. layout = [{ name = \"sku\", start = 1, length = 20 }]")
		return out
	}
	seen := map[string]int{}
	for i, f := range l.Fields {
		where := fmt.Sprintf("layout[%d]", i)
		if strings.TrimSpace(f.Name) == "" {
			add("%s: name is required: the column name, as the templates show it", where)
		} else {
			where += " (" + f.Name + ")"
			if j, dup := seen[f.Name]; dup {
				add("%s: %q is already layout[%d]: each column once", where, f.Name, j)
			}
			seen[f.Name] = i
			if known != nil {
				if msg := known(f.Name); msg != "" {
					add("%s: %s", where, msg)
				}
			}
		}
		if f.Start < 1 {
			add("%s: start %d: the first character of a line is 1", where, f.Start)
		}
		if f.Length < 1 {
			add("%s: length %d: a column needs at least 1 character", where, f.Length)
		}
		if f.Decimals < 0 || f.Decimals >= max(f.Length, 1) {
			add("%s: decimals %d: between 0 and %d (the length less one)", where, f.Decimals, max(f.Length-1, 0))
		}
	}
	out = append(out, l.checkRecords()...)
	out = append(out, l.overlaps()...)
	return out
}

// checkRecords checks the record type and the fields' record codes.
func (l Layout) checkRecords() []string {
	var out []string
	r := l.Record
	if r == nil {
		for i, f := range l.Fields {
			if f.Record != "" {
				out = append(out, fmt.Sprintf("layout[%d] (%s): record %q is set but there is no record_type: add record_type = { start = 1, length = %d } to the route, saying where the code is", i, f.Name, f.Record, len(f.Record)))
				break
			}
		}
		return out
	}
	if r.Start < 1 || r.Length < 1 {
		out = append(out, fmt.Sprintf("record_type: start %d, length %d: both must be 1 or more", r.Start, r.Length))
		return out
	}
	var lines []string
	for i, f := range l.Fields {
		switch {
		case f.Record == "":
			out = append(out, fmt.Sprintf("layout[%d] (%s): record is required with record_type: the code of the records the column is on", i, f.Name))
		case len([]rune(f.Record)) > r.Length:
			out = append(out, fmt.Sprintf("layout[%d] (%s): record %q is longer than record_type's length %d", i, f.Name, f.Record, r.Length))
		case slices.Contains(r.Skip, f.Record):
			out = append(out, fmt.Sprintf("layout[%d] (%s): record %q is in record_type.skip: its lines are not read", i, f.Name, f.Record))
		case f.Record != r.Header && !slices.Contains(lines, f.Record):
			lines = append(lines, f.Record)
		}
	}
	switch {
	case len(lines) > 1:
		out = append(out, fmt.Sprintf("layout: columns are on records %s: one record type makes the rows (and record_type.header names the one whose columns carry onto them)", strings.Join(quoted(lines), " and ")))
	case len(lines) == 0 && r.Header != "":
		out = append(out, fmt.Sprintf("layout: every column is on header records %q: put the line columns on the records that make the rows", r.Header))
	}
	return out
}

// overlaps reports fields that share characters on the same records, or
// the record type code.
func (l Layout) overlaps() []string {
	var out []string
	fs := slices.Clone(l.Fields)
	if r := l.Record; r != nil && r.Start >= 1 && r.Length >= 1 {
		codes := map[string]bool{}
		for _, f := range l.Fields {
			codes[f.Record] = true
		}
		for c := range codes {
			fs = append(fs, Field{Name: "record type", Start: r.Start, Length: r.Length, Record: c})
		}
	}
	slices.SortStableFunc(fs, func(a, b Field) int { return a.Start - b.Start })
	for i := range fs {
		for j := i + 1; j < len(fs) && fs[j].Start <= fs[i].End(); j++ {
			a, b := fs[i], fs[j]
			if a.Length < 1 || b.Length < 1 || a.Record != b.Record || a.Name == "record type" && b.Name == "record type" {
				continue
			}
			out = append(out, fmt.Sprintf("layout: %s overlaps %s: give each column its own characters", a.Span(), b.Span()))
		}
	}
	return out
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
