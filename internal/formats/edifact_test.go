package formats

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/model"
)

var updateEDI = flag.Bool("update-edi", false, "rewrite the golden files of TestEDIFACTGolden in testdata/edifact/")

// TestEDIFACTGolden decodes each interchange of testdata/edifact (ORDERS,
// DESADV as inbound ASN, PRICAT; D.96A and D.01B; good and bad) in both
// editions, without a route type (the message type says it), and compares
// the documents and issues with NAME.EDITION.golden.
func TestEDIFACTGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/edifact/*.edi")
	if len(files) < 5 {
		t.Fatalf("only %d interchanges", len(files))
	}
	for _, f := range files {
		for _, e := range []model.Edition{A, B} {
			t.Run(filepath.Base(f)+"/"+string(e), func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				opts := Options{Edition: e}
				if e == A && !strings.HasPrefix(filepath.Base(f), "pricat") {
					opts.Defaults = map[string]string{"warehouseLocation": "3"}
				}
				res := decodeBytes(t, filepath.Base(f), data, opts)
				if res.err != nil {
					t.Fatal(res.err)
				}
				var b strings.Builder
				fmt.Fprintf(&b, "type %s\nheader %q\n", res.sum.Type.Name, res.sum.Header)
				for _, is := range res.sum.FileIssues {
					fmt.Fprintf(&b, "file issue: %s\n", is.Error())
				}
				for _, d := range res.docs {
					fmt.Fprintf(&b, "document %q rows %v\n", d.Key, d.Rows)
					for _, is := range d.Issues {
						fmt.Fprintf(&b, "  issue: %s\n", is.Error())
					}
					var body any = d.Outbound
					switch {
					case d.Inbound != nil:
						body = d.Inbound
					case d.Item != nil:
						body = d.Item
					}
					j, _ := json.Marshal(body)
					fmt.Fprintf(&b, "  %s\n", j)
				}
				golden := strings.TrimSuffix(f, ".edi") + "." + string(e) + ".golden"
				if *updateEDI {
					if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if b.String() != string(want) {
					t.Errorf("differs from %s:\n%s", golden, b.String())
				}
			})
		}
	}
}
