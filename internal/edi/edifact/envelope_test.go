package edifact

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// ackTime is the clock of the acknowledgements the tests write.
var ackTime = time.Date(2026, 11, 26, 23, 30, 0, 0, time.UTC)

// describe renders what Read made of an interchange and the CONTRL that
// answers it.
func describe(t *testing.T, data []byte) string {
	t.Helper()
	var b strings.Builder
	ic, err := Read(bytes.NewReader(data), func(m *Message) error {
		fmt.Fprintf(&b, "message %s %s: %d segments:", m.Ref, m.ID, len(m.Segments))
		for _, s := range m.Segments {
			fmt.Fprintf(&b, " %d%s", s.Pos, s.Tag)
		}
		b.WriteString("\n")
		for _, s := range m.Segments {
			if s.Tag == "FTX" || s.Tag == "BGM" {
				fmt.Fprintf(&b, "  %s %q\n", s.Tag, s.Elems)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := ic.Header
	fmt.Fprintf(&b, "interchange %q %s:%s from %+v to %+v at %s %s, UNA %v %q, ack %v test %v\n",
		h.Ref, h.Syntax, h.SyntaxVersion, h.Sender, h.Recipient, h.Date, h.Time, h.UNA, h.Delims.UNA(), h.AckRequest, h.Test)
	for _, e := range ic.Errors {
		fmt.Fprintf(&b, "error %d: %v\n", e.Code, e)
	}
	var ack bytes.Buffer
	if err := WriteCONTRL(&ack, ic.Header, NewAck(ic, nil), "ACK1", ackTime); err != nil {
		t.Fatal(err)
	}
	b.WriteString("CONTRL:\n")
	b.Write(ack.Bytes())
	return b.String()
}

// TestEnvelopeGolden reads each interchange of testdata/envelopes, good and
// malformed (wrong counts, mismatched references, bad UNA, truncated
// segments...), and compares what was read, the problems and the CONTRL
// with NAME.golden.
func TestEnvelopeGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/envelopes/*.edi")
	if len(files) < 20 {
		t.Fatalf("only %d interchanges in testdata/envelopes", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := describe(t, data)
			golden := strings.TrimSuffix(f, ".edi") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n%s", f, golden, got)
			}
			// A malformed envelope is rejected whole.
			rejected := strings.Contains(got, "\nerror ")
			if wantReject := !strings.HasPrefix(filepath.Base(f), "good") && !strings.Contains("groups crlf one_line latin1 unow_utf8", strings.TrimSuffix(filepath.Base(f), ".edi")); rejected != wantReject {
				t.Errorf("%s: rejected %v, want %v", f, rejected, wantReject)
			}
			if rejected != regexp.MustCompile(`\nUCI\+[^']*\+4(\+|')`).MatchString(got) {
				t.Errorf("%s: the CONTRL does not say rejected (action 4) exactly when the interchange has errors", f)
			}
		})
	}
}
