package edi

import (
	"fmt"
	"strings"
)

// Level is where a mapped value lands: on the document (repeated on each of
// its rows) or on one line item.
type Level int

const (
	Header Level = iota
	Line
)

func (l Level) String() string {
	if l == Line {
		return "line"
	}
	return "header"
}

// Qualifier selects a segment by the value of one of its elements
// (N1 with N101 = "ST"; NAD with 3035 = "DP").
type Qualifier struct {
	Elem  int
	Value string
}

func (q Qualifier) matches(s Segment) bool { return q.Elem == 0 || s.Value(q.Elem) == q.Value }

// Field maps one element (or component) of a segment onto a column.
type Field struct {
	// Loop is the tag of the segment that opens the loop the segment is in
	// ("N1" for N3/N4 of a party), "" for a segment outside any loop the
	// table tracks; LoopQual selects which of those loops.
	Loop     string
	LoopQual Qualifier
	Tag      string
	Qual     Qualifier // selects the segment itself (G62 with G6201 = "10")
	Elem     int       // 1-based
	Comp     int       // 1-based; 0: the element's first component
	Column   string    // a column name of the document type (model field name)
	Level    Level
	// Convert turns the element's value into the column's ("CCYYMMDD" dates
	// into 2006-01-02); nil keeps it.
	Convert *Conversion
	Note    string // for the docs: what the element holds
}

// Conversion is a named value conversion of a Field.
type Conversion struct {
	Name string // shown in the docs
	Fn   func(string) string
	// Back turns a column's value into the element's (Compose); nil: the
	// field is not composed.
	Back func(string) string
}

// Date converts a CCYYMMDD (or YYMMDD) date into 2006-01-02.
var Date = &Conversion{Name: "CCYYMMDD → YYYY-MM-DD", Fn: func(v string) string {
	switch len(v) {
	case 8:
		return v[:4] + "-" + v[4:6] + "-" + v[6:]
	case 6:
		return "20" + v[:2] + "-" + v[2:4] + "-" + v[4:]
	}
	return v
}}

// Table maps one transaction set / message onto one document type.
type Table struct {
	Standard string // "X12" or "EDIFACT"
	Set      string // "940", "ORDERS"
	Name     string // "Warehouse Shipping Order"
	DocType  string // the document type (route type) it feeds: "orders", "receptions", "skus"
	// LineTag is the segment that starts a line item (W01, LIN); a set
	// without lines (one document per line tag of item sets) names it too.
	LineTag string
	// LineQual selects which LineTag segments start a line.
	LineQual Qualifier
	// LineOpen, when set, is a segment that opens a line item before its
	// LineTag (X12's LX): the LineTag that follows belongs to that line.
	LineOpen string
	// Loops are the tags that open a loop the Fields refer to.
	Loops  []string
	Fields []Field
}

// Row is one line item of a set with its document's header values.
type Row struct {
	Pos   int      // the segment position of the line's first segment
	Line  int      // its physical line
	Cells []string // one per column of Columns
	Src   []Location
}

// Columns are the column names of the table, in table order, each once,
// those of edition-specific document types kept by keep (nil keeps all).
func (t *Table) Columns(keep func(string) bool) []string {
	var cols []string
	seen := map[string]bool{}
	for _, f := range t.Fields {
		if seen[f.Column] || keep != nil && !keep(f.Column) {
			continue
		}
		seen[f.Column] = true
		cols = append(cols, f.Column)
	}
	return cols
}

// Rows maps the segments of one set (ST..SE or UNH..UNT) onto rows of the
// given columns: one row per line item, header values repeated on each. A
// set without any line item gives one row of its header values. A value
// met twice for one cell keeps the first one.
func (t *Table) Rows(segs []Segment, cols []string) []Row {
	idx := make(map[string]int, len(cols))
	for i, c := range cols {
		idx[c] = i
	}
	byTag := map[string][]int{}
	for i, f := range t.Fields {
		if _, ok := idx[f.Column]; ok {
			byTag[f.Tag] = append(byTag[f.Tag], i)
		}
	}
	isLoop := map[string]bool{}
	for _, l := range t.Loops {
		isLoop[l] = true
	}
	hdr := make([]string, len(cols))
	hdrSrc := make([]Location, len(cols))
	type lineVals struct {
		pos, line int
		cells     []string
		src       []Location
	}
	var lines []*lineVals
	var cur *lineVals
	var loop *Segment
	opened := false // cur was opened by LineOpen and has no LineTag yet
	newLine := func(s *Segment) {
		cur = &lineVals{pos: s.Pos, line: s.Line, cells: make([]string, len(cols)), src: make([]Location, len(cols))}
		lines = append(lines, cur)
		loop = nil
	}
	for i := range segs {
		s := &segs[i]
		switch {
		case t.LineOpen != "" && s.Tag == t.LineOpen:
			newLine(s)
			opened = true
		case s.Tag == t.LineTag && t.LineQual.matches(*s):
			if opened {
				cur.pos, cur.line = s.Pos, s.Line // the row is the line's LineTag
			} else {
				newLine(s)
			}
			opened = false
		}
		if isLoop[s.Tag] {
			loop = s
		}
		for _, fi := range byTag[s.Tag] {
			f := &t.Fields[fi]
			if !f.Qual.matches(*s) {
				continue
			}
			if f.Loop != "" && (loop == nil || loop.Tag != f.Loop || !f.LoopQual.matches(*loop)) {
				continue
			}
			v := strings.TrimSpace(s.Elem(f.Elem, f.Comp))
			if f.Convert != nil && v != "" {
				v = f.Convert.Fn(v)
			}
			cells, src := hdr, hdrSrc
			if f.Level == Line {
				if cur == nil {
					continue // a line value before any line: not this table's
				}
				cells, src = cur.cells, cur.src
			}
			c := idx[f.Column]
			if src[c].Tag != "" {
				continue
			}
			cells[c] = v
			src[c] = Location{Pos: s.Pos, Tag: s.Tag, Elem: f.Elem, Comp: f.Comp}
		}
	}
	if len(lines) == 0 {
		return []Row{{Pos: firstPos(segs), Line: firstLine(segs), Cells: hdr, Src: hdrSrc}}
	}
	rows := make([]Row, len(lines))
	for i, l := range lines {
		for c := range cols {
			if l.src[c].Tag == "" && hdrSrc[c].Tag != "" {
				l.cells[c], l.src[c] = hdr[c], hdrSrc[c]
			}
		}
		rows[i] = Row{Pos: l.pos, Line: l.line, Cells: l.cells, Src: l.src}
	}
	return rows
}

func firstPos(segs []Segment) int {
	if len(segs) == 0 {
		return 0
	}
	return segs[0].Pos
}

func firstLine(segs []Segment) int {
	if len(segs) == 0 {
		return 0
	}
	return segs[0].Line
}

// Markdown renders the table for a partner's EDI analyst: one line per
// mapped element.
func (t *Table) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s %s %s → %s\n\n", t.Standard, t.Set, t.Name, t.DocType)
	fmt.Fprintf(&b, "A line item starts at each %s segment", t.LineTag)
	if t.LineQual.Elem > 0 {
		fmt.Fprintf(&b, " with %s%02d = %s", t.LineTag, t.LineQual.Elem, t.LineQual.Value)
	}
	if t.LineOpen != "" {
		fmt.Fprintf(&b, " (or at the %s before it)", t.LineOpen)
	}
	b.WriteString(".\n\n| loop | segment | element | column | level | note |\n|---|---|---|---|---|---|\n")
	for _, f := range t.Fields {
		loop := ""
		if f.Loop != "" {
			loop = f.Loop
			if f.LoopQual.Elem > 0 {
				loop += fmt.Sprintf(" (%s%02d = %s)", f.Loop, f.LoopQual.Elem, f.LoopQual.Value)
			}
		}
		seg := f.Tag
		if f.Qual.Elem > 0 {
			seg += fmt.Sprintf(" (%s%02d = %s)", f.Tag, f.Qual.Elem, f.Qual.Value)
		}
		el := fmt.Sprintf("%s%02d", f.Tag, f.Elem)
		if f.Comp > 0 {
			el += fmt.Sprintf("-%d", f.Comp)
		}
		note := f.Note
		if f.Convert != nil {
			note = strings.TrimSpace(note + " (" + f.Convert.Name + ")")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %s |\n", loop, seg, el, f.Column, f.Level, note)
	}
	return b.String()
}
