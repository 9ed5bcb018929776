package templates

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/edifact"
	"filebridge/internal/model"
)

// EDIFACTSample returns a sample interchange of the message that feeds the
// spec's document type, its values the spec's examples (the columns the
// message carries), one line; ok is false when no message feeds the type.
func EDIFACTSample(spec model.Spec, dt model.DocType) (data []byte, msg string, ok bool, err error) {
	tab := feeding(slices.Clone(edifact.Tables), spec.Edition, dt)
	if tab == nil {
		return nil, "", false, nil
	}
	vals := examples(spec)
	// Columns read from one element (BGM02: orderNumber and
	// externalOrderNumber) hold the first one's value: one BGM.
	type place struct {
		tag  string
		q    edi.Qualifier
		e, c int
	}
	first := map[place]string{}
	for _, f := range tab.Fields {
		p := place{f.Tag, f.Qual, f.Elem, f.Comp}
		if c, ok := first[p]; ok {
			vals[f.Column] = vals[c]
			continue
		}
		first[p] = f.Column
	}
	var buf bytes.Buffer
	wr := edifact.NewWriter(&buf, edifact.Header{Sender: edifact.Party{ID: "PARTNER", Qual: "ZZ"}, Recipient: edifact.Party{ID: "WAREHOUSE", Qual: "ZZ"},
		Ref: "1", Date: "260101", Time: "0000"}, time.Time{}, true)
	wr.Begin("1", edifact.MessageID{Type: tab.Set, Version: "D", Release: "96A", Agency: "UN"})
	for _, s := range tab.Segments(vals, []map[string]string{vals}) {
		wr.Segment(s.Tag, s.Elems...)
	}
	wr.End()
	if err := wr.Close(); err != nil {
		return nil, "", false, fmt.Errorf("writing the sample %s of %s: %w", tab.Set, dt.Name, err)
	}
	return buf.Bytes(), tab.Set, true, nil
}
