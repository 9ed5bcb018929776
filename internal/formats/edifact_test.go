package formats

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/edi/edifact"
	"filebridge/internal/model"
	"filebridge/internal/templates/gentest"
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

// TestEDIFACTSamples composes, from each inbound table and the example
// values of the edition's columns, a sample interchange of two line items
// (samples/edi/EDITION/MESSAGE.edi, kept up to date by -update-edi),
// checks that the message maps back onto the same rows, and that
// filebridge reads it as one valid document.
func TestEDIFACTSamples(t *testing.T) {
	for _, e := range []model.Edition{A, B} {
		for _, tab := range edifact.Tables {
			t.Run(string(e)+"/"+tab.Set, func(t *testing.T) {
				dt, err := model.LookupDocType(e, tab.DocType)
				if err != nil {
					t.Fatal(err)
				}
				_, cols, err := edifact.TableFor(e, tab.Set, dt)
				if err != nil {
					t.Fatal(err)
				}
				spec, _ := model.SpecFor(e, dt.Kind)
				rows := make([][]string, 2)
				for i := range rows {
					for _, c := range cols {
						f, _ := spec.Field(c)
						v := f.Example
						if c == "position" {
							v = strconv.Itoa(i + 1)
						}
						if c == "sku" && i == 1 && dt.Grouped {
							v += "-B"
						}
						rows[i] = append(rows[i], v)
					}
				}
				if !dt.Grouped {
					rows = rows[:1]
				}
				// Columns that read one element (BGM02: orderNumber and
				// externalOrderNumber) hold the first one's value.
				type place struct {
					tag  string
					q    edi.Qualifier
					e, c int
				}
				first := map[place]string{}
				for _, f := range tab.Fields {
					p := place{f.Tag, f.Qual, f.Elem, f.Comp}
					ci := slices.Index(cols, f.Column)
					if ci < 0 {
						continue
					}
					if c, ok := first[p]; ok {
						for i := range rows {
							rows[i][ci] = rows[i][slices.Index(cols, c)]
						}
						continue
					}
					first[p] = f.Column
				}
				body := tab.Compose(cols, rows)
				msg := append([]edi.Segment{{Tag: "UNH"}}, append(body, edi.Segment{Tag: "UNT"})...)
				for i := range msg {
					msg[i].Pos = i + 1
				}
				back := tab.Rows(msg, cols)
				if len(back) != len(rows) {
					t.Fatalf("%d rows back, want %d", len(back), len(rows))
				}
				for i := range rows {
					for ci, c := range cols {
						if back[i].Cells[ci] != rows[i][ci] {
							t.Errorf("row %d column %s: composed %q, mapped back %q", i+1, c, rows[i][ci], back[i].Cells[ci])
						}
					}
				}
				var out bytes.Buffer
				wr := edifact.NewWriter(&out, edifact.Header{Sender: edifact.Party{ID: "5412345000013", Qual: "14"},
					Recipient: edifact.Party{ID: "FILEBRIDGE", Qual: "ZZ"}, Ref: "1", Date: "261126", Time: "1200"}, time.Time{}, true)
				wr.Begin("1", edifact.MessageID{Type: tab.Set, Version: "D", Release: "96A", Agency: "UN"})
				for _, s := range body {
					wr.Segment(s.Tag, s.Elems...)
				}
				wr.End()
				if err := wr.Close(); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("..", "..", "samples", "edi", string(e), tab.Set+".edi")
				if *updateEDI {
					os.MkdirAll(filepath.Dir(path), 0o755)
				}
				gentest.UpToDate(t, path, out.String(), *updateEDI, "go test ./internal/formats -run TestEDIFACTSamples -update-edi")
				opts := Options{Edition: e}
				if e == A && dt.Grouped {
					opts.Defaults = map[string]string{"warehouseLocation": "3"}
				}
				res := decodeBytes(t, tab.Set+".edi", out.Bytes(), opts)
				if res.err != nil || len(res.sum.FileIssues) > 0 {
					t.Fatalf("%v %s", res.err, dump(res.sum.FileIssues))
				}
				if len(res.docs) == 0 {
					t.Fatal("no document")
				}
				for _, d := range res.docs {
					if !d.Valid() || len(d.Issues) > 0 {
						t.Errorf("document %s: %s", d.Key, dump(d.Issues))
					}
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
			if strings.Contains(tc.file, "d01b") {
				refused = append(refused, Refusal{Msg: "the file has errors"}) // the whole file
			}
			for _, d := range res.docs {
				for _, is := range d.Issues {
					refused = append(refused, Refusal{Row: is.Row, Column: is.Column, Msg: is.Message})
				}
			}
			ic, err := edifact.Read(bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			ack, err := EDIFACTAckOf(bytes.NewReader(data), int64(len(data)), opts, ic, refused, "99", now)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(ack.Data), "\n"+tc.want) || !strings.Contains(string(ack.Data), "UNH+1+CONTRL:D:3:UN'") {
				t.Errorf("CONTRL\n%s\nwant\n%s", ack.Data, tc.want)
			}
		})
	}
}
