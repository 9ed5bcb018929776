package edifact

import (
	"bytes"
	"strings"
	"testing"

	"filebridge/internal/edi"
)

// TestWriter writes interchanges with values that need the release
// character, other service characters and character sets, and checks the
// bytes and that they read back.
func TestWriter(t *testing.T) {
	h := Header{Sender: Party{ID: "5412345000013", Qual: "14"}, Recipient: Party{ID: "WMS"}, Ref: "42"}
	for _, tc := range []struct {
		name    string
		h       func(Header) Header
		value   string
		want    string // the FTX segment
		wantErr string
	}{
		{name: "plain", value: "fragile", want: "FTX+AAI+++fragile'"},
		{name: "service characters released", value: "10+2: it's ok?", want: "FTX+AAI+++10?+2?: it?'s ok??'"},
		{name: "latin-1 in UNOC", value: "Müller", want: "FTX+AAI+++M\xfcller'"},
		{name: "UNOA refuses lower case", h: func(h Header) Header { h.Syntax = "UNOA"; return h }, value: "ok", wantErr: "not in the character set UNOA"},
		{name: "UNOW carries UTF-8", h: func(h Header) Header { h.Syntax, h.SyntaxVersion = "UNOW", "4"; return h }, value: "20 € ok", want: "FTX+AAI+++20 € ok'"},
		{name: "UNOC refuses what Latin-1 lacks", value: "20 €", wantErr: "not in the character set UNOC"},
		{name: "own UNA", h: func(h Header) Header { h.Delims = Delims{'^', '|', ',', '\\', '~'}; return h }, value: "a|b~c", want: "FTX|AAI|||a\\|b\\~c~"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hh := h
			if tc.h != nil {
				hh = tc.h(h)
			}
			var out bytes.Buffer
			wr := NewWriter(&out, hh, ackTime, true)
			wr.Begin("1", MessageID{Type: "ORDERS", Version: "D", Release: "96A", Agency: "UN"})
			wr.Segment("FTX", []string{"AAI"}, nil, nil, []string{tc.value})
			wr.End()
			err := wr.Close()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "\n"+tc.want+"\n") {
				t.Fatalf("no %q in\n%s", tc.want, out.String())
			}
			var got string
			ic, err := Read(&out, func(m *Message) error { got = m.Segments[1].Elem(4, 1); return nil })
			if err != nil || ic.Rejected() || got != tc.value {
				t.Fatalf("read back %q (%v %v)", got, err, ic.Errors)
			}
		})
	}
}

// TestContrlRefused acknowledges a sound interchange one of whose messages
// the portal refused: the interchange is accepted, that message rejected
// with the segment and element named (UCS, UCD), the other accepted.
func TestContrlRefused(t *testing.T) {
	data := []byte("UNB+UNOC:3+S:ZZ+R:ZZ+261126:2305+77'UNH+1+ORDERS:D:96A:UN'BGM+220+A'UNT+3+1'UNH+2+ORDERS:D:96A:UN'BGM+220+B'NAD+DP+++x+y+z++'UNT+4+2'UNZ+2+77'")
	ic, err := Read(bytes.NewReader(data), nil)
	if err != nil || ic.Rejected() {
		t.Fatal(err, ic.Errors)
	}
	refused := []*Error{{Level: LevelMessage, MsgRef: "2", Pos: 3, Tag: "NAD", Elem: 8, Code: CodeMissing, Msg: "postcode is empty"}}
	a := NewAck(ic, refused)
	if a.Status != edi.Accepted || a.Groups[0].Status != edi.Rejected || a.Groups[0].Accepted != 1 {
		t.Fatalf("ack %+v: want the interchange accepted, one message of two rejected", a)
	}
	var out bytes.Buffer
	if err := WriteCONTRL(&out, ic.Header, a, "9", ackTime); err != nil {
		t.Fatal(err)
	}
	want := "UNB+UNOC:3+R:ZZ+S:ZZ+261126:2330+9'\nUNH+1+CONTRL:D:3:UN'\nUCI+77+S:ZZ+R:ZZ+7'\nUCM+1+ORDERS:D:96A:UN+7'\nUCM+2+ORDERS:D:96A:UN+4'\nUCS+3'\nUCD+13+8'\nUNT+7+1'\nUNZ+1+9'\n"
	if out.String() != want {
		t.Fatalf("CONTRL\n%s\nwant\n%s", out.String(), want)
	}
}
