package formats

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/text/encoding/charmap"

	"filebridge/internal/model"
)

func cp1252(s string) []byte {
	b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(err)
	}
	return b
}

// partnerRows decodes a file of Edition A suppliers and returns each
// supplier as "code|name", with every issue.
func partnerRows(t *testing.T, data []byte, opts Options) ([]string, []Issue) {
	t.Helper()
	opts.Edition, opts.Type = A, "suppliers"
	res := decodeBytes(t, "SUPPLIERS.csv", data, opts)
	if res.err != nil {
		t.Fatal(res.err)
	}
	var got []string
	for _, d := range res.docs {
		if d.Partner != nil {
			got = append(got, d.Partner.Code+"|"+d.Partner.Name)
		}
	}
	return got, res.all()
}

// TestExcelTextMarker: the apostrophe Excel and ERPs put before a code
// with leading zeros ('01000) or a phone number ('+31...) is not part of
// the value; in a name ('s-Hertogenbosch, O'Brien) it is.
func TestExcelTextMarker(t *testing.T) {
	data := []byte("code,name,relationship\n" +
		"'01000,'s-Hertogenbosch,Manufacturer\n" +
		"'00123,'+31 20 123 4567,Manufacturer\n" +
		"' 0042,O'Brien,Manufacturer\n")
	got, issues := partnerRows(t, data, Options{})
	want := []string{"01000|'s-Hertogenbosch", "00123|+31 20 123 4567", "' 0042|O'Brien"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(issues) != 0 {
		t.Errorf("got %q, want %q%s", got, want, dump(issues))
	}
}

// TestCharsetMismatch: a file whose bytes do not fit the route's charset
// is an error naming the line, the character and the charset that fits;
// a file in its charset is read as the clerk sees it, whatever the reads
// cut its multi-byte sequences.
func TestCharsetMismatch(t *testing.T) {
	const head = "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n"
	tests := []struct {
		name    string
		charset string
		data    []byte
		want    string // the file issue; "" none
		rows    []string
	}{
		{"utf-8 in windows-1252", "windows-1252", []byte(head + "SUP-B,Café Müller,Manufacturer\n"),
			`SUPPLIERS.csv line 3, column "name" (value "Café Müller"): the file looks like UTF-8, not windows-1252: line 3 holds "é" written as UTF-8 (bytes C3 A9), which windows-1252 reads as "Ã©"; set charset = "utf-8" on the route`, nil},
		{"utf-8 in iso-8859-1", "iso-8859-1", []byte(head + "SUP-B,Łódź,Manufacturer\n"),
			`SUPPLIERS.csv line 3, column "name" (value "Łódź"): the file looks like UTF-8, not iso-8859-1: line 3 holds "Ł" written as UTF-8 (bytes C5 81), which iso-8859-1 reads as "Å\u0081"`, nil},
		{"windows-1252 in iso-8859-1", "iso-8859-1", cp1252(head + "SUP-B,Caf\u00e9 \u201cM\u00fcller\u201d \u2013 \u20ac,Manufacturer\n"),
			`SUPPLIERS.csv line 3, column "name" (value "Café “Müller” – €"): the file looks like Windows-1252, not iso-8859-1: line 3 holds the byte 0x93, a control character in iso-8859-1 but "“" in windows-1252; set charset = "windows-1252" on the route`, nil},
		{"utf-8 in windows-1252, CR-only lines", "windows-1252", []byte(strings.ReplaceAll(head+"SUP-B,Café,Manufacturer", "\n", "\r")),
			`SUPPLIERS.csv line 3, column "name" (value "Café"): the file looks like UTF-8, not windows-1252`, nil},
		{"windows-1252", "windows-1252", cp1252(head + "SUP-B,Caf\u00e9 \u201cM\u00fcller\u201d \u2013 \u20ac,Manufacturer\n"),
			"", []string{"SUP-A|Supplier A", "SUP-B|Café “Müller” – €"}},
		{"latin-1", "iso-8859-1", cp1252(head + "SUP-B,Café Müller,Manufacturer\n"),
			"", []string{"SUP-A|Supplier A", "SUP-B|Café Müller"}},
		{"ascii", "windows-1252", []byte(head), "", []string{"SUP-A|Supplier A"}},
		// A byte order mark says UTF-8 whatever the route says.
		{"utf-8 with BOM", "windows-1252", []byte("\uFEFF" + head + "SUP-B,Café,Manufacturer\n"),
			"", []string{"SUP-A|Supplier A", "SUP-B|Café"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, issues := partnerRows(t, tt.data, Options{Charset: tt.charset})
			var msgs []string
			for _, is := range issues {
				msgs = append(msgs, is.Error())
			}
			if tt.want == "" {
				if len(msgs) != 0 || strings.Join(got, "\n") != strings.Join(tt.rows, "\n") {
					t.Errorf("got %q, issues %q; want %q", got, msgs, tt.rows)
				}
				return
			}
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0], tt.want) {
				t.Errorf("issues %q\nwant one starting %q", msgs, tt.want)
			}
		})
	}
}

// TestCharsetWatchReads: the watch finds the same sequence and line
// whatever the sizes of the reads.
func TestCharsetWatchReads(t *testing.T) {
	for _, data := range [][]byte{
		[]byte("a\nb\nxx€\n"),
		append([]byte("a\nb\nxx€\n"), 0xE9),
	} {
		for _, one := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(data)
			if one {
				r = iotest.OneByteReader(r)
			}
			w := newCharsetWatch(r, charsetWindows1252)
			if _, err := io.Copy(io.Discard, w); err != nil {
				t.Fatal(err)
			}
			p := w.problem()
			valid := data[len(data)-1] == '\n'
			switch {
			case valid && (p == nil || p.row != 3 || !strings.Contains(p.msg, `"€" written as UTF-8 (bytes E2 82 AC)`)):
				t.Errorf("one byte reads %v: %+v", one, p)
			case !valid && p != nil:
				t.Errorf("one byte reads %v, not UTF-8: %+v", one, p)
			}
		}
	}
}

// TestBrokenRecords: a record encoding/csv cannot parse is one invalid
// document whose message names its lines, the column of the quote and
// the fix; Rows gives its raw lines; every other line is read as usual.
func TestBrokenRecords(t *testing.T) {
	const head = "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n"
	tests := []struct {
		name string
		data string
		rows []string // valid suppliers
		msg  string   // the broken record's issue, "line: value: message"
		raw  string   // its raw lines
	}{
		{"quote never closed", head + "SUP-B,\"Monitor 24\"\",Manufacturer\nSUP-C,Supplier C,Manufacturer\r\nSUP-D,Supplier D,Manufacturer\n",
			[]string{"SUP-A|Supplier A"},
			`3: "SUP-B,\"Monitor 24\"\",Manufacturer": lines 3–5 are one broken record, none of them is submitted: a quote opened in line 3, column 2 is never closed, so the lines after it were read as part of that value: close the quote; a quote inside a quoted value is written twice (""), as in "Monitor 24""" for Monitor 24"`,
			"SUP-B,\"Monitor 24\"\",Manufacturer\nSUP-C,Supplier C,Manufacturer\r\nSUP-D,Supplier D,Manufacturer"},
		{"quote never closed on the last line", head + "SUP-B,\"Monitor 24\"\",Manufacturer",
			[]string{"SUP-A|Supplier A"},
			`3: "SUP-B,\"Monitor 24\"\",Manufacturer": a quote opened in column 2 is never closed: close the quote; a quote inside a quoted value is written twice (""), as in "Monitor 24""" for Monitor 24"`,
			"SUP-B,\"Monitor 24\"\",Manufacturer"},
		{"text after the closing quote", head + "SUP-B,\"Shelf \"A\" 12\",Manufacturer\nSUP-C,Supplier C,Manufacturer\n",
			[]string{"SUP-A|Supplier A", "SUP-C|Supplier C"},
			`3: "SUP-B,\"Shelf \"A\" 12\",Manufacturer": the quoted value of column 2 is not closed properly (text follows its closing quote): check the quotes; a quote inside a quoted value is written twice (""), as in "Monitor 24""" for Monitor 24"`,
			"SUP-B,\"Shelf \"A\" 12\",Manufacturer"},
		{"text after the closing quote, on the last line", head + "SUP-B,\"Shelf \"A\" 12\",Manufacturer",
			[]string{"SUP-A|Supplier A"},
			`3: "SUP-B,\"Shelf \"A\" 12\",Manufacturer": the quoted value of column 2 is not closed properly (text follows its closing quote): check the quotes; a quote inside a quoted value is written twice (""), as in "Monitor 24""" for Monitor 24"`,
			"SUP-B,\"Shelf \"A\" 12\",Manufacturer"},
		{"closed lines later, text after it", head + "SUP-B,\"Shelf\nA\" 12,Manufacturer\nSUP-C,Supplier C,Manufacturer\n",
			[]string{"SUP-A|Supplier A", "SUP-C|Supplier C"},
			`3: "SUP-B,\"Shelf": lines 3–4 are one broken record, none of them is submitted: a quote opened in line 3, column 2 is not closed properly (in line 4 text follows a closing quote): check the quotes; a quote inside a quoted value is written twice (""), as in "Monitor 24""" for Monitor 24"`,
			"SUP-B,\"Shelf\nA\" 12,Manufacturer"},
		{"bare quote", head + "SUP-B,Monitor 24\",Manufacturer\nSUP-C,Supplier C,Manufacturer\n",
			[]string{"SUP-A|Supplier A", "SUP-C|Supplier C"},
			`3: "SUP-B,Monitor 24\",Manufacturer": a quote " appears inside the unquoted value of column 2 (line 3, byte 17): put the whole value in quotes and write the quotes inside it twice ("")`,
			"SUP-B,Monitor 24\",Manufacturer"},
		{"windows-1252, after a BOM-less start", "code,name,relationship\n\"Caf\xe9,Supplier,Manufacturer\n",
			nil,
			`2: "\"Café,Supplier,Manufacturer": a quote opened in column 1 is never closed: close the quote; a quote inside a quoted value is written twice (""), as in "Monitor 24""" for Monitor 24"`,
			"\"Café,Supplier,Manufacturer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Edition: A, Type: "suppliers"}
			if strings.Contains(tt.name, "1252") {
				opts.Charset = charsetWindows1252
			}
			got, issues := partnerRows(t, []byte(tt.data), opts)
			var valid []string
			for _, g := range got {
				if !strings.HasPrefix(g, "SUP-B") && g != "|" {
					valid = append(valid, g)
				}
			}
			if strings.Join(valid, "\n") != strings.Join(tt.rows, "\n") {
				t.Errorf("valid %q, want %q", valid, tt.rows)
			}
			var msgs []string
			for _, is := range issues {
				if !is.Warning && is.Column == "" {
					msgs = append(msgs, strconv.Itoa(is.Row)+": "+strconv.Quote(is.Value)+": "+is.Message)
				}
			}
			if len(msgs) != 1 || msgs[0] != tt.msg {
				t.Errorf("issues %q\nwant [%q]", msgs, tt.msg)
			}
			var raws []string
			_, err := Rows(t.Context(), strings.NewReader(tt.data), int64(len(tt.data)), "SUPPLIERS.csv", opts, func(row int, cells []string, raw string) error {
				if raw != "" {
					raws = append(raws, raw)
				}
				return nil
			})
			if err != nil || len(raws) != 1 || raws[0] != tt.raw {
				t.Errorf("raw lines %q, %v; want [%q]", raws, err, tt.raw)
			}
		})
	}
}

// TestLineEndsAndSepLine: Excel's "sep=;" first line names the delimiter
// and is not a row; lines ending in CR alone are lines; line numbers stay
// those of the file.
func TestLineEndsAndSepLine(t *testing.T) {
	const rows = "code;name;relationship\nSUP-A;Supplier A;Manufacturer\nSUP-B;\"Two\nlines\";Manufacturer\nSUP-C;;Manufacturer\n"
	cr := strings.ReplaceAll(rows, "\n", "\r")
	tests := []struct {
		name  string
		data  string
		delim rune // the route's delimiter
		line  int  // the line of SUP-C
	}{
		{"sep line", "sep=;\n" + rows, 0, 6},
		{"sep line, CRLF", "sep=;\r\n" + strings.ReplaceAll(rows, "\n", "\r\n"), 0, 6},
		{"sep line over the route's delimiter", "sep=;\n" + rows, ',', 6},
		{"CR only", cr, 0, 5},
		{"CR only, sep line", "sep=;\r" + cr, 0, 6},
		{"CR only, no end", strings.TrimSuffix(cr, "\r"), 0, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, issues := partnerRows(t, []byte(tt.data), Options{Delimiter: tt.delim})
			want := []string{"SUP-A|Supplier A", "SUP-B|Two\nlines", "SUP-C|"}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("got %q, want %q", got, want)
			}
			if len(issues) != 1 || issues[0].Row != tt.line || issues[0].Column != "name" {
				t.Errorf("want one issue, name empty on line %d:%s", tt.line, dump(issues))
			}
		})
	}
}

// TestTitleRows: rows above the header (a title, a blank line) are
// skipped with the route's header_row; without it the file is refused
// with a message naming the header's line and the setting.
func TestTitleRows(t *testing.T) {
	const data = "Suppliers of March;;\n;;\ncode;name;relationship\nSUP-A;Supplier A;Manufacturer\nSUP-B;;Manufacturer\n"
	tests := []struct {
		name string
		opts Options
		rows []string
		msgs []string
	}{
		{"header_row", Options{HeaderRow: 3}, []string{"SUP-A|Supplier A", "SUP-B|"}, []string{`5 "name": is empty: a value is required`}},
		{"header_row on the blank line", Options{HeaderRow: 2}, []string{"SUP-A|Supplier A", "SUP-B|"}, []string{`5 "name": is empty: a value is required`}},
		{"no header_row", Options{}, nil, []string{`0 "": the first line is not the header row (it names none of the columns), line 3 looks like it: set header_row = 3 on the route to skip the rows above it, or delete them`}},
		{"no header_row, type detected", Options{Type: "-"}, nil, []string{`0 "": the first line is not the header row (it names none of the columns), line 3 looks like it: set header_row = 3 on the route to skip the rows above it, or delete them`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Edition, opts.Type = A, "suppliers"
			if tt.opts.Type == "-" {
				opts.Type = ""
			}
			res := decodeBytes(t, "SUPPLIERS.csv", []byte(data), opts)
			if res.err != nil {
				t.Fatal(res.err)
			}
			var got, msgs []string
			for _, d := range res.docs {
				got = append(got, d.Partner.Code+"|"+d.Partner.Name)
			}
			for _, is := range res.all() {
				msgs = append(msgs, strconv.Itoa(is.Row)+" "+strconv.Quote(is.Column)+": "+is.Message)
			}
			if strings.Join(got, ",") != strings.Join(tt.rows, ",") || strings.Join(msgs, "\n") != strings.Join(tt.msgs, "\n") {
				t.Errorf("got %q %q\nwant %q %q", got, msgs, tt.rows, tt.msgs)
			}
			var rows []int
			head, err := Rows(t.Context(), strings.NewReader(data), int64(len(data)), "SUPPLIERS.csv", opts, func(row int, _ []string, _ string) error {
				rows = append(rows, row)
				return nil
			})
			if tt.opts.HeaderRow > 0 && (err != nil || len(head) != 3 || head[0] != "code" || len(rows) != 2 || rows[0] != 4) {
				t.Errorf("Rows: header %q, rows %v, %v", head, rows, err)
			}
		})
	}
}

// TestBrokenRecordInOrder: an order one of whose lines is a broken
// record is invalid as a whole (never created in part), and the orders
// whose rows the broken record swallowed are not read as orders.
func TestBrokenRecordInOrder(t *testing.T) {
	head := header(A, model.KindOutbound)
	row := func(order, pos string) map[string]string {
		return exampleRow(A, model.KindOutbound, map[string]string{"orderNumber": order, "position": pos, "sku": "SKU-" + pos})
	}
	data := csvFile(',', head, row("SO-1", "1"), row("SO-2", "1"), row("SO-1", "2"), row("SO-3", "1"))
	// The city of SO-1's second line opens a quote it never closes.
	lines := strings.SplitAfter(string(data), "\n")
	city := exampleRow(A, model.KindOutbound, nil)["shipTo.city"]
	lines[3] = strings.Replace(lines[3], ","+city+",", ",\""+city+" 24\"\",", 1)
	data = []byte(strings.Join(lines, ""))
	res := decodeBytes(t, "SO.csv", data, Options{Edition: A, Type: "orders"})
	got := map[string]bool{}
	for _, d := range res.docs {
		got[d.Key] = d.Valid()
	}
	if len(got) != 2 || got["SO-1"] || !got["SO-2"] {
		t.Errorf("orders (key: valid) %v, want SO-1 invalid, SO-2 valid, no SO-3%s", got, dump(res.all()))
	}
	if _, ok := findIssue(res.errors(), "", "lines 4–5 are one broken record"); !ok {
		t.Errorf("no broken record named:%s", dump(res.all()))
	}
}

// TestTitleRowsXLSX: header_row counts the rows of the sheet; without it
// the message names the row of the header.
func TestTitleRowsXLSX(t *testing.T) {
	data := workbook(t, "Sheet1", false, [][]string{
		{"Suppliers of March"}, {}, {"code", "name", "relationship"}, {"SUP-A", "Supplier A", "Manufacturer"},
	}, "")
	for _, tt := range []struct {
		row  int
		want string
	}{
		{3, "SUP-A|Supplier A"},
		{0, "the first row is not the header row (it names none of the columns), row 3 looks like it: set header_row = 3 on the route"},
	} {
		res := decodeBytes(t, "SUPPLIERS.xlsx", data, Options{Edition: A, Type: "suppliers", HeaderRow: tt.row})
		var got []string
		for _, d := range res.docs {
			got = append(got, d.Partner.Code+"|"+d.Partner.Name)
		}
		for _, is := range res.all() {
			got = append(got, is.Message)
		}
		if res.err != nil || len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
			t.Errorf("header_row %d: %q, %v; want %q", tt.row, got, res.err, tt.want)
		}
	}
}
