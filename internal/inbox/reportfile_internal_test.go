package inbox

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"runtime"
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

// invalidOrder is one order of n rows, each invalid on its own.
func invalidOrder(n int) formats.Doc {
	d := formats.Doc{Key: "SO-1", Rows: make([]int, n), Issues: make([]formats.Issue, n)}
	for i := range n {
		d.Rows[i] = i + 2
		d.Issues[i] = formats.Issue{Row: i + 2, Column: "quantity", Value: "0", Message: "must be greater than 0"}
	}
	return d
}

// spoolRows stores the messages of d's rows in an empty spool and reads
// every one of them back, as the report and the rejected file do.
func spoolRows(tb testing.TB, s *rejectSpool, d formats.Doc) {
	tb.Helper()
	if err := s.addDoc(d, "invalid"); err != nil {
		tb.Fatal(err)
	}
	r, err := s.reader()
	if err != nil {
		tb.Fatal(err)
	}
	for _, row := range d.Rows {
		if _, ok, err := r.message(row); err != nil || !ok {
			tb.Fatalf("row %d: ok %v, error %v", row, ok, err)
		}
	}
}

// countingFile counts the bytes written to and read from a spool file.
type countingFile struct {
	rejectFile
	moved *int64
}

func (c countingFile) Write(p []byte) (int, error) {
	n, err := c.rejectFile.Write(p)
	*c.moved += int64(n)
	return n, err
}

func (c countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.rejectFile.ReadAt(p, off)
	*c.moved += int64(n)
	return n, err
}

// TestRejectedRowsLinear stores and reads back the messages of one order
// of n invalid rows, at n and 8n, counting the bytes the spool writes to
// and reads from its files: linear work moves the same bytes per row at
// 8n as at n (each message and each place written once, read once). A
// quadratic spool, one that read its places or messages again from the
// start for each row or wrote a message once per row of its order, moves
// bytes per row in proportion to n: 8 times as many at 8n, and fails
// here. What is done in memory (rowMessages' index of the issues by row)
// is not counted: BenchmarkRejectedRows times the whole.
func TestRejectedRowsLinear(t *testing.T) {
	perRow := func(n int) float64 {
		var moved int64
		s := newRejectSpool()
		s.temp = func(pattern string) (rejectFile, error) {
			f, err := unlinkedTemp(pattern)
			if err != nil {
				return nil, err
			}
			return countingFile{f, &moved}, nil
		}
		defer s.Close()
		spoolRows(t, s, invalidOrder(n))
		return float64(moved) / float64(n)
	}
	small, big := perRow(5000), perRow(40000)
	t.Logf("bytes moved a row: %.1f at 5k rows, %.1f at 40k rows", small, big)
	if small < 2*refSize {
		t.Fatalf("%.1f bytes moved a row at 5k rows: the count misses the spool's files", small)
	}
	if big > 1.1*small {
		t.Errorf("%.1f bytes moved a row at 40k rows, %.1f at 5k rows: not linear", big, small)
	}
}

// BenchmarkRejectedRows times the rejected-row messages of one order of
// n invalid rows (the spool's files are created before the clock starts).
func BenchmarkRejectedRows(b *testing.B) {
	for _, n := range []int{5000, 40000} {
		b.Run(fmt.Sprintf("%d rows", n), func(b *testing.B) {
			d := invalidOrder(n)
			s := newRejectSpool()
			defer s.Close()
			if err := s.open(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := s.reset(); err != nil {
					b.Fatal(err)
				}
				spoolRows(b, s, d)
			}
		})
	}
}

// TestRejectSpool stores the messages of two failed documents, out of row
// order (read back through memory) or in row order (read back from the
// places file as they go), with a row fine in its failed order, empties
// the spool (a report written again) and stores them again: each failed
// row reads back its own message, in row order.
func TestRejectSpool(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(fmt.Sprintf("in row order %v", inOrder), func(t *testing.T) { testRejectSpool(t, inOrder) })
	}
}

func testRejectSpool(t *testing.T, inOrder bool) {
	s := newRejectSpool()
	defer s.Close()
	order := formats.Doc{Key: "SO-2", Rows: []int{7, 9, 12}, Issues: []formats.Issue{
		{Row: 9, Column: "quantity", Value: "0", Message: "must be greater than 0"},
		{Row: 9, Column: "sku", Message: "is empty: a value is required"},
		{Row: 12, Column: "sku", Message: "a warning", Warning: true},
	}}
	single := formats.Doc{Key: "SO-1", Rows: []int{3}}
	want := map[int]string{
		3:  "refused by the portal",
		7:  "this row is fine, but its order failed: " + "line 9: invalid",
		9:  `line 9, column "quantity" (value "0"): must be greater than 0; line 9, column "sku": is empty: a value is required`,
		12: "this row is fine, but its order failed: " + "line 9: invalid",
	}
	for round := range 2 {
		if round == 1 {
			if err := s.reset(); err != nil {
				t.Fatal(err)
			}
		}
		if inOrder {
			if err := s.addDoc(single, "refused by the portal"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.addDoc(order, "line 9: invalid"); err != nil {
			t.Fatal(err)
		}
		if !inOrder {
			if err := s.addDoc(single, "refused by the portal"); err != nil {
				t.Fatal(err)
			}
		}
		if s.sorted != inOrder {
			t.Errorf("round %d: places in row order %v, want %v", round, s.sorted, inOrder)
		}
		r, err := s.reader()
		if err != nil {
			t.Fatal(err)
		}
		for row := 1; row <= 13; row++ {
			msg, ok, err := r.message(row)
			if err != nil {
				t.Fatal(err)
			}
			if w, failed := want[row]; ok != failed || msg != w {
				t.Errorf("round %d, row %d: %q %v, want %q %v", round, row, msg, ok, w, failed)
			}
		}
	}
}

// TestRejectSpoolMemory adds the messages of 1,000,000 failed rows in row
// order (the rows of each order together): the heap does not grow with
// them (it grew by 16 bytes a row, 16 MB here, when the places were kept
// in memory), and every row reads back its message.
func TestRejectSpoolMemory(t *testing.T) {
	const rows = 1_000_000
	s := newRejectSpool()
	defer s.Close()
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for r := 2; r < rows+2; r += 5 {
		d := formats.Doc{Key: fmt.Sprintf("SO-%d", r), Rows: []int{r, r + 1, r + 2, r + 3, r + 4},
			Issues: []formats.Issue{{Row: r + 1, Column: "quantity", Value: "0", Message: "must be greater than 0"}}}
		if err := s.addDoc(d, "invalid"); err != nil {
			t.Fatal(err)
		}
	}
	grew := int64(heap()) - int64(before)
	t.Logf("heap grew by %d bytes for %d failed rows", grew, rows)
	if grew > 2<<20 {
		t.Errorf("the heap grew by %d bytes for %d failed rows: the places of the messages are held in memory", grew, rows)
	}
	r, err := s.reader()
	if err != nil {
		t.Fatal(err)
	}
	for row := 2; row < rows+2; row++ {
		msg, ok, err := r.message(row)
		if err != nil || !ok {
			t.Fatalf("row %d: ok %v, error %v", row, ok, err)
		}
		if own := strings.HasPrefix(msg, "line "); own != ((row-2)%5 == 1) {
			t.Fatalf("row %d: message %q", row, msg)
		}
	}
	if _, ok, err := r.message(rows + 2); ok || err != nil {
		t.Errorf("row %d after the last failed one: ok %v, error %v", rows+2, ok, err)
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
