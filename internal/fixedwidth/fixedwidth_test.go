package fixedwidth

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	known := func(name string) string {
		if name == "skuu" {
			return `"skuu" is not a column of skus (edition A); did you mean "sku"?`
		}
		return ""
	}
	tests := []struct {
		name string
		l    Layout
		want []string
	}{
		{"good", Layout{Fields: []Field{{Name: "sku", Start: 1, Length: 10}, {Name: "quantity", Start: 11, Length: 9, Decimals: 2}}}, nil},
		{"empty", Layout{}, []string{"layout is empty: give each column its name, start and length, e.g. layout = [{ name = \"sku\", start = 1, length = 20 }]"}},
		{"overlap", Layout{Fields: []Field{{Name: "sku", Start: 1, Length: 10}, {Name: "name", Start: 5, Length: 10}}},
			[]string{"layout: columns 1–10 (sku) overlaps columns 5–14 (name): give each column its own characters"}},
		{"zero length, bad start, unknown, duplicate", Layout{Fields: []Field{{Name: "skuu", Start: 0, Length: 0}, {Name: "x", Start: 3, Length: 2}, {Name: "x", Start: 5, Length: 2, Decimals: 2}}},
			[]string{
				`layout[0] (skuu): "skuu" is not a column of skus (edition A); did you mean "sku"?`,
				"layout[0] (skuu): start 0: the first character of a line is 1",
				"layout[0] (skuu): length 0: a column needs at least 1 character",
				`layout[2] (x): "x" is already layout[1]: each column once`,
				"layout[2] (x): decimals 2: between 0 and 1 (the length less one)",
			}},
		{"records", Layout{Record: &RecordType{Start: 1, Length: 1, Header: "H", Skip: []string{"T"}}, Fields: []Field{
			{Name: "orderNumber", Start: 2, Length: 10, Record: "H"}, {Name: "sku", Start: 2, Length: 10, Record: "D"}}}, nil},
		{"records wrong", Layout{Record: &RecordType{Start: 1, Length: 1, Header: "H"}, Fields: []Field{
			{Name: "orderNumber", Start: 1, Length: 10, Record: "H"}, {Name: "sku", Start: 2, Length: 10}, {Name: "quantity", Start: 12, Length: 3, Record: "DD"}}},
			[]string{
				"layout[1] (sku): record is required with record_type: the code of the records the column is on",
				`layout[2] (quantity): record "DD" is longer than record_type's length 1`,
				`layout: every column is on header records "H": put the line columns on the records that make the rows`,
				"layout: columns 1–10 (orderNumber) overlaps column 1 (record type): give each column its own characters",
			}},
		{"record without record_type", Layout{Fields: []Field{{Name: "sku", Start: 1, Length: 10, Record: "D"}}},
			[]string{`layout[0] (sku): record "D" is set but there is no record_type: add record_type = { start = 1, length = 1 } to the route, saying where the code is`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.l.Check(known)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestImplied(t *testing.T) {
	tests := []struct {
		in       string
		decimals int
		comma    bool
		want     string
		ok       bool
	}{
		{"000001250", 2, false, "12.50", true},
		{"000001250", 2, true, "12,50", true},
		{"5", 3, false, "0.005", true},
		{"-00001250", 2, false, "-12.50", true},
		{"00001250-", 2, false, "-12.50", true},
		{"-0000", 2, false, "0.00", true},
		{"   125", 1, false, "12.5", true},
		{"", 2, false, "", true},
		{"12.50", 2, false, "", false},
		{"-", 2, false, "", false},
		{"1 2", 2, false, "", false},
	}
	for _, tt := range tests {
		got, ok := Implied(tt.in, tt.decimals, tt.comma)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Implied(%q, %d, %v) = %q, %v; want %q, %v", tt.in, tt.decimals, tt.comma, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPad(t *testing.T) {
	tests := []struct {
		f       Field
		number  bool
		in      string
		want    string
		tooLong bool
	}{
		{Field{Name: "q", Start: 1, Length: 9, Decimals: 2}, true, "12.5", "000001250", false},
		{Field{Name: "q", Start: 1, Length: 9, Decimals: 2}, true, "-12.5", "-00001250", false},
		{Field{Name: "q", Start: 1, Length: 6}, true, "42", "000042", false},
		{Field{Name: "q", Start: 1, Length: 6}, true, "0", "000000", false},
		{Field{Name: "q", Start: 1, Length: 4, Decimals: 1}, true, "1.25", "", true},
		{Field{Name: "q", Start: 1, Length: 3}, true, "1234", "", true},
		{Field{Name: "q", Start: 1, Length: 3}, true, "-123", "", true},
		{Field{Name: "n", Start: 1, Length: 6}, false, "Köln", "Köln  ", false},
		{Field{Name: "n", Start: 1, Length: 3}, false, "Köln", "", true},
		{Field{Name: "n", Start: 1, Length: 3, Truncate: true}, false, "Köln", "Köl", false},
	}
	for _, tt := range tests {
		pad := PadText
		if tt.number {
			pad = PadNumber
		}
		got, err := pad(tt.f, tt.in)
		if got != tt.want || errors.Is(err, ErrTooLong) != tt.tooLong {
			t.Errorf("pad(%+v, %q) = %q, %v; want %q (too long %v)", tt.f, tt.in, got, err, tt.want, tt.tooLong)
		}
	}
	l := Layout{Fields: []Field{{Name: "sku", Start: 1, Length: 4}, {Name: "q", Start: 7, Length: 3}}}
	var b strings.Builder
	l.Line(&b, []string{"AB  ", "007"})
	if b.String() != "AB    007" {
		t.Fatalf("line %q", b.String())
	}
}

// TestCut: a line cut by a layout, trailing spaces trimmed, implied
// decimals read, short and long lines reported with their columns.
func TestCut(t *testing.T) {
	l := Layout{Fields: []Field{{Name: "sku", Start: 1, Length: 6}, {Name: "quantity", Start: 7, Length: 5, Decimals: 2}}}
	tests := []struct {
		line, cells, problem string
	}{
		{"4711  01250", "4711|12.50", ""},
		{"4711  01250\r", "4711|12.50", ""},
		{"Köln€ 01250", "Köln€|12.50", ""},
		{"Köln€ 012", "Köln€|0.12", "columns 7–11 (quantity): the line ends at column 9, the layout needs 11 characters: check that the file was not cut or its lines not trimmed"},
		{"4711  012", "4711|0.12", "columns 7–11 (quantity): the line ends at column 9, the layout needs 11 characters: check that the file was not cut or its lines not trimmed"},
		{"4711  01250   ", "4711|12.50", ""},
		{"4711  01250 XY", "4711|12.50", `columns 12–14: 3 characters past the layout's last column 11 (" XY"): the line is longer than the layout; check the starts and lengths`},
		{"4711  0A250", "4711|0A250", `columns 7–11 (quantity): "0A250" is not a number: the layout gives it 2 implied decimals, so it holds digits only (and a sign), e.g. 01250 for 12.50`},
	}
	c := NewCutter(l, false)
	for _, tt := range tests {
		cells, row, problem := c.Cut(tt.line)
		if !row || strings.Join(cells, "|") != tt.cells || problem != tt.problem {
			t.Errorf("Cut(%q) = %q, %v, %q; want %q, %q", tt.line, cells, row, problem, tt.cells, tt.problem)
		}
		if reported := tt.problem != "" && !strings.Contains(tt.problem, "past the layout"); reported != (len(c.Reported) == 1 && c.Reported[0] == 1) {
			t.Errorf("Cut(%q): fields reported %v", tt.line, c.Reported)
		}
	}
}

// TestCutRecords: with record types, header records carry their columns
// onto the line records after them, skipped codes make no row, and an
// unknown code or a line before any header is a broken row.
func TestCutRecords(t *testing.T) {
	l := Layout{
		Record: &RecordType{Start: 1, Length: 1, Header: "H", Skip: []string{"T"}},
		Fields: []Field{
			{Name: "orderNumber", Start: 2, Length: 5, Record: "H"},
			{Name: "sku", Start: 2, Length: 4, Record: "D"},
			{Name: "quantity", Start: 6, Length: 3, Record: "D"},
		},
	}
	c := NewCutter(l, false)
	tests := []struct {
		line   string
		row    bool
		cells  string
		broken bool
		prob   string
	}{
		{"DA1  002", true, "|A1|002", true, `the line comes before any header record "H": the columns of its order are not known`},
		{"HSO-1 ", false, "", false, ""},
		{"DA1  002", true, "SO-1|A1|002", false, ""},
		{"DB2  010", true, "SO-1|B2|010", false, ""},
		{"T00002", false, "", false, ""},
		{"X", true, "||", true, `column 1 (record type): record type "X" is none of the layout's ("H", "D"): add it to record_type.skip if its lines are not to be read`},
		{"HSO", true, "SO||", true, "columns 2–6 (orderNumber): the line ends at column 3, the layout needs 6 characters: check that the file was not cut or its lines not trimmed"},
		{"DC3  001", true, "SO|C3|001", false, ""},
	}
	for _, tt := range tests {
		cells, row, prob := c.Cut(tt.line)
		if row != tt.row || strings.Join(cells, "|") != tt.cells || c.Broken != tt.broken || prob != tt.prob {
			t.Errorf("Cut(%q) = %q, row %v, broken %v, %q; want %q, %v, %v, %q", tt.line, cells, row, c.Broken, prob, tt.cells, tt.row, tt.broken, tt.prob)
		}
	}
}
