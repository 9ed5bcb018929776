package templates

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/x12"
	"filebridge/internal/model"
)

// X12Sample returns a sample interchange of the set that feeds the spec's
// document type, its values the spec's examples (the columns the set
// carries), one line; ok is false when no set feeds the type.
func X12Sample(spec model.Spec, dt model.DocType) (data []byte, set string, ok bool, err error) {
	tab := feeding(slices.Collect(maps.Values(x12.Tables)), spec.Edition, dt)
	if tab == nil {
		return nil, "", false, nil
	}
	vals := examples(spec)
	var buf bytes.Buffer
	env := x12.Envelope{Sender: edi.Party{Qualifier: "ZZ", ID: "PARTNER"}, Receiver: edi.Party{Qualifier: "ZZ", ID: "WAREHOUSE"},
		Control: 1, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	body := tab.Segments(vals, []map[string]string{vals})
	if err := x12.Write(&buf, env, nil, []x12.OutSet{{ID: tab.Set, Body: body}}); err != nil {
		return nil, "", false, fmt.Errorf("writing the sample %s of %s: %w", tab.Set, dt.Name, err)
	}
	return buf.Bytes(), tab.Set, true, nil
}

// feeding returns the table that feeds a document type of edition e (the
// first by set identifier), nil when none does.
func feeding(tables []*edi.Table, e model.Edition, dt model.DocType) *edi.Table {
	slices.SortFunc(tables, func(a, b *edi.Table) int { return strings.Compare(a.Set, b.Set) })
	for _, t := range tables {
		if d, err := model.LookupDocType(e, t.DocType); err == nil && d.Kind == dt.Kind {
			return t
		}
	}
	return nil
}

// examples are the spec's example values by column.
func examples(spec model.Spec) map[string]string {
	vals := map[string]string{}
	for _, f := range spec.Fields {
		vals[f.Name] = f.Example
	}
	return vals
}
