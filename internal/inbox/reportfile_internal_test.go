package inbox

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/gocarina/gocsv"

	"filebridge/internal/formats"
)

// TestReportRoundTrip writes report lines with gocsv and reads them back
// into the same struct: keys such as "010" and empty cells stay strings,
// formula cells are neutralised on disk and restored by ReadReport.
func TestReportRoundTrip(t *testing.T) {
	lines := []ReportLine{
		{Row: "2", Key: "010", Result: "created", PortalID: "0042", Message: ""},
		{Row: "3-5", Key: "", Result: "invalid", PortalID: "", Message: `line 3, column "qty" (value "x"): must be a number`},
		{Row: "6", Key: "=cmd|' /C calc'!A0", Result: "invalid", Message: "@SUM(A1)"},
		{Row: "7", Key: "-5", Result: "exists", PortalID: "7", Message: "+1 warning; with \"quotes\", commas; and\nnewline"},
		{Row: "", Key: "\tTAB", Result: "note", Message: "\rcarriage"},
	}
	for _, delim := range []rune{',', ';', '\t'} {
		t.Run(string(delim), func(t *testing.T) {
			var buf bytes.Buffer
			rw, err := newReportWriter(&buf, delim)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				if err := rw.add(l); err != nil {
					t.Fatal(err)
				}
			}
			if err := rw.flush(); err != nil {
				t.Fatal(err)
			}
			raw := buf.String()
			if !strings.HasPrefix(raw, "\uFEFFrow"+string(delim)+"key") {
				t.Fatalf("report starts %q, want a BOM and the header", raw[:min(len(raw), 20)])
			}
			for _, want := range []string{"'=cmd|", "'@SUM", "'\tTAB", "'+1 warning"} {
				if !strings.Contains(raw, want) {
					t.Errorf("report lacks the neutralised cell %q:\n%s", want, raw)
				}
			}
			if strings.Contains(raw, "'-5") {
				t.Errorf("the number -5 was neutralised:\n%s", raw)
			}
			var got []ReportLine
			if err := ReadReport(strings.NewReader(raw), func(l ReportLine) error { got = append(got, l); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(lines) {
				t.Fatalf("read %d lines, want %d: %+v", len(got), len(lines), got)
			}
			for i := range lines {
				if got[i] != lines[i] {
					t.Errorf("line %d: read %+v, want %+v", i, got[i], lines[i])
				}
			}
		})
	}
}

func TestNeutralize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {"=1+1", "'=1+1"}, {"+33 6 12", "'+33 6 12"}, {"-", "'-"},
		{"@x", "'@x"}, {"\tx", "'\tx"}, {"\rx", "'\rx"}, {"-5", "-5"}, {"+3", "+3"}, {"-1,5", "-1,5"},
		{"-1.5.2", "'-1.5.2"}, {"-2+3", "'-2+3"}, {"'=x", "'=x"},
	}
	for _, c := range cases {
		if got := neutralize(c.in); got != c.want {
			t.Errorf("neutralize(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.in != "" && c.in[0] != '\'' {
			if back := unneutralize(neutralize(c.in)); back != c.in {
				t.Errorf("unneutralize(neutralize(%q)) = %q", c.in, back)
			}
		}
	}
}

// TestRowMessages: each row of a failed document gets its own problems,
// once, or why its document failed.
func TestRowMessages(t *testing.T) {
	is := func(row int, msg string) formats.Issue {
		return formats.Issue{Row: row, Column: "quantity", Value: "0", Message: msg}
	}
	for _, tt := range []struct {
		name string
		doc  formats.Doc
		want []rowMessage
	}{
		{"one row", formats.Doc{Rows: []int{2}, Issues: []formats.Issue{is(2, "must be greater than 0")}},
			[]rowMessage{{2, `line 2, column "quantity" (value "0"): must be greater than 0`}}},
		{"a fine row of a failed order", formats.Doc{Rows: []int{4, 7}, Issues: []formats.Issue{is(7, "bad")}},
			[]rowMessage{{4, "this row is fine, but its order failed: the order"}, {7, `line 7, column "quantity" (value "0"): bad`}}},
		{"refused by the portal", formats.Doc{Rows: []int{3}}, []rowMessage{{3, "the order"}}},
		{"a row listed twice", formats.Doc{Rows: []int{5, 5}, Issues: []formats.Issue{is(5, "bad"), is(5, "worse")}},
			[]rowMessage{{5, `line 5, column "quantity" (value "0"): bad; line 5, column "quantity" (value "0"): worse`}}},
		{"warnings only", formats.Doc{Rows: []int{6}, Issues: []formats.Issue{{Row: 6, Message: "odd", Warning: true}}},
			[]rowMessage{{6, "the order"}}},
	} {
		var got []rowMessage
		rowMessages(tt.doc, "the order", func(row int, msg string) { got = append(got, rowMessage{row, msg}) })
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

// ReadReport reads a NAME.report.csv written by filebridge (any delimiter,
// with or without byte order mark) and calls fn with each line, the
// spreadsheet neutralisation undone. It stops at fn's first error.
func ReadReport(r io.Reader, fn func(ReportLine) error) error {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\uFEFF")) {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.Comma = ','
	if b, err := br.Peek(4); err == nil && string(b[:3]) == "row" && b[3] != ',' {
		cr.Comma = rune(b[3]) // the file's own delimiter (";", tab)
	}
	cr.FieldsPerRecord = -1
	var ferr error
	err := gocsv.UnmarshalDecoderToCallback(gocsv.NewSimpleDecoderFromCSVReader(cr), func(l ReportLine) {
		if ferr != nil {
			return // drain: gocsv's callback cannot stop the read
		}
		l.Row, l.Key, l.Result = unneutralize(l.Row), unneutralize(l.Key), unneutralize(l.Result)
		l.PortalID, l.Message = unneutralize(l.PortalID), unneutralize(l.Message)
		ferr = fn(l)
	})
	if err != nil {
		return fmt.Errorf("reading a report: %w", err)
	}
	return ferr
}

// unneutralize undoes neutralize: a leading apostrophe is dropped only
// where it precedes one of the formula characters.
func unneutralize(s string) string {
	if len(s) >= 2 && s[0] == '\'' && strings.IndexByte("=+-@\t\r", s[1]) >= 0 {
		return s[1:]
	}
	return s
}
