package edifact

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzRead reads any bytes as an interchange: no panic, every problem
// named with a position and a code, and an accepted interchange written
// again by Writer with its own header reads back to the same segments.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/envelopes/*.edi")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []Message
		ic, err := Read(bytes.NewReader(data), func(m *Message) error {
			msgs = append(msgs, *m)
			return nil
		})
		if err != nil {
			t.Fatalf("reading bytes returned %v", err)
		}
		for _, e := range ic.Errors {
			if e.Pos < 1 || e.Code == 0 || e.Msg == "" {
				t.Fatalf("problem without position, code or message: %+v", e)
			}
		}
		var ack bytes.Buffer
		if err := WriteCONTRL(&ack, ic.Header, NewAck(ic, nil), "1", ackTime); err != nil && !ic.Rejected() {
			t.Fatalf("acknowledging an accepted interchange: %v", err)
		}
		if ic.Rejected() {
			return
		}
		var out bytes.Buffer
		wr := NewWriter(&out, ic.Header, ackTime, true)
		for _, m := range msgs {
			wr.Begin(m.Ref, m.ID)
			for _, s := range m.Segments[1 : len(m.Segments)-1] {
				wr.Segment(s.Tag, s.Elems...)
			}
			wr.End()
		}
		if err := wr.Close(); err != nil {
			t.Fatalf("writing an accepted interchange back: %v", err)
		}
		var again []Message
		ic2, err := Read(&out, func(m *Message) error {
			again = append(again, *m)
			return nil
		})
		if err != nil || ic2.Rejected() || len(again) != len(msgs) {
			t.Fatalf("written back, it reads as %+v (%v)\n%s", ic2.Errors, err, out.Bytes())
		}
		for i, m := range msgs {
			for j, s := range m.Segments {
				want := s.Elems
				if s.Tag == "UNH" {
					// The writer's UNH carries the reference and the
					// message identifier (Begin), not a common access
					// reference or a status of transfer.
					want = want[:min(len(want), 2)]
				}
				if j >= len(again[i].Segments) || !sameElems(want, again[i].Segments[j].Elems) && s.Tag != "UNT" {
					t.Fatalf("message %s segment %d: %q became %q", m.Ref, j+1, s.Elems, again[i].Segments[j].Elems)
				}
			}
		}
	})
}

// sameElems compares elements as EDIFACT means them: trailing empty
// components and elements say nothing.
func sameElems(a, b [][]string) bool {
	norm := func(x [][]string) [][]string {
		var out [][]string
		for _, e := range x {
			out = append(out, trimEmpty(slices.Clone(e)))
		}
		for len(out) > 0 && len(out[len(out)-1]) == 0 {
			out = out[:len(out)-1]
		}
		return out
	}
	return slices.EqualFunc(norm(a), norm(b), func(x, y []string) bool { return slices.Equal(x, y) })
}
