package formats

import (
	"fmt"
	"slices"
	"strings"

	"filebridge/internal/model"
	"filebridge/internal/suggest"
)

// layout maps the cells of a row to the fields of a spec.
type layout struct {
	spec   model.Spec
	fields []model.Field
	// cellOf is, per field, the index of its cell in a row (-1: not in the file).
	cellOf []int
	// defs are, per field, the route's constant ("" none).
	defs []string
	// vals are, per field, the route's map of cell values (nil none).
	vals []map[string]string
	// colName is, per field, the column name to report (the file's header).
	colName []string
	// missing marks required columns absent from the file and without a
	// default: reported once for the file, not on every row.
	missing []bool
	// width is the number of cells a row should have (0: not checked).
	width  int
	issues []Issue
	index  map[string]int // normalised field name -> field index
}

// fieldIndex returns the index of a field by exact name, or -1.
func (l *layout) fieldIndex(name string) int {
	return slices.IndexFunc(l.fields, func(f model.Field) bool { return f.Name == name })
}

// has reports whether the file (or a default) can give the field a value.
func (l *layout) has(fi int) bool { return fi >= 0 && (l.cellOf[fi] >= 0 || l.defs[fi] != "") }

// OurNames is a header row in filebridge's column names: each header that
// the route's column map (Options.Columns) renames is replaced.
func OurNames(header []string, cols map[string]string) []string {
	ren := make(map[string]string, len(cols))
	for from, to := range cols {
		ren[model.NormalizeHeader(from)] = to
	}
	out := make([]string, len(header))
	for i, h := range header {
		out[i] = h
		if to, ok := ren[model.NormalizeHeader(h)]; ok {
			out[i] = to
		}
	}
	return out
}

// detectType picks the document type of an edition from a header row: the
// type whose columns the header matches most, among the types whose key
// column is present. A tie or no match is an error telling to set the type.
func detectType(e model.Edition, header []string) (model.DocType, error) {
	norm := make(map[string]bool, len(header))
	for _, h := range header {
		if n := model.NormalizeHeader(h); n != "" {
			norm[n] = true
		}
	}
	var best []model.DocType
	bestScore := 0
	for _, dt := range model.DocTypes(e) {
		spec, ok := model.SpecFor(e, dt.Kind)
		if !ok || !norm[model.NormalizeHeader(spec.Key)] {
			continue
		}
		score := 0
		for _, f := range spec.Fields {
			if norm[model.NormalizeHeader(f.Name)] {
				score++
			}
		}
		switch {
		case score > bestScore:
			best, bestScore = []model.DocType{dt}, score
		case score == bestScore:
			best = append(best, dt)
		}
	}
	switch len(best) {
	case 1:
		return best[0], nil
	case 0:
		return model.DocType{}, fmt.Errorf("cannot tell the document type from the header row (edition %s): use the column names of a template (%s), or set the type on the route",
			e, model.DocTypeNames(e))
	}
	cand := make([]string, len(best))
	for i, dt := range best {
		cand[i] = dt.Name
	}
	return model.DocType{}, fmt.Errorf("the header row fits %s equally well (edition %s): set the type on the route", strings.Join(cand, " and "), e)
}

// newLayout maps a header (or the route's positions) onto the spec of dt.
func newLayout(dt model.DocType, e model.Edition, header []string, opts Options, file string) *layout {
	spec, _ := model.SpecFor(e, dt.Kind)
	l := &layout{
		spec:    spec,
		fields:  spec.Fields,
		cellOf:  make([]int, len(spec.Fields)),
		defs:    make([]string, len(spec.Fields)),
		colName: make([]string, len(spec.Fields)),
		missing: make([]bool, len(spec.Fields)),
		index:   make(map[string]int, len(spec.Fields)),
	}
	for i, f := range spec.Fields {
		l.cellOf[i], l.colName[i] = -1, f.Name
		l.index[model.NormalizeHeader(f.Name)] = i
	}
	fileIssue := func(warn bool, col, msg string) {
		l.issues = append(l.issues, Issue{File: file, Column: col, Message: msg, Warning: warn})
	}
	names := header
	if opts.NoHeader {
		names = opts.Positions
	} else {
		names = OurNames(header, opts.Columns)
	}
	l.width = len(names)
	for ci, n := range names {
		norm := model.NormalizeHeader(n)
		shown := n
		if !opts.NoHeader {
			shown = header[ci]
		}
		if norm == "" {
			continue
		}
		fi, ok := l.index[norm]
		if !ok {
			msg := fmt.Sprintf("column %q is not a column of %s (edition %s) and is ignored", shown, dt.Name, e)
			if opts.NoHeader {
				msg = fmt.Sprintf("position %d names %q, which is not a column of %s (edition %s): it is ignored", ci+1, n, dt.Name, e)
			}
			if near := nearest(norm, spec); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			fileIssue(true, shown, msg)
			continue
		}
		if prev := l.cellOf[fi]; prev >= 0 {
			fileIssue(false, shown, fmt.Sprintf("columns %d (%q) and %d (%q) both give %q: remove one of them",
				prev+1, l.colName[fi], ci+1, shown, spec.Fields[fi].Name))
			continue
		}
		l.cellOf[fi] = ci
		l.colName[fi] = shown
	}
	for col, v := range opts.Defaults {
		fi, ok := l.index[model.NormalizeHeader(col)]
		if !ok {
			fileIssue(true, col, fmt.Sprintf("the route sets a default for %q, which is not a column of %s (edition %s): it is ignored", col, dt.Name, e))
			continue
		}
		l.defs[fi] = strings.TrimSpace(v)
	}
	for col, m := range opts.Values {
		fi, ok := l.index[model.NormalizeHeader(col)]
		if !ok {
			fileIssue(true, col, fmt.Sprintf("the route maps values of %q, which is not a column of %s (edition %s): the map is ignored", col, dt.Name, e))
			continue
		}
		if l.vals == nil {
			l.vals = make([]map[string]string, len(spec.Fields))
		}
		l.vals[fi] = make(map[string]string, len(m))
		for from, to := range m {
			l.vals[fi][strings.TrimSpace(from)] = strings.TrimSpace(to)
		}
	}
	for fi, f := range spec.Fields {
		if !l.has(fi) && requiredColumn(e, dt.Kind, f) {
			l.missing[fi] = true
			fileIssue(false, f.Name, fmt.Sprintf("required column %q is missing: add it to the file (the templates show every column), map a column of yours to it, or set a default on the route", f.Name))
		}
	}
	l.eitherColumns(e, dt.Kind, fileIssue)
	return l
}

// requiredColumn reports whether a column must be in every file of a kind:
// the required fields, and the consignee address of an Edition A order.
func requiredColumn(e model.Edition, k model.Kind, f model.Field) bool {
	if f.Required {
		return true
	}
	if e == model.EditionA && k == model.KindOutbound {
		for _, a := range model.AddressRequired {
			if a != "name" && f.Name == "shipTo."+a {
				return true
			}
		}
	}
	return false
}

// eitherColumns reports, once, column pairs of which the file must have one.
func (l *layout) eitherColumns(e model.Edition, k model.Kind, fileIssue func(bool, string, string)) {
	either := func(a, b, why string) {
		ia, ib := l.fieldIndex(a), l.fieldIndex(b)
		if ia < 0 || ib < 0 || l.has(ia) || l.has(ib) {
			return
		}
		l.missing[ia], l.missing[ib] = true, true
		fileIssue(false, a, fmt.Sprintf("the file needs a column %q or %q: %s", a, b, why))
	}
	if e == model.EditionB && (k == model.KindInbound || k == model.KindOutbound) {
		either("warehouseLocation", "warehouseCode", "add one (or set a default warehouseLocation on the route)")
	}
	if k == model.KindOutbound {
		either("shipTo.name", "shipTo.lastName", "the consignee needs a name")
	}
	if e == model.EditionB && k == model.KindOutbound {
		hasAddr := false
		for fi, f := range l.fields {
			if strings.HasPrefix(f.Name, "shipTo.") && l.has(fi) {
				hasAddr = true
			}
		}
		if i := l.fieldIndex("shipToCode"); i >= 0 && !l.has(i) && !hasAddr {
			l.missing[i] = true
			fileIssue(false, "shipToCode", "the file needs a column \"shipToCode\" (an existing consignee) or the consignee address columns shipTo.name, shipTo.streetAddress, shipTo.zipcode, shipTo.city, shipTo.countryCode")
		}
	}
}

// nearest suggests the spec column closest to a normalised unknown name.
func nearest(norm string, spec model.Spec) string {
	best, bestD := "", 3
	for _, f := range spec.Fields {
		n := model.NormalizeHeader(f.Name)
		if d := suggest.Distance(norm, n); d < bestD {
			best, bestD = f.Name, d
		}
		if strings.HasSuffix(n, norm) && len(norm) >= 4 && best == "" {
			best = f.Name
		}
	}
	return best
}
