package x12

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"filebridge/internal/edi"
)

// FuzzParse feeds the tokenizer arbitrary bytes: it never panics, a
// rejected interchange always has a rejecting acknowledgement, an accepted
// one reads the same set by set (ParseEnvelope, ReadSet), and written back
// with filebridge's separators it parses to the same segments.
func FuzzParse(f *testing.F) {
	good := readTestdata(f, "940.x12")
	f.Add(good)
	f.Add(bytes.ReplaceAll(good, []byte("~\n"), []byte("\n")))
	f.Add([]byte(strings.Replace(string(good), "SE*14*0001", "SE*13*0001", 1)))
	f.Add(good[:200])
	f.Fuzz(func(t *testing.T, data []byte) {
		ic, ack, err := Parse(data)
		if err != nil {
			if ack.Status == 0 && !anyRejected(ack) {
				t.Fatalf("error %v with an accepting acknowledgement", err)
			}
			return
		}
		// Read set by set, the interchange is the same.
		bySet, _, err := ParseEnvelope(data)
		if err != nil {
			t.Fatalf("Parse accepts what ParseEnvelope refuses: %v", err)
		}
		for gi := range bySet.Groups {
			for si := range bySet.Groups[gi].Sets {
				s := &bySet.Groups[gi].Sets[si]
				if err := bySet.ReadSet(data, s); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(s.Segments, ic.Groups[gi].Sets[si].Segments) {
					t.Fatalf("set %d.%d read again differs", gi, si)
				}
			}
		}
		var sets []OutSet
		for _, g := range ic.Groups[:min(1, len(ic.Groups))] {
			for _, s := range g.Sets {
				if _, ok := FuncIDs[s.ID]; !ok {
					return
				}
				sets = append(sets, OutSet{ID: s.ID, Body: s.Body()})
			}
		}
		if len(ic.Groups) != 1 || len(sets) == 0 {
			return
		}
		var out bytes.Buffer
		env := Envelope{Sender: ic.Sender, Receiver: ic.Receiver, Control: 1, Time: time.Unix(0, 0)}
		if err := Write(&out, env, nil, sets); err != nil {
			return // a value holding one of our separators, or an identity too long
		}
		back, _, err := Parse(out.Bytes())
		if err != nil {
			t.Fatalf("written back, the interchange does not parse: %v\n%s", err, out.Bytes())
		}
		for i, s := range back.Groups[0].Sets {
			if !sameBody(s.Body(), sets[i].Body) {
				t.Fatalf("set %d differs after writing back:\n%+v\n%+v", i, s.Body(), sets[i].Body)
			}
		}
	})
}

// sameBody compares segments by tag and values, trailing empty elements
// and components aside (the writer leaves them out).
func sameBody(a, b []edi.Segment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Tag != b[i].Tag || !reflect.DeepEqual(trim(a[i].Elems), trim(b[i].Elems)) {
			return false
		}
	}
	return true
}

func trim(es [][]string) [][]string {
	out := make([][]string, 0, len(es))
	for _, cs := range es {
		n := len(cs)
		for n > 1 && cs[n-1] == "" {
			n--
		}
		out = append(out, cs[:n])
	}
	n := len(out)
	for n > 0 && len(out[n-1]) == 1 && out[n-1][0] == "" {
		n--
	}
	return out[:n]
}
