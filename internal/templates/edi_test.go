package templates

import (
	"bytes"
	"context"
	"testing"

	"filebridge/internal/formats"
	"filebridge/internal/model"
)

// TestEDISamplesDecode: the sample interchange of every document type an
// X12 set or an EDIFACT message feeds reads back, through the decoder, as
// one valid document holding the spec's example values (a warehouse the
// message does not carry comes from the route's defaults, as a route
// gives it).
func TestEDISamplesDecode(t *testing.T) {
	samples := []struct {
		ext    string
		sample func(model.Spec, model.DocType) ([]byte, string, bool, error)
	}{
		{"x12", X12Sample},
		{"edi", EDIFACTSample},
	}
	eachSpec(t, func(t *testing.T, e model.Edition, dt model.DocType, spec model.Spec) {
		for _, sm := range samples {
			data, set, ok, err := sm.sample(spec, dt)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			name := string(e) + "/" + dt.Name + "." + set + "." + sm.ext
			opts := formats.Options{Edition: e, Type: dt.Name}
			if f, ok := spec.Field("warehouseLocation"); ok && f.Required {
				opts.Defaults = map[string]string{"warehouseLocation": f.Example}
			}
			var docs []formats.Doc
			sum, err := formats.Decode(context.Background(), bytes.NewReader(data), int64(len(data)), name, opts,
				func(d formats.Doc) error { docs = append(docs, d); return nil })
			if err != nil || len(sum.FileIssues) > 0 {
				t.Fatalf("%s: %v %v", name, err, sum.FileIssues)
			}
			if len(docs) != 1 {
				t.Fatalf("%s: %d documents, want 1", name, len(docs))
			}
			for _, is := range docs[0].Issues {
				if !is.Warning {
					t.Errorf("%s: %s", name, is.Error())
				}
			}
			if want := spec.Fields[0].Example; docs[0].Key != want {
				t.Errorf("%s: key %q, want the example %q", name, docs[0].Key, want)
			}
		}
	})
}
