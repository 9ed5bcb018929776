package templates

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"filebridge/internal/config"
	"filebridge/internal/fixedwidth"
	"filebridge/internal/formats"
	"filebridge/internal/model"
)

// TestFixedSamples: for every document type, the sample route loads in a
// configuration and reads the sample fixed-width file into valid
// documents that carry the example values.
func TestFixedSamples(t *testing.T) {
	eachSpec(t, func(t *testing.T, e model.Edition, dt model.DocType, spec model.Spec) {
		cfg := fmt.Sprintf("[portals.main]\nedition = %q\nbase_url = \"http://127.0.0.1:1\"\ncompany = 1\ntoken_env = \"FILEBRIDGE_TOKEN\"\n[[inboxes]]\nname = \"in\"\nportal = \"main\"\nurl = %q\n%s",
			e, t.TempDir(), FixedRoute(spec, dt))
		c, err := config.Decode([]byte(cfg), t.TempDir())
		if err != nil {
			t.Fatalf("the sample route does not load: %v\n%s", err, cfg)
		}
		r := c.Inbox("in").Routes[0]
		sample, err := FixedSample(spec)
		if err != nil {
			t.Fatal(err)
		}
		opts := formats.Options{Edition: e, Type: r.Type, Format: r.Format, Layout: fixedwidth.Layout{Fields: r.Layout}}
		var docs []formats.Doc
		sum, err := formats.Decode(context.Background(), bytes.NewReader(sample), int64(len(sample)), "sample.txt", opts, func(d formats.Doc) error {
			docs = append(docs, d)
			return nil
		})
		if err != nil || !sum.Valid() || len(docs) != 1 {
			t.Fatalf("sample: %v, %+v, %d documents", err, sum, len(docs))
		}
		for _, is := range docs[0].Issues {
			if !is.Warning {
				t.Errorf("sample: %v", is)
			}
		}
	})
}
