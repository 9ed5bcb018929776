package edi

import "slices"

// Compose is the inverse of Rows for tables without loops: it builds the
// body segments of one set (without its ST/UNH and SE/UNT) that carry one
// document whose rows are given (one per line item, header values taken
// from the first row), each value at its table's element and component,
// each segment with its qualifier. Header segments come in the order
// their fields first appear in the table, then each line's segments,
// starting with LineTag. It serves sample interchanges and tests: a set
// composed from rows maps back onto the same rows.
func (t *Table) Compose(cols []string, rows [][]string) []Segment {
	idx := make(map[string]int, len(cols))
	for i, c := range cols {
		idx[c] = i
	}
	type key struct {
		tag  string
		qual Qualifier
	}
	var hdrKeys, lineKeys []key
	for _, f := range t.Fields {
		k := key{f.Tag, f.Qual}
		if f.Loop != "" {
			continue // loops are placed by their opener: not composed
		}
		if f.Level == Line {
			if !slices.Contains(lineKeys, k) {
				lineKeys = append(lineKeys, k)
			}
		} else if !slices.Contains(hdrKeys, k) {
			hdrKeys = append(hdrKeys, k)
		}
	}
	// The line tag opens each line.
	slices.SortStableFunc(lineKeys, func(a, b key) int {
		switch {
		case a.tag == t.LineTag && b.tag != t.LineTag:
			return -1
		case b.tag == t.LineTag && a.tag != t.LineTag:
			return 1
		}
		return 0
	})
	build := func(k key, row []string, level Level) (Segment, bool) {
		s := Segment{Tag: k.tag}
		put := func(elem, comp int, v string) {
			comp = max(comp, 1)
			for len(s.Elems) < elem {
				s.Elems = append(s.Elems, nil)
			}
			for len(s.Elems[elem-1]) < comp {
				s.Elems[elem-1] = append(s.Elems[elem-1], "")
			}
			s.Elems[elem-1][comp-1] = v
		}
		any := false
		for _, f := range t.Fields {
			i, ok := idx[f.Column]
			if f.Tag != k.tag || f.Qual != k.qual || f.Loop != "" || f.Level != level || !ok || row[i] == "" {
				continue
			}
			v := row[i]
			if f.Convert != nil && f.Convert.Back == nil {
				continue // a converted value that cannot be put back
			}
			if f.Convert != nil {
				v = f.Convert.Back(v)
			}
			put(f.Elem, f.Comp, v)
			any = true
		}
		if k.qual.Elem > 0 {
			put(k.qual.Elem, 1, k.qual.Value)
		}
		return s, any || k.tag == t.LineTag && level == Line
	}
	var segs []Segment
	if len(rows) == 0 {
		return nil
	}
	for _, k := range hdrKeys {
		if s, ok := build(k, rows[0], Header); ok {
			segs = append(segs, s)
		}
	}
	for _, row := range rows {
		for _, k := range lineKeys {
			if s, ok := build(k, row, Line); ok {
				segs = append(segs, s)
			}
		}
	}
	return segs
}
