package templates

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"filebridge/internal/fixedwidth"
	"filebridge/internal/model"
)

// fixedDecimals are the implied decimals of a number column in the sample
// layouts.
const fixedDecimals = 3

// typeLength is the width of a column of each type in the sample layouts
// (room for any usual value).
var typeLength = map[model.FieldType]int{
	model.TInt: 9, model.TDecimal: 12, model.TEAN: 14, model.TCountry: 2, model.TEmail: 50,
	model.TDate: len("2006-01-02"), model.TDateTime: len("2006-01-02T15:04:05Z"), model.TTime: len("15:04"),
}

// fixedLength is the width of a column in the sample layouts: its type's,
// else the API's limit for a text that has one, else 30.
func fixedLength(f model.Field) int {
	n, ok := typeLength[f.Type]
	if !ok {
		n = cmp.Or(f.MaxLen, 30)
	}
	return max(n, utf8.RuneCountInString(f.Example))
}

// FixedLayout is a layout of every column of a spec, in order, end to end.
func FixedLayout(spec model.Spec) fixedwidth.Layout {
	var l fixedwidth.Layout
	start := 1
	for _, f := range spec.Fields {
		fw := fixedwidth.Field{Name: f.Name, Start: start, Length: fixedLength(f)}
		if f.Type == model.TDecimal {
			fw.Decimals = fixedDecimals
		}
		l.Fields = append(l.Fields, fw)
		start += fw.Length
	}
	return l
}

// FixedSample is a fixed-width file of the spec's example row, written by
// FixedLayout: texts left-aligned, numbers right-aligned and zero-padded
// with their implied decimals.
func FixedSample(spec model.Spec) ([]byte, error) {
	l := FixedLayout(spec)
	vals := make([]string, len(l.Fields))
	for i, f := range spec.Fields {
		var err error
		switch {
		case f.Example == "":
			vals[i] = ""
		case f.Type == model.TInt || f.Type == model.TDecimal:
			vals[i], err = fixedwidth.PadNumber(l.Fields[i], f.Example)
		default:
			vals[i], err = fixedwidth.PadText(l.Fields[i], f.Example)
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
	}
	var b strings.Builder
	l.Line(&b, vals)
	b.WriteString("\n")
	return []byte(b.String()), nil
}

// FixedRoute is the inbox route that reads FixedSample: a TOML
// [[inboxes.routes]] table to put under an inbox of the configuration.
func FixedRoute(spec model.Spec, dt model.DocType) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# The route of a fixed-width %s file (edition %s), as %s.fixed.txt is written:\n", dt.Name, spec.Edition, dt.Name)
	b.WriteString("# put it under an [[inboxes]] table of the configuration and adjust the starts and\n")
	b.WriteString("# lengths to the host's record description (positions count characters; the first\n")
	b.WriteString("# of a line is 1). decimals are implied decimals: with 3, 000000006500 reads 6.5.\n")
	b.WriteString("[[inboxes.routes]]\n")
	fmt.Fprintf(&b, "match = %q\n", strings.ToUpper(dt.Name)+"_*.txt")
	fmt.Fprintf(&b, "type = %q\n", dt.Name)
	b.WriteString("format = \"fixed\"\n")
	b.WriteString("charset = \"utf-8\"\n")
	b.WriteString("layout = [\n")
	for _, f := range FixedLayout(spec).Fields {
		fmt.Fprintf(&b, "  { name = %q, start = %d, length = %d", f.Name, f.Start, f.Length)
		if f.Decimals > 0 {
			fmt.Fprintf(&b, ", decimals = %d", f.Decimals)
		}
		b.WriteString(" },\n")
	}
	b.WriteString("]\n")
	return b.Bytes()
}
