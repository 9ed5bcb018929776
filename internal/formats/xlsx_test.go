package formats

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// workbook builds an XLSX file: rows of raw cell values on one sheet. A
// value starting with "#" is written as a number cell with that raw text.
func workbook(t testing.TB, sheet string, date1904 bool, rows [][]string, password string) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	if sheet != "Sheet1" {
		if _, err := f.NewSheet("Notes"); err != nil {
			t.Fatal(err)
		}
		if err := f.SetSheetName("Sheet1", "Cover"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.NewSheet(sheet); err != nil {
			t.Fatal(err)
		}
	}
	if date1904 {
		v := true
		if err := f.SetWorkbookProps(&excelize.WorkbookPropsOptions{Date1904: &v}); err != nil {
			t.Fatal(err)
		}
	}
	for r, row := range rows {
		for c, v := range row {
			cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
			var err error
			if num, ok := strings.CutPrefix(v, "#"); ok {
				err = f.SetCellDefault(sheet, cell, num)
			} else if v != "" {
				err = f.SetCellStr(sheet, cell, v)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var b bytes.Buffer
	var err error
	if password != "" {
		err = f.Write(&b, excelize.Options{Password: password})
	} else {
		err = f.Write(&b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func TestReadXLSX(t *testing.T) {
	due := time.Date(2026, 12, 1, 8, 30, 0, 0, time.UTC)
	days := func(d1904 bool) string {
		epoch := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
		if d1904 {
			epoch = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		return "#" + ftoa(due.Sub(epoch).Hours()/24)
	}
	recHead := []string{"orderNumber", "warehouseLocation", "supplierCode", "dueAt", "sku", "quantity"}
	wantDue := func(t *testing.T, r result) {
		wantDocs(t, r, 1, 0)
		if got := r.docs[0].Inbound.DueAt; !got.Equal(due) {
			t.Errorf("due %v, want %v", got, due)
		}
	}
	skuHeadCells := strings.Split(skuHead, ",")
	skuCells := func(over map[int]string) []string {
		c := strings.Split(skuRow, ",")
		for i, v := range over {
			c[i] = v
		}
		return c
	}
	tests := []struct {
		name  string
		data  func(t *testing.T) []byte
		opts  Options
		check func(t *testing.T, r result)
	}{
		{"dates 1900", func(t *testing.T) []byte {
			return workbook(t, "Sheet1", false, [][]string{recHead, {"R1", "#3", "S", days(false), "A", "#2"}}, "")
		}, Options{}, wantDue},
		{"dates 1904", func(t *testing.T) []byte {
			return workbook(t, "Sheet1", true, [][]string{recHead, {"R1", "#3", "S", days(true), "A", "#2"}}, "")
		}, Options{}, wantDue},
		{"date as text and time cell", func(t *testing.T) []byte {
			h := []string{"orderNumber", "warehouseCode", "shipToCode", "plannedDeliveryDate", "deliveryTimeSlotBefore", "sku", "quantity"}
			return workbook(t, "Sheet1", false, [][]string{h, {"SO-1", "WH", "C1", "2026-12-03", "#0.708333333333333", "A", "#1"}}, "")
		}, Options{Edition: B}, func(t *testing.T, r result) {
			wantDocs(t, r, 1, 0)
			out := r.docs[0].Outbound
			if out.DeliveryTimeSlotBefore != "17:00" || !out.PlannedDeliveryDate.Equal(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("order %+v", out)
			}
		}},
		{"ean as float", func(t *testing.T) []byte {
			return workbook(t, "Sheet1", false, [][]string{skuHeadCells, skuCells(map[int]string{2: "#4.00638133393E+12"})}, "")
		}, Options{}, func(t *testing.T, r result) {
			is, ok := findIssue(r.errors(), "ean", "Excel turned this EAN into a number")
			if !ok || is.Cell != "C2" || is.Sheet != "Sheet1" || is.Row != 2 {
				t.Fatalf("issues:%s", dump(r.all()))
			}
		}},
		{"numbers exact", func(t *testing.T) []byte {
			return workbook(t, "Sheet1", false, [][]string{skuHeadCells, skuCells(map[int]string{2: "#4006381333931", 9: "#89.900000000000006", 7: "#6.5"})}, "")
		}, Options{DecimalComma: true}, func(t *testing.T, r result) {
			wantDocs(t, r, 1, 0)
			if it := r.docs[0].Item; it.BuyPrice != "89.9" || it.GrossWeight != "6.5" || it.EAN != "4006381333931" {
				t.Errorf("item %+v", it)
			}
		}},
		{"named sheet and cell", func(t *testing.T) []byte {
			return workbook(t, "SKUs", false, [][]string{skuHeadCells, {}, skuCells(map[int]string{3: "#0"})}, "")
		}, Options{Sheet: "skus"}, func(t *testing.T, r result) {
			is, ok := findIssue(r.errors(), "quantityPerBox", "greater than 0")
			if !ok || is.Cell != "D3" || is.Sheet != "SKUs" || is.Row != 3 {
				t.Fatalf("issues:%s", dump(r.all()))
			}
			if got := is.Error(); !strings.HasPrefix(got, `F.xlsx sheet "SKUs" cell D3, column "quantityPerBox"`) {
				t.Errorf("message %s", got)
			}
		}},
		{"unknown sheet", func(t *testing.T) []byte {
			return workbook(t, "SKUs", false, [][]string{skuHeadCells}, "")
		}, Options{Sheet: "Articles"}, func(t *testing.T, r result) {
			if _, ok := findIssue(r.sum.FileIssues, "", `"Cover", "Notes", "SKUs"`); !ok {
				t.Fatalf("issues:%s", dump(r.all()))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Edition == "" {
				tt.opts.Edition = A
			}
			r := decodeBytes(t, "F.xlsx", tt.data(t), tt.opts)
			if r.err != nil {
				t.Fatal(r.err)
			}
			tt.check(t, r)
		})
	}
}

func TestXLSXFatal(t *testing.T) {
	good := workbook(t, "Sheet1", false, [][]string{strings.Split(skuHead, ","), strings.Split(skuRow, ",")}, "")
	big := func() []byte {
		rows := [][]string{strings.Split(skuHead, ",")}
		for i := 0; i < 100; i++ {
			rows = append(rows, []string{strings.Repeat("a", 30000) + ftoa(float64(i))})
		}
		return workbook(t, "Sheet1", false, rows, "")
	}
	tests := []struct {
		name string
		data []byte
		opts Options
		want string
	}{
		{"corrupt zip", good[:len(good)/2], Options{}, "not a readable XLSX workbook"},
		{"not a zip", []byte("sku,name\n"), Options{}, "not a readable XLSX workbook"},
		{"zip bomb", big(), Options{UnzipSizeLimit: 1 << 20}, "unpacks to more than 1.0 MiB"},
		{"password", workbook(t, "Sheet1", false, [][]string{{"sku"}}, "secret"), Options{}, "is password-protected: save it without a password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Edition = A
			r := decodeBytes(t, "F.xlsx", tt.data, tt.opts)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", r.err, tt.want)
			}
		})
	}
	if r := decodeBytes(t, "F.xlsx", good, Options{Edition: A}); r.err != nil || len(r.docs) != 1 || !r.docs[0].Valid() {
		t.Fatalf("good workbook: %v%s", r.err, dump(r.all()))
	}
}
