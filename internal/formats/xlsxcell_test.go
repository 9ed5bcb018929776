package formats

import (
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestRenderDigitsLikeExcelize renders whole numbers in digit formats as
// excelize's own number formatting shows them (what Excel shows), and
// checks which formats are digit formats at all.
func TestRenderDigitsLikeExcelize(t *testing.T) {
	codes := []struct {
		code  string
		class fmtClass
	}{
		{"00000", fmtDigits},
		{"0000000000000", fmtDigits},
		{`"00"#`, fmtDigits},
		{"000-0000", fmtDigits},
		{`"DE-"00000`, fmtDigits},
		{"00000;-00000", fmtDigits},
		{"[Red]00000", fmtDigits},
		{`\0000`, fmtDigits},
		{"00000_ ", fmtDigits},
		{"#####0", fmtDigits},
		{"0", fmtPlain},
		{"#", fmtPlain},
		{"General", fmtPlain},
		{"0.00", fmtOther},
		{"#,##0", fmtOther},
		{"0%", fmtOther},
		{"0.00E+00", fmtOther},
		{"yyyy-mm-dd", fmtDate},
		{"d-mmm", fmtDate},
		{"[h]:mm", fmtDate},
	}
	values := []int64{0, 7, 456, 1000, 1234567, 123456789012}
	f := excelize.NewFile()
	defer f.Close()
	for _, c := range codes {
		nf := parseDigitsFormat(c.code)
		if nf.class != c.class {
			t.Errorf("format %q: class %d, want %d", c.code, nf.class, c.class)
			continue
		}
		if nf.class != fmtDigits {
			continue
		}
		code := c.code
		st, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if err := f.SetCellInt("Sheet1", "A1", v); err != nil {
				t.Fatal(err)
			}
			if err := f.SetCellStyle("Sheet1", "A1", "A1", st); err != nil {
				t.Fatal(err)
			}
			want, err := f.GetCellValue("Sheet1", "A1")
			if err != nil {
				t.Fatal(err)
			}
			if got := renderDigits(nf.items, strconv.FormatInt(v, 10)); got != strings.TrimSpace(want) {
				t.Errorf("%d in %q: %q, excelize shows %q", v, c.code, got, want)
			}
		}
	}
}
