package config

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"filebridge/internal/fixedwidth"
	"filebridge/internal/formats/export"
	"filebridge/internal/model"
)

// validateRouteLayout checks the layout of a route: a fixed-width route
// needs a type and a layout of the type's columns; another route has none.
func validateRouteLayout(p *problems, where string, edition model.Edition, r *Route) {
	if r.Format != FormatFixed {
		if len(r.Layout) > 0 || r.RecordType != nil {
			p.add(where, "layout and record_type are read only with format = \"fixed\": set it, or remove them")
		}
		return
	}
	if r.Type == "" {
		p.add(where, "format = \"fixed\" needs a type: a fixed-width file has no header row to tell it")
	}
	if len(r.Positions) > 0 || r.HeaderRow > 0 || r.Sheet != "" {
		p.add(where, "positions, header_row and sheet do not apply to format = \"fixed\": the layout names the columns")
	}
	var known func(string) string
	if r.DocType.Name != "" && edition != "" {
		known = func(name string) string { return unknownColumn(edition, r.DocType, name) }
	}
	l := fixedwidth.Layout{Fields: r.Layout, Record: r.RecordType}
	for _, msg := range l.Check(known) {
		p.add(where, "%s", msg)
	}
	spec := r.spec(edition)
	for i, f := range r.Layout {
		if f.Truncate {
			p.add(where, "layout[%d] (%s): truncate applies to exports only: an inbound value is read whole", i, f.Name)
		}
		if sf, ok := spec.Field(f.Name); ok && f.Decimals > 0 && sf.Type != model.TDecimal {
			p.add(where, "layout[%d] (%s): decimals apply to number columns; %s is %s (see docs/columns.md)", i, f.Name, f.Name, withArticle(sf.Type.String()))
		}
	}
}

// withArticle puts "a" or "an" before a type name.
func withArticle(s string) string {
	if s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// validateExportLayout checks the layout of a fixed-width export: columns
// of the export, and room for every value whose width is known now (dates,
// booleans); a text or a number too long for its column fails the export
// run with the row and column, unless the column says truncate (texts).
func validateExportLayout(p *problems, where string, edition model.Edition, e *Export) {
	if e.Format != FormatFixed {
		if len(e.Layout) > 0 {
			p.add(where, "layout is read only with format = \"fixed\": set it, or remove the layout")
		}
		return
	}
	if e.BOM {
		p.add(where, "bom does not apply to format = \"fixed\"")
	}
	var s *export.Schema
	if edition != "" && e.Type != "" {
		s, _ = export.For(e.Type, edition)
	}
	cols := map[string]export.Column{}
	var known func(string) string
	if s != nil {
		for _, c := range s.Columns {
			cols[c.Name] = c
		}
		known = func(name string) string {
			if _, ok := cols[name]; ok {
				return ""
			}
			return fmt.Sprintf("%q is not a column of the %s export (edition %s): use one of %s (see docs/exports.md)", name, e.Type, edition, strings.Join(s.Header(), ", "))
		}
	}
	fields := make([]fixedwidth.Field, len(e.Layout))
	for i, f := range e.Layout {
		if f.Record != "" {
			p.add(where, "layout[%d] (%s): record applies to inbound files: an export writes one kind of line", i, f.Name)
		}
		fields[i] = f
		fields[i].Record = ""
	}
	for _, msg := range (fixedwidth.Layout{Fields: fields}).Check(known) {
		p.add(where, "%s", msg)
	}
	for i, f := range e.Layout {
		c, ok := cols[f.Name]
		if !ok || f.Length < 1 {
			continue
		}
		at := fmt.Sprintf("layout[%d] (%s)", i, f.Name)
		switch c.Kind {
		case export.Integer, export.Number:
			if f.Truncate {
				p.add(where, "%s: truncate applies to texts: a number is never cut; lengthen the column", at)
			}
		case export.Text:
			if f.Decimals > 0 {
				p.add(where, "%s: decimals apply to numbers; %s is a text", at, f.Name)
			}
			if n := apiMaxLen(edition, e.Type, f.Name); n > f.Length && !f.Truncate {
				p.add(where, "%s: %s can be %d characters long in edition %s, the column has %d: lengthen it, or set truncate = true on it to cut longer ones",
					at, f.Name, n, edition, f.Length)
			}
		default:
			if f.Decimals > 0 || f.Truncate {
				p.add(where, "%s: decimals and truncate apply to numbers and texts; %s is a %s", at, f.Name, c.Kind)
			}
			if w := kindWidth(c.Kind, e); w > f.Length {
				p.add(where, "%s: a %s is written in %d characters (date_layout %q) but the column has %d: lengthen it, or set a shorter date_layout such as \"20060102\"",
					at, c.Kind, w, kindLayout(c.Kind, e), f.Length)
			}
		}
	}
}

// exportSource is the inbound kind whose fields an export's columns carry:
// the API's limits on them bound what the export writes.
var exportSource = map[model.ExportType]model.Kind{
	model.ExportReceipts:  model.KindInbound,
	model.ExportShipments: model.KindOutbound,
	model.ExportTracking:  model.KindOutbound,
	model.ExportStock:     model.KindItem,
	model.ExportMovements: model.KindItem,
	model.ExportItems:     model.KindItem,
}

// apiMaxLen is the API's length limit of an export's text column (0: none
// stated): the field of the same name of the export's source documents,
// else of the SKUs (a line's sku is a SKU).
func apiMaxLen(e model.Edition, t model.ExportType, name string) int {
	for _, k := range []model.Kind{exportSource[t], model.KindItem} {
		if spec, ok := model.SpecFor(e, k); ok {
			if f, ok := spec.Field(name); ok && f.MaxLen > 0 {
				return f.MaxLen
			}
		}
	}
	return 0
}

// kindLayout is the layout dates of kind k are written with.
func kindLayout(k export.Kind, e *Export) string {
	switch {
	case k == export.Boolean:
		return ""
	case e.DateLayout != "":
		return e.DateLayout
	case k == export.Date:
		return time.DateOnly
	}
	return time.RFC3339
}

// kindWidth is the width of a date, date-time or boolean as the export
// writes it.
func kindWidth(k export.Kind, e *Export) int {
	if k == export.Boolean {
		return len("false")
	}
	loc := e.Location
	if loc == nil {
		loc = time.UTC
	}
	probe := time.Date(2027, 11, 23, 17, 48, 39, 0, loc)
	return utf8.RuneCountInString(probe.Format(kindLayout(k, e)))
}
