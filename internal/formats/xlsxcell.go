package formats

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xuri/nfp"

	"filebridge/internal/model"
)

// fmtClass is what a cell's number format does to a whole number.
type fmtClass uint8

const (
	fmtPlain  fmtClass = iota // General, "0" or Text: the digits as stored
	fmtDigits                 // digit placeholders and literals, e.g. 00000 or "DE-"000
	fmtDate                   // a date or time format
	fmtOther                  // decimals, thousands...: the raw value is read
)

// numFmt is a style's number format, as it applies to a whole number.
type numFmt struct {
	class fmtClass
	items []nfp.Token // fmtDigits: the tokens of the first section
}

// numFmtOf returns the number format of a cell style, cached per style.
func (s *xlsxSource) numFmtOf(style int) numFmt {
	if nf, ok := s.fmts[style]; ok {
		return nf
	}
	nf := numFmt{class: fmtPlain}
	st, err := s.f.GetStyle(style)
	switch {
	case err != nil || st == nil:
	case st.CustomNumFmt != nil:
		nf = parseDigitsFormat(*st.CustomNumFmt)
	case isDateNumFmt(st.NumFmt):
		nf.class = fmtDate
	case st.NumFmt != 0 && st.NumFmt != 1 && st.NumFmt != 49: // General, 0, @
		nf.class = fmtOther
	}
	if s.fmts == nil {
		s.fmts = map[int]numFmt{}
	}
	s.fmts[style] = nf
	return nf
}

// parseDigitsFormat classifies a custom number format code: a first
// section made only of digit placeholders, literals and colours is a
// digits format (rendered by renderDigits); "0" or "#" alone is plain.
func parseDigitsFormat(code string) numFmt {
	p := nfp.NumberFormatParser()
	secs := p.Parse(code)
	if len(secs) == 0 {
		return numFmt{class: fmtOther}
	}
	var items []nfp.Token
	digits, zeros := 0, 0
	for _, it := range secs[0].Items {
		switch it.TType {
		case nfp.TokenTypeZeroPlaceHolder:
			zeros += len(it.TValue)
			digits++
		case nfp.TokenTypeHashPlaceHolder:
			digits++
		case nfp.TokenTypeLiteral:
			if it.TValue == "" {
				continue
			}
		case nfp.TokenTypeColor, nfp.TokenTypeAlignment:
			continue
		case nfp.TokenTypeGeneral:
			return numFmt{class: fmtPlain}
		case nfp.TokenTypeDateTimes, nfp.TokenTypeElapsedDateTimes:
			return numFmt{class: fmtDate}
		default:
			return numFmt{class: fmtOther}
		}
		items = append(items, it)
	}
	switch {
	case digits == 0:
		return numFmt{class: fmtOther}
	case len(items) == 1 && zeros <= 1:
		return numFmt{class: fmtPlain}
	}
	return numFmt{class: fmtDigits, items: items}
}

// isDateNumFmt reports whether a built-in number format shows a date or a
// time: ids 14-22 and 45-47, and the East Asian date formats 27-36 and
// 50-58.
func isDateNumFmt(id int) bool {
	return id >= 14 && id <= 22 || id >= 27 && id <= 36 || id >= 45 && id <= 47 || id >= 50 && id <= 58
}

// renderDigits writes a whole number as a digits format shows it: digits
// fill the placeholders from the right, a '0' placeholder without a digit
// shows 0, a '#' nothing, and digits beyond the placeholders go before the
// first one.
func renderDigits(items []nfp.Token, digits string) string {
	first := -1
	for i, it := range items {
		if it.TType != nfp.TokenTypeLiteral {
			first = i
			break
		}
	}
	out := make([]byte, 0, len(digits)+16)
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.TType == nfp.TokenTypeLiteral {
			for j := len(it.TValue) - 1; j >= 0; j-- {
				out = append(out, it.TValue[j])
			}
			continue
		}
		for j := len(it.TValue) - 1; j >= 0; j-- {
			switch {
			case digits != "":
				out = append(out, digits[len(digits)-1])
				digits = digits[:len(digits)-1]
			case it.TValue[j] == '0':
				out = append(out, '0')
			}
		}
		if i == first {
			for ; digits != ""; digits = digits[:len(digits)-1] {
				out = append(out, digits[len(digits)-1])
			}
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// wholeDigits returns the digits of a non-negative whole number a
// spreadsheet stored, or false.
func wholeDigits(raw string) (string, bool) {
	if isDigits(raw) {
		return raw, true
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f >= 1e15 {
		return "", false
	}
	return strconv.FormatFloat(f, 'f', 0, 64), true
}

// shownText is the text of cell ci of the current row as the field reads
// it: a whole number in a text or EAN field as its digits format shows it
// (00456 for 456 formatted 00000).
func (s *xlsxSource) shownText(ci int, f *model.Field, text string) string {
	if f.Type != model.TString && f.Type != model.TEAN {
		return text
	}
	return s.digitsShown(ci, text)
}

// showDigits writes, in the cells of the current row, each whole number
// whose digits format pads it as the spreadsheet shows it (00456), as
// Rows gives them: a NAME.rejected.csv keeps the clerk's codes.
func (s *xlsxSource) showDigits(cells []string) {
	for ci := range cells {
		cells[ci] = s.digitsShown(ci, cells[ci])
	}
}

// digitsShown returns text, the value of cell ci of the current row, as
// the spreadsheet shows it when it is a whole number in a digits format.
func (s *xlsxSource) digitsShown(ci int, text string) string {
	if ci >= len(s.info) || s.info[ci].kind != cellNumber {
		return text
	}
	if nf := s.numFmtOf(s.info[ci].style); nf.class == fmtDigits {
		if d, ok := wholeDigits(text); ok {
			return renderDigits(nf.items, d)
		}
	}
	return text
}

// codeLike reports whether a text field holds codes whose leading zeros
// matter: SKUs, codes, postcodes, phone numbers, EANs.
func codeLike(f *model.Field) bool {
	if f.Type == model.TEAN {
		return true
	}
	if f.Type != model.TString {
		return false
	}
	n := strings.ToLower(f.Name[strings.LastIndexByte(f.Name, '.')+1:])
	return n == "sku" || strings.HasSuffix(n, "code") || n == "phone"
}

// checkCell reports what cell ci of the current row holds beyond its text,
// for field f: a TRUE/FALSE cell, an error value (#N/A), a formula without
// a saved value, a date cell in a text field are errors (msg); a code typed
// as a plain number is a warning (warn).
func (s *xlsxSource) checkCell(ci int, f *model.Field) (msg, warn string) {
	if ci >= len(s.info) {
		return "", ""
	}
	info := s.info[ci]
	switch info.kind {
	case cellBool:
		return fmt.Sprintf("is a TRUE/FALSE cell, which %s cannot take: type the %s value itself (format the cell as Text if Excel turns it into TRUE or FALSE)", f.Name, f.Type), ""
	case cellError:
		return "is the spreadsheet error " + s.cells[ci] + ", not a value: correct the formula of this cell (or type the value) and save the file again", ""
	case cellNoValue:
		return "holds a formula without a saved value (the file was written by a program that does not calculate): open the file in Excel (or LibreOffice) and save it, so the formula's result is stored, or type the value", ""
	case cellNumber:
		class := s.numFmtOf(info.style).class
		if class == fmtDate && (f.Type == model.TString || f.Type == model.TEAN) {
			return "is a date cell (the spreadsheet took what was typed for a date, and stores it as the number " + s.cells[ci] +
				"): format the column as Text and type the value again", ""
		}
		if codeLike(f) && class == fmtPlain {
			return "", "stored as a number: a leading zero may be lost; format the column as Text and type the codes again (or give the column a number format such as 00000 that shows the zeros)"
		}
	}
	return "", ""
}

// mergeRows applies the merged ranges to the current row: a range inside
// one column gives each of its cells the value of its first cell; a range
// over several columns, or over the header row, is an error naming it.
func (s *xlsxSource) mergeRows(row int) string {
	for s.nextMerge < len(s.merges) && s.merges[s.nextMerge].r1 <= row {
		s.active = append(s.active, activeMerge{mergeRange: s.merges[s.nextMerge]})
		s.nextMerge++
	}
	kept := s.active[:0]
	var problems []string
	for _, m := range s.active {
		if m.r2 < row {
			continue
		}
		kept = append(kept, m)
		onHeader := s.header > 0 && m.r1 <= s.header && s.header <= m.r2
		switch {
		case onHeader && row == s.header:
			problems = append(problems, fmt.Sprintf("the header cells %s are merged: give each column its own header cell (select them, Home > Merge & Center > Unmerge Cells, and type the header of each column)", m.ref))
		case !onHeader && m.c2 > m.c1:
			problems = append(problems, fmt.Sprintf("cells %s are merged across columns: a value belongs in one column; unmerge them (Home > Merge & Center > Unmerge Cells) and fill in each cell", m.ref))
		}
	}
	s.active = kept
	for i := range s.active {
		m := &s.active[i]
		if m.c2 != m.c1 || s.header > 0 && m.r1 <= s.header && s.header <= m.r2 {
			continue
		}
		ci := m.c1 - 1
		if m.r1 == row {
			if ci < len(s.cells) {
				m.val, m.info = strings.Clone(s.cells[ci]), s.info[ci]
			}
			continue
		}
		// Rows with no cell of their own stay empty.
		if m.val == "" || isEmptyRow(s.cells) || ci < len(s.cells) && s.cells[ci] != "" {
			continue
		}
		for len(s.cells) <= ci {
			s.cells = append(s.cells, "")
			s.info = append(s.info, cellInfo{})
		}
		s.cells[ci], s.info[ci] = m.val, m.info
	}
	return strings.Join(problems, "; ")
}

// activeMerge is a merged range the rows have reached, with the value of
// its first cell.
type activeMerge struct {
	mergeRange
	val  string
	info cellInfo
}
