package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/xuri/excelize/v2"
)

// sheet is an XLSX sample's first sheet. A cell is a string (a text
// cell), an int or float64 (a number cell), a time.Time (a date cell) or
// nil (empty).
type sheet struct {
	name   string
	header []string
	rows   [][]any
}

// fromTable converts a table into a sheet: columns in numeric are number
// cells, columns in dates are date cells (RFC 3339 or YYYY-MM-DD values),
// everything else text.
func fromTable(name string, t *table, numeric, dates []string) (sheet, error) {
	s := sheet{name: name, header: t.header}
	kind := map[string]byte{}
	for _, c := range numeric {
		kind[c] = 'n'
	}
	for _, c := range dates {
		kind[c] = 'd'
	}
	for _, row := range t.rows {
		out := make([]any, len(row))
		for i, v := range row {
			if v == "" {
				continue
			}
			switch kind[t.header[i]] {
			case 'n':
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return s, fmt.Errorf("column %s: %w", t.header[i], err)
				}
				out[i] = f
			case 'd':
				d, err := parseDate(v)
				if err != nil {
					return s, fmt.Errorf("column %s: %w", t.header[i], err)
				}
				out[i] = d
			default:
				out[i] = v
			}
		}
		s.rows = append(s.rows, out)
	}
	return s, nil
}

func parseDate(v string) (time.Time, error) {
	if d, err := time.Parse(time.RFC3339, v); err == nil {
		return d, nil
	}
	return time.Parse("2006-01-02", v)
}

// build writes the sheet as an XLSX file with fixed document properties.
// Text cells carry the text number format, as a careful clerk would set.
func (s sheet) build() ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", s.name); err != nil {
		return nil, err
	}
	dateFmt, dateTimeFmt := "yyyy-mm-dd", "yyyy-mm-dd hh:mm"
	var bold, text, date, dateTime int
	for _, st := range []struct {
		id    *int
		style excelize.Style
	}{
		{&bold, excelize.Style{Font: &excelize.Font{Bold: true}}},
		{&text, excelize.Style{NumFmt: 49}},
		{&date, excelize.Style{CustomNumFmt: &dateFmt}},
		{&dateTime, excelize.Style{CustomNumFmt: &dateTimeFmt}},
	} {
		var err error
		if *st.id, err = f.NewStyle(&st.style); err != nil {
			return nil, err
		}
	}
	for i, h := range s.header {
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		if err := f.SetCellStr(s.name, cell, h); err != nil {
			return nil, err
		}
		if err := f.SetCellStyle(s.name, cell, cell, bold); err != nil {
			return nil, err
		}
	}
	for r, row := range s.rows {
		for i, v := range row {
			cell, _ := excelize.CoordinatesToCellName(i+1, r+2)
			var err error
			switch v := v.(type) {
			case nil:
				continue
			case string:
				if err = f.SetCellStr(s.name, cell, v); err == nil {
					err = f.SetCellStyle(s.name, cell, cell, text)
				}
			case time.Time:
				style := dateTime
				if v.Hour() == 0 && v.Minute() == 0 {
					style = date
				}
				if err = f.SetCellValue(s.name, cell, v); err == nil {
					err = f.SetCellStyle(s.name, cell, cell, style)
				}
			default:
				err = f.SetCellValue(s.name, cell, v)
			}
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", cell, err)
			}
		}
	}
	if err := f.SetDocProps(&excelize.DocProperties{
		Creator: "Maison Nordique", LastModifiedBy: "Maison Nordique",
		Created: "2026-03-01T09:00:00Z", Modified: "2026-03-01T09:00:00Z",
	}); err != nil {
		return nil, err
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func utc(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.UTC)
}

// receptionsBadXLSX is Edition A's bad XLSX: dates typed as Excel dates
// (fine) or as text in a local layout (an error), an EAN pasted from a CSV
// that Excel had saved in scientific notation ("7.35012E+12": its last
// digits are lost), and a fractional quantity.
func receptionsBadXLSX() ([]byte, error) {
	stool := product{"STOOL-OAK-45", "Bar stool oak 45 cm", "", "SUP-NORDIC", 10249, 1, "40", "40", "50", "4.1", "4.1", "59.00"}
	ean, err := strconv.ParseFloat(stool.EAN(), 64)
	if err != nil {
		return nil, err
	}
	s := sheet{
		name: "Wareneingang",
		header: []string{"orderNumber", "referenceNumber", "warehouseLocation", "supplierCode", "orderType", "dueAt",
			"position", "sku", "quantity", "item.name", "item.ean", "item.quantityPerBox", "item.length", "item.width",
			"item.height", "item.grossWeight", "item.grossWeightBox", "item.buyPrice"},
		rows: [][]any{
			{"REC-26-0401", "PO-88210", 3, "SUP-NORDIC", "SEMI", utc(2026, 4, 2, 7, 0), 1, "CHR-OAK-DIN", 120},
			{"REC-26-0401", "PO-88210", 3, "SUP-NORDIC", "SEMI", utc(2026, 4, 2, 7, 0), 2, stool.SKU, 60,
				stool.Name, strconv.FormatFloat(ean, 'G', 6, 64), 1, 40, 40, 50, 4.1, 4.1, 59},
			{"REC-26-0402", "PO-88214", 5, "SUP-KERAMIK", "STANDARD", "02/04/2026", 1, "PLATE-STW-27", 600},
			{"REC-26-0402", "PO-88214", 5, "SUP-KERAMIK", "STANDARD", "02/04/2026", 2, "MUG-STW-35CL", 12.5},
			{"REC-26-0403", "PO-88219", 3, "SUP-LINVOSGES", "STANDARD", utc(2026, 4, 3, 0, 0), 1, "DUVET-240-LIN", 100},
		},
	}
	return s.build()
}

// variantsBadXLSX is Edition B's bad XLSX: EANs that went through Excel as
// numbers: a number cell whose last digits were lost in a CSV round trip
// (3701230000000), the text "4.06123E+12" such a round trip leaves, and a
// measure with its unit typed in.
// The first row, its EAN a text cell, is right.
func variantsBadXLSX() ([]byte, error) {
	throw, cushion, side, rack := productBySKU("THROW-WOOL-GRN"), productBySKU("CUSH-LIN-50"), productBySKU("TBL-SIDE-WAL"), productBySKU("COATRACK-OAK")
	s := sheet{
		name:   "Variants",
		header: []string{"sku", "name", "ean", "length", "width", "height", "grossWeight"},
		rows: [][]any{
			{throw.SKU, throw.Name, throw.EAN(), 40, 32, 12, 0.95},
			{cushion.SKU, cushion.Name, float64(3701230000000), 22, 18, 2, 0.18},
			{side.SKU, side.Name, "4.06123E+12", 50, 50, 14, 6.3},
			{rack.SKU, rack.Name, rack.EAN(), "178 cm", 20, 12, 5.9},
		},
	}
	return s.build()
}
