package x12

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"filebridge/internal/edi"
	"filebridge/internal/templates/gentest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	gentest.Golden(t, filepath.Join("testdata", name), got, *update, "-update")
}

func TestParseGood(t *testing.T) {
	ic, ack, err := Parse(readTestdata(t, "940.x12"))
	if err != nil {
		t.Fatal(err)
	}
	if ic.Sender.ID != "SHOPERP" || ic.Receiver.ID != "WAREHOUSE" || ic.Control != "000000101" || !ic.AckRequested || ic.Test {
		t.Errorf("interchange %+v", ic)
	}
	if len(ic.Groups) != 1 || len(ic.Groups[0].Sets) != 2 {
		t.Fatalf("groups %+v", ic.Groups)
	}
	s := ic.Groups[0].Sets[0]
	if s.ID != "940" || s.Control != "0001" || len(s.Segments) != 14 {
		t.Errorf("set %s %s with %d segments", s.ID, s.Control, len(s.Segments))
	}
	n4 := s.Segments[4]
	if n4.Tag != "N4" || n4.Pos != 5 || n4.Line != 7 || n4.Value(3) != "75002" {
		t.Errorf("N4 %+v", n4)
	}
	if ack.Status != edi.Accepted || ack.Groups[0].Status != edi.Accepted || ack.Groups[0].Accepted != 2 {
		t.Errorf("ack %+v", ack)
	}
}

// TestSeparators reads the same interchange written with other separators,
// one segment per line without a terminator character, and in 005010 with
// a repetition separator.
func TestSeparators(t *testing.T) {
	good := string(readTestdata(t, "940.x12"))
	for _, tc := range []struct {
		name       string
		el, co, sg string
	}{
		{"pipe colon newline", "|", ":", "\n"},
		{"plus caret quote", "+", "^", "'"},
		{"bell-like controls", "\x1d", "\x1f", "\x1c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.ReplaceAll(good, "~\n", "\x00")
			s = strings.ReplaceAll(s, "*", tc.el)
			s = strings.ReplaceAll(s, ">", tc.co)
			s = strings.ReplaceAll(s, "\x00", tc.sg)
			ic, _, err := Parse([]byte(s))
			if err != nil {
				t.Fatal(err)
			}
			if got := ic.Groups[0].Sets[1].Segments[3].Value(1); got != "3 Main Street" {
				t.Errorf("N302 of set 2 = %q", got)
			}
			if ic.Delims.Element != tc.el[0] || ic.Delims.Component != tc.co[0] || ic.Delims.Segment != tc.sg[0] {
				t.Errorf("delimiters %+v", ic.Delims)
			}
		})
	}
	s := strings.Replace(good, "*U*00401*", "*^*00501*", 1)
	ic, _, err := Parse([]byte(s))
	if err != nil || ic.Delims.Repetition != '^' {
		t.Fatalf("005010: %v, delimiters %+v", err, ic.Delims)
	}
}

// TestMalformedEnvelopes checks that each broken envelope is refused whole
// with the error a clerk reads and the 997/TA1 the partner gets (golden).
func TestMalformedEnvelopes(t *testing.T) {
	good := string(readTestdata(t, "940.x12"))
	for _, tc := range []struct {
		name     string
		old, new string // replaced once in the good interchange
		wantErr  string
	}{
		{"se-count", "SE*14*0001", "SE*13*0001", "SE01 says \"13\" segments, the set has 14"},
		{"se-control", "SE*10*0002", "SE*10*0003", "SE02 (\"0003\") is not ST02's (\"0002\")"},
		{"ge-count", "GE*2*101", "GE*3*101", "GE01 says \"3\" transaction sets, the group has 2"},
		{"ge-control", "GE*2*101", "GE*2*102", "GE02 (\"102\") is not GS06's (\"101\")"},
		{"iea-count", "IEA*1*", "IEA*2*", "IEA01 says \"2\" functional groups"},
		{"iea-control", "IEA*1*000000101", "IEA*1*000000102", "IEA02 (\"000000102\") is not ISA13's"},
		{"truncated", "GE*2*101~\nIEA*1*000000101~\n", "GE*2*101~\nIEA*1*0000", "segment 28 IEA: the file ends inside this segment"},
		{"no-iea", "IEA*1*000000101~\n", "", "has no IEA trailer"},
		{"bad-element-separator", "ISA*00*", "ISA000*", "element separator '0'"},
		{"component-is-element", "*P*>~", "*P***", "component separator '*'"},
		{"short-isa-field", "*ZZ*SHOPERP        *", "*ZZ*SHOPERP       *", "ISA06 is 14 characters long, not 15"},
		{"missing-se", "W76*5~\nSE*10*0002~\n", "W76*5~\n", "has no SE trailer before GE"},
		{"bad-tag", "N3*3 Main Street", "N3 3 Main Street", "is not a segment tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.old) {
				t.Fatalf("%q not in the good interchange", tc.old)
			}
			in := strings.Replace(good, tc.old, tc.new, 1)
			_, ack, err := Parse([]byte(in))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
			}
			if ack.Status != edi.Rejected && !anyRejected(ack) {
				t.Errorf("ack accepts the interchange: %+v", ack)
			}
			var out bytes.Buffer
			out.WriteString("error: " + err.Error() + "\n")
			env, pre, sets, ok := AckEnvelope(ack, true)
			if ok {
				env.Control, env.Time = 7, time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)
				if err := Write(&out, env, pre, sets); err != nil {
					t.Fatal(err)
				}
				// The acknowledgement is itself a good interchange.
				if _, _, err := Parse(out.Bytes()[bytes.IndexByte(out.Bytes(), '\n')+1:]); err != nil {
					t.Errorf("the acknowledgement does not parse: %v", err)
				}
			} else {
				out.WriteString("(no acknowledgement: the ISA names no partner)\n")
			}
			golden(t, filepath.Join("envelope", tc.name+".golden"), out.Bytes())
		})
	}
}

func anyRejected(ack *edi.InterchangeAck) bool {
	for _, g := range ack.Groups {
		if g.Status == edi.Rejected {
			return true
		}
	}
	return false
}

func TestWriteRoundTrip(t *testing.T) {
	ic, _, err := Parse(readTestdata(t, "940.x12"))
	if err != nil {
		t.Fatal(err)
	}
	var sets []OutSet
	for _, s := range ic.Groups[0].Sets {
		sets = append(sets, OutSet{ID: s.ID, Body: s.Body()})
	}
	env := Envelope{Sender: ic.Sender, Receiver: ic.Receiver, Control: 101, AckRequested: true,
		Time: time.Date(2026, 11, 26, 23, 0, 0, 0, time.UTC)}
	var out bytes.Buffer
	if err := Write(&out, env, nil, sets); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), string(readTestdata(t, "940.x12")); got != want {
		t.Errorf("written back:\n%s\nwant:\n%s", got, want)
	}
	bad := []OutSet{{ID: "945", Body: []edi.Segment{Seg("N1", "ST", "A*B")}}}
	if err := Write(&out, env, nil, bad); err == nil || !strings.Contains(err.Error(), "N102") {
		t.Errorf("a value with a separator: %v", err)
	}
}

// TestParseEnvelope: ParseEnvelope keeps no segment, and ReadSet reads
// each set again as Parse does (positions and lines too), whatever the
// leading space and byte order mark.
func TestParseEnvelope(t *testing.T) {
	for _, prefix := range []string{"", "\n \ufeff"} {
		data := append([]byte(prefix), readTestdata(t, "940.x12")...)
		full, _, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		env, _, err := ParseEnvelope(data)
		if err != nil {
			t.Fatal(err)
		}
		for i := range env.Groups[0].Sets {
			s := &env.Groups[0].Sets[i]
			if s.Segments != nil {
				t.Fatalf("set %d kept its segments", i)
			}
			if err := env.ReadSet(data, s); err != nil {
				t.Fatal(err)
			}
			if want := full.Groups[0].Sets[i].Segments; !reflect.DeepEqual(s.Segments, want) || s.Count != len(want) {
				t.Errorf("prefix %q, set %d read again:\n%+v\nwant\n%+v", prefix, i, s.Segments, want)
			}
		}
	}
}
