package formats

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// chunkedSheet writes n rows of sheet XML, several chunks of them, with
// what could mislead a cut: rows and cells without references, a comment
// and a CDATA section holding "</row>", empty rows written as empty
// elements and a namespace prefix, under a header row. It returns the rows Rows must give,
// as "row: cells".
func chunkedSheet(n int) (string, []string) {
	var b strings.Builder
	b.WriteString(`<row r="1"><c r="A1" t="inlineStr"><is><t>sku</t></is></c><c r="B1" t="inlineStr"><is><t>name</t></is></c></row>`)
	var want []string
	for i := 2; i <= n; i++ {
		text := fmt.Sprintf("item %d & more", i)
		switch {
		case i%97 == 0:
			fmt.Fprintf(&b, `<row r="%d"/>`, i) // an empty row
			continue
		case i%7 == 0: // the row after the previous one, cells without references
			fmt.Fprintf(&b, `<row><c t="inlineStr"><is><t>%s</t></is></c><c><v>%d</v></c></row>`, strings.ReplaceAll(text, "&", "&amp;"), i)
		case i%13 == 0:
			fmt.Fprintf(&b, `<!-- </row> --><x:row r="%d"><x:c r="A%d" t="str"><x:v><![CDATA[%s</row>]]></x:v></x:c><x:c r="B%d"><x:v>%d</x:v></x:c></x:row>`, i, i, text, i, i)
			text += "</row>"
		default:
			fmt.Fprintf(&b, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>%s</t></is></c><c r="B%d"><v>%d</v></c></row>`, i, i, strings.ReplaceAll(text, "&", "&amp;"), i, i)
		}
		want = append(want, fmt.Sprintf("%d: %q", i, []string{text, fmt.Sprint(i)}))
	}
	return b.String(), want
}

// TestXLSXChunks reads a sheet of many chunks, parsed at once by several
// workers: every row comes, in order, with its number and cells; an error
// in a late chunk comes after the rows before it, and stops the reading.
func TestXLSXChunks(t *testing.T) {
	base := workbook(t, "Sheet1", false, [][]string{{"a", "b"}}, "")
	rows, all := chunkedSheet(40_000)
	if len(rows) < 4*chunkSize {
		t.Fatalf("the sheet is %d bytes, not several chunks", len(rows))
	}
	last := 40_000
	for _, tc := range []struct {
		name    string
		rows    string
		want    []string
		wantErr string
	}{
		{"in order", rows, all, ""},
		{"a row number going back", rows + `<row r="5"><c r="A5"><v>1</v></c></row>`, all,
			fmt.Sprintf("row 5 comes after row %d", last)},
		{"a row without number whose cells name another row", rows + `<row><c r="A3"><v>1</v></c></row>`, all,
			fmt.Sprintf(`cell reference "A3" is not valid on row %d`, last+1)},
		{"damaged XML in a late chunk", rows + `<row r="40001"><c r="A40001" t="str"><v>a &bogus; b</v></c></row>`, all,
			"XML syntax error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := withSheetXML(t, base, tc.rows, "")
			var got []string
			_, err := Rows(context.Background(), bytes.NewReader(data), int64(len(data)), "BIG.xlsx", Options{Edition: A},
				func(row int, cells []string, _ string) error {
					got = append(got, fmt.Sprintf("%d: %q", row, cells))
					return nil
				})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				for i := range min(len(got), len(tc.want)) {
					if got[i] != tc.want[i] {
						t.Fatalf("%d rows, want %d; row %d is %s, want %s", len(got), len(tc.want), i, got[i], tc.want[i])
					}
				}
				t.Fatalf("%d rows, want %d", len(got), len(tc.want))
			}
		})
	}
}
