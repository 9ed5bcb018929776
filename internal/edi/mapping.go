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
	Back func(string) string // the column's value as the element carries it
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
}, Back: func(v string) string {
	if len(v) >= 10 && v[4] == '-' && v[7] == '-' {
		return v[:4] + v[5:7] + v[8:10]
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

// Segments builds the body of one set from column values, the inverse of
// Rows (for sample interchanges): header values, then per line its values.
// The first Field of a column writes it; a segment gets the qualifiers
// that select it and its loop; values of one segment tag share a segment
// unless a qualifier or an element disagrees.
func (t *Table) Segments(header map[string]string, lines []map[string]string) []Segment {
	var out []Segment
	put := func(scope []Segment, f Field, v string) []Segment {
		if f.Convert != nil && f.Convert.Back != nil {
			v = f.Convert.Back(v)
		}
		if f.Loop != "" && f.Tag != f.Loop {
			// The loop's opener comes first in its scope.
			if i := findSeg(scope, f.Loop, f.LoopQual, Qualifier{}, 0, 0, ""); i < 0 {
				scope = append(scope, newSeg(f.Loop, f.LoopQual))
			}
		}
		i := findSeg(scope, f.Tag, f.Qual, f.LoopQual, f.Elem, f.Comp, v)
		if f.Tag == f.Loop {
			i = findSeg(scope, f.Tag, f.LoopQual, f.Qual, f.Elem, f.Comp, v)
		}
		if i < 0 {
			s := newSeg(f.Tag, f.Qual)
			if f.Tag == f.Loop {
				s = newSeg(f.Tag, f.LoopQual)
			}
			scope = append(scope, s)
			i = len(scope) - 1
		}
		for _, q := range []Qualifier{f.Qual, f.LoopQual} {
			if q.Elem > 0 && (q == f.Qual || f.Tag == f.Loop) && scope[i].Value(q.Elem) == "" {
				setElem(&scope[i], q.Elem, 0, q.Value)
			}
		}
		setElem(&scope[i], f.Elem, f.Comp, v)
		return scope
	}
	done := map[string]bool{}
	for _, f := range t.Fields {
		if f.Level == Header && header[f.Column] != "" && !done[f.Column] {
			done[f.Column] = true
			out = put(out, f, header[f.Column])
		}
	}
	for _, vals := range lines {
		var line []Segment
		if t.LineOpen != "" {
			line = append(line, Segment{Tag: t.LineOpen})
		}
		line = append(line, newSeg(t.LineTag, t.LineQual))
		done := map[string]bool{}
		for _, f := range t.Fields {
			if f.Level == Line && vals[f.Column] != "" && !done[f.Column] {
				done[f.Column] = true
				line = put(line, f, vals[f.Column])
			}
		}
		out = append(out, line...)
	}
	return out
}

func newSeg(tag string, q Qualifier) Segment {
	s := Segment{Tag: tag}
	if q.Elem > 0 {
		setElem(&s, q.Elem, 0, q.Value)
	}
	return s
}

// findSeg finds the last segment of tag in scope that q (and, for a loop
// opener, lq) can select and whose element elem is free.
func findSeg(scope []Segment, tag string, q, lq Qualifier, elem, comp int, v string) int {
	for i := len(scope) - 1; i >= 0; i-- {
		s := scope[i]
		if s.Tag != tag {
			continue
		}
		if q.Elem > 0 && s.Value(q.Elem) != "" && s.Value(q.Elem) != q.Value {
			continue
		}
		if elem > 0 && s.Value(elem) != "" && s.Elem(elem, comp) != v {
			continue // the element holds another value: a segment of its own
		}
		return i
	}
	return -1
}

func setElem(s *Segment, elem, comp int, v string) {
	for len(s.Elems) < elem {
		s.Elems = append(s.Elems, []string{""})
	}
	if comp < 1 {
		comp = 1
	}
	cs := s.Elems[elem-1]
	for len(cs) < comp {
		cs = append(cs, "")
	}
	cs[comp-1] = v
	s.Elems[elem-1] = cs
}
