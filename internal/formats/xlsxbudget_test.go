package formats

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// TestXLSXBudget: a workbook under the unzip limit whose sheet holds a
// huge run of spaces, a huge cell or a huge row is refused with an error
// naming the part and what is too big, in bounded time and memory, both
// when its type is detected from the header row and when it is decoded;
// cells up to Excel's 32,767 characters are read.
func TestXLSXBudget(t *testing.T) {
	head := []string{"code", "name"}
	tests := []struct {
		name   string
		rows   [][]string
		spaces int64
		want   string // "" reads fine
	}{
		{"256 MiB of spaces after the rows", [][]string{head, {"S1", "Nordic"}}, 256 << 20,
			"a run of more than 1.0 MiB of text or spaces outside any cell"},
		{"a cell of 2 MiB", [][]string{head, {"S1", strings.Repeat("x", 2<<20)}}, 0,
			"cell B2 holds more than 1.0 MiB"},
		{"a row of 18 MiB", [][]string{head, append([]string{"S1"}, slicesOf(strings.Repeat("y", 900<<10), 20)...)}, 0,
			"row 2 holds more than 16.0 MiB"},
		{"cells of 32,767 characters", [][]string{head, {"S1", strings.Repeat("&", 32767)}, {"S2", strings.Repeat("é", 32767)}}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := testkit.HostileWorkbook(&b, tt.rows, tt.spaces); err != nil {
				t.Fatal(err)
			}
			data := b.Bytes()
			r := bytes.NewReader(data)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, ferr := FileType(context.Background(), r, r.Size(), "S.xlsx", Options{Edition: A})
			res := decodeBytes(t, "S.xlsx", data, Options{Edition: A})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes unpacking to %d: FileType and Decode in %s, %d MiB allocated", len(data), tt.spaces, took, alloc>>20)
			if tt.want == "" {
				if ferr != nil || res.err != nil || len(res.docs) != 2 || !res.sum.Valid() {
					t.Fatalf("FileType %v, Decode %v, %d docs%s", ferr, res.err, len(res.docs), dump(res.all()))
				}
				return
			}
			for _, err := range []error{ferr, res.err} {
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "S.xlsx is not a normal spreadsheet: in its part xl/worksheets/sheet1.xml") {
					t.Errorf("err %v, want %q", err, tt.want)
				}
			}
			if len(res.docs) > 0 {
				t.Errorf("%d documents decoded from a refused workbook", len(res.docs))
			}
			if alloc > 100<<20 {
				t.Errorf("%d MiB allocated to refuse the workbook, want at most 100", alloc>>20)
			}
			if took > 5*time.Second {
				t.Errorf("refusing the workbook took %s, want at most 5s", took)
			}
		})
	}
}

func slicesOf(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestBudgetWriter: the budget of a part holds whatever the sizes of the
// writes that bring it, and comments, CDATA sections and processing
// instructions count as one token each.
func TestBudgetWriter(t *testing.T) {
	big := strings.Repeat("a<b>", maxCellBytes/4+1)
	row := func(inner string) string {
		return `<?xml version="1.0"?><worksheet><sheetData><row r="3">` + inner + `</row></sheetData></worksheet>`
	}
	tests := []struct{ name, xml, want string }{
		{"small comments and instructions", `<?xml version="1.0"?><!----><worksheet><!-- a <b> comment --><?pi x?><sheetData><row r="1"><c r="A1"><v><![CDATA[<1>]]></v></c></row></sheetData></worksheet>`, ""},
		{"a big comment", row(`<!--` + big + `-->`), "a comment or other markup of more than 1.0 MiB"},
		{"a big CDATA section", row(`<c r="B3"><v><![CDATA[` + big + `]]></v></c>`), "cell B3 holds more than 1.0 MiB"},
		{"a big processing instruction", `<?xml ` + big + `?>`, "a comment or other markup of more than 1.0 MiB"},
		{"a document type declaration", `<?xml version="1.0"?><!DOCTYPE worksheet []><worksheet/>`, "a document type declaration"},
		{"a big run of spaces", row(strings.Repeat(" ", maxCellBytes+1)), "a run of more than 1.0 MiB of text or spaces outside any cell"},
		{"a big prefixed cell", row(`<x:c r="C3"><x:v>` + strings.Repeat("9", maxCellBytes) + `</x:v></x:c>`), "cell C3 holds more than 1.0 MiB"},
		{"a big shared string", `<sst><si><t>1</t></si><si><r><t>` + strings.Repeat("é", maxCellBytes/2) + `</t></r></si></sst>`, "a shared string holds more than 1.0 MiB"},
		{"a big row of small cells", row(strings.Repeat(`<c r="D3"><v>1</v></c>`, maxRowBytes/20)), "row 3 holds more than 16.0 MiB"},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 7, 4096, len(tt.xml)} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, chunk), func(t *testing.T) {
				if chunk == 1 && len(tt.xml) > 4<<20 {
					t.Skip("too slow one byte at a time")
				}
				w := &budgetWriter{}
				var err error
				for p := []byte(tt.xml); len(p) > 0 && err == nil; p = p[min(chunk, len(p)):] {
					_, err = w.Write(p[:min(chunk, len(p))])
				}
				switch {
				case tt.want == "" && err != nil:
					t.Fatalf("err %v", err)
				case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
					t.Fatalf("err %v, want %q", err, tt.want)
				}
			})
		}
	}
}
