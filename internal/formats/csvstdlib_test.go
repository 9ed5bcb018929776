package formats

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// csvRecords reads data with csvSource, or with encoding/csv alone (ref),
// and describes every record: line, fields, and for a syntax error the
// lines of the broken record.
func csvRecords(t *testing.T, data []byte, comma rune, ref bool) []string {
	t.Helper()
	var out []string
	if ref {
		cr := csv.NewReader(bytes.NewReader(data))
		cr.Comma, cr.FieldsPerRecord, cr.ReuseRecord = comma, -1, true
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				return out
			}
			var pe *csv.ParseError
			switch {
			case errors.As(err, &pe):
				out = append(out, fmt.Sprintf("%d-%d %q broken", pe.StartLine, max(pe.Line, pe.StartLine), rec))
			case err != nil:
				t.Fatal(err)
			default:
				line, _ := cr.FieldPos(0)
				out = append(out, fmt.Sprintf("%d %q", line, rec))
			}
		}
	}
	src, err := openCSV(bytes.NewReader(data), int64(len(data)), Options{Delimiter: comma})
	if err != nil {
		t.Fatal(err)
	}
	for {
		line, rec, err := src.next()
		if errors.Is(err, io.EOF) {
			return out
		}
		var re *rowError
		switch {
		case errors.As(err, &re):
			out = append(out, fmt.Sprintf("%d-%d %q broken", line, re.last, rec))
		case err != nil:
			t.Fatal(err)
		default:
			out = append(out, fmt.Sprintf("%d %q", line, rec))
		}
	}
}

// checkCSVLikeStdlib compares csvSource with encoding/csv alone: same
// records, fields, line numbers and broken records. A file whose lines
// end in CR alone reads as encoding/csv reads it with LF line ends.
func checkCSVLikeStdlib(t *testing.T, data []byte, comma rune) {
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 || bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) ||
		bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, oleMagic) {
		return // refused before or while reading, by design
	}
	head := data[:min(len(data), sniffSize)]
	ref := data
	if bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') >= 0 {
		ref = bytes.ReplaceAll(data, []byte{'\r'}, []byte{'\n'})
		head = ref[:len(head)]
	}
	if _, ok := sepLine(head); ok {
		return // Excel's sep= line: not a row, by design
	}
	got, want := csvRecords(t, data, comma, false), csvRecords(t, ref, comma, true)
	if !slices.Equal(got, want) {
		t.Fatalf("%q:\n got %q\nwant %q (encoding/csv)", data, got, want)
	}
}

func TestCSVLikeStdlib(t *testing.T) {
	for _, s := range []string{
		"a,b\nc,d\n", "a,b\r\nc,d", "a,b\r", "\n\n\r\na\n\r\n", "a,\"b\nc\",d\ne,f\n", "a,\"b\r\nc\"\r\n\"\"\n",
		"a,b\"c\nd\n", "\"a\nb\"x\ny\n", "\"unterminated\na\nb", "x\n\"a\"\"b\",c\n\n\nlast", "a\rb,c\r\r\n", " \n\"0",
		"a,b,\n,\n\"\"\n,\"\",\n", "a,\"b\nc\"\nd\n", "a,\"b\n\nc\"\r\n\nd,\"\"\n\ne\n",
		"a,b\rc,\"d\re\"\r\rf\r", "\r0", "x,\"open\ry\rz",
	} {
		for _, c := range []rune{',', ';', '§'} {
			checkCSVLikeStdlib(t, []byte(s), c)
		}
	}
	// Lines across the read buffer, and longer than it; runs of lines
	// without quotes across blocks, lines longer than a block.
	var b strings.Builder
	for i := 0; b.Len() < 3*readSize; i++ {
		switch {
		case i >= 2000 && i < 4000:
			fmt.Fprintf(&b, "%d,plain,%s\r\n", i, strings.Repeat("é", i%40))
		case i%500 == 0:
			fmt.Fprintf(&b, "%d,%s\n", i, strings.Repeat("b", 32<<10-20+i%40))
		case i%7 == 3:
			fmt.Fprintf(&b, "%d,\"two\r\nlines\",x\r\n", i)
		case i%7 == 5:
			b.WriteString("\n")
		case i%7 == 6:
			fmt.Fprintf(&b, "%d,\"last\nfield\"\n", i)
		default:
			fmt.Fprintf(&b, "%d,some text,%s\n", i, strings.Repeat("y", i%50))
		}
		if i == 1000 {
			b.WriteString("long," + strings.Repeat("z", readSize+10) + "\n")
			b.WriteString("\"long\"," + strings.Repeat("q", readSize+10) + "\n")
		}
	}
	checkCSVLikeStdlib(t, []byte(b.String()), ',')
}

func FuzzCSVLikeStdlib(f *testing.F) {
	f.Add([]byte("a,b\r\nc,\"d\ne\"\n\nf\r"), false)
	f.Add([]byte("a;b\n\"x\"y;z\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, semi bool) {
		c := ','
		if semi {
			c = ';'
		}
		checkCSVLikeStdlib(t, data, c)
	})
}
