package formats

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestEDIFACTAck acknowledges interchanges after decoding them: a sound
// one whose documents are valid is accepted; one with an invalid document
// rejects that message, naming the segment and element of each problem; a
// malformed envelope is rejected whole.
func TestEDIFACTAck(t *testing.T) {
	now := time.Date(2026, 11, 26, 23, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		file, want string
	}{
		{"testdata/edifact/orders.edi", "UCI+ORD0001+5412345000013:14+5798000000001:14+7'\nUCM+1+ORDERS:D:96A:UN:EAN008+7'\nUCM+2+ORDERS:D:96A:UN:EAN008+7'\nUCM+3+ORDERS:D:96A:UN:EAN008+7'\n"},
		{"testdata/edifact/orders_bad.edi", "UCI+ORD0003+5412345000013:14+5798000000001:14+7'\nUCM+1+ORDERS:D:96A:UN:EAN008+4'\nUCS+4'\nUCD+13+8'\nUCS+7'\nUCD+12+1:2'\n"},
		{"../edi/edifact/testdata/envelopes/wrong_unz_count.edi", "UCI+IC0001+5412345000013:14+5798000000001:14+4+29+UNZ+1'\n"},
		{"testdata/edifact/orders_d01b.edi", "UCI+ORD0002+5412345000013:14+5798000000001:14+7'\nUCM+1+ORDERS:D:01B:UN:EAN010+4+18+UNH'\n"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			data, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Edition: A, Defaults: map[string]string{"warehouseLocation": "3"}}
			res := decodeBytes(t, "f.edi", data, opts)
			var refused []Refusal
			fileErr := strings.Contains(tc.file, "d01b") // the whole file
			for _, d := range res.docs {
				for _, is := range d.Issues {
					refused = append(refused, Refusal{Row: is.Row, Column: is.Column, Msg: is.Message})
				}
			}
			ic, err := OpenInterchange(bytes.NewReader(data), int64(len(data)), "f.edi", opts)
			if err != nil {
				t.Fatal(err)
			}
			ack, err := ic.Ack(bytes.NewReader(data), int64(len(data)), refused, fileErr, 99, now)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(ack.Data), "\n"+tc.want) || !strings.Contains(string(ack.Data), "UNH+1+CONTRL:D:3:UN'") {
				t.Errorf("CONTRL\n%s\nwant\n%s", ack.Data, tc.want)
			}
		})
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// TestEDIFACTReadOnce decodes an interchange of orders (a grouped type: an
// index pass, then the documents' pass) and checks that the interchange
// was read and parsed once: the second pass rewinds the rows in memory.
func TestEDIFACTReadOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("UNB+UNOC:3+S+R+261126:2305+1'\n")
	const n = 500
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "UNH+%d+ORDERS:D:96A:UN'\nBGM+220+SO-%d+9'\nNAD+SF+WH-LYON'\nNAD+DP+++Jeanne+1 rue+Lyon++69003+FR'\nLIN+1'\nPIA+5+SKU-1:SA'\nQTY+21:2'\nUNT+8+%d'\n", i, i, i)
	}
	fmt.Fprintf(&b, "UNZ+%d+1'\n", n)
	data := []byte(b.String())
	cr := &countingReader{r: bytes.NewReader(data)}
	var docs int
	sum, err := Decode(t.Context(), cr, int64(len(data)), "o.edi", Options{Edition: B}, func(d Doc) error {
		if d.Valid() {
			docs++
		}
		return nil
	})
	if err != nil || len(sum.FileIssues) > 0 || docs != n {
		t.Fatalf("%d valid documents of %d: %v %s", docs, n, err, dump(sum.FileIssues))
	}
	if cr.n > int64(len(data))+4096 {
		t.Errorf("read %d bytes of a %d-byte interchange: it was parsed more than once", cr.n, len(data))
	}
}
