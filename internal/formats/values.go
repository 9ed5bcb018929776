package formats

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"filebridge/internal/model"

	"github.com/xuri/excelize/v2"
)

// value is a cell converted to its field's type.
type value struct {
	s string        // the text (trimmed); for times "15:04"
	d model.Decimal // TDecimal
	i int64         // TInt
	t time.Time     // TDate, TDateTime (UTC)
}

// parser converts cell text to typed values with the route's conventions.
type parser struct {
	edition      model.Edition
	decimalComma bool
	xlsx         bool // raw workbook values: numbers written with '.', dates as serials
	date1904     bool
	loc          *time.Location
	layout       string
}

// parse converts s (trimmed, non-empty) for field f. It returns a message
// for the clerk when the text does not fit the field.
func (p *parser) parse(f *model.Field, s string) (value, string) {
	var v value
	msg := p.parseInto(&v, f, s)
	return v, msg
}

// parseInto is parse writing into v, which is reset.
func (p *parser) parseInto(v *value, f *model.Field, s string) string {
	// Each part is written once (the cases below set d or t of their type).
	v.s = s
	if v.d != "" && f.Type != model.TDecimal {
		v.d = ""
	}
	v.i = 0
	if f.Type != model.TDate && f.Type != model.TDateTime && !v.t.IsZero() {
		v.t = time.Time{}
	}
	var msg string
	switch f.Type {
	case model.TString:
		// A text of at most MaxLen bytes has at most MaxLen characters.
		if f.MaxLen > 0 && len(s) > f.MaxLen && utf8.RuneCountInString(s) > f.MaxLen {
			return fmt.Sprintf("%s %q is %d characters long; at most %d are allowed in edition %s",
				label(f.Name), s, utf8.RuneCountInString(s), f.MaxLen, p.edition)
		}
		if len(f.Enum) > 0 && !slices.Contains(f.Enum, s) && !slices.Contains(f.Undocumented, s) {
			return enumMessage(f, s)
		}
	case model.TInt:
		v.i, msg = p.parseInt(s)
		if msg == "" && f.Positive && v.i <= 0 {
			msg = "must be greater than 0"
		}
	case model.TDecimal:
		v.d, msg = p.parseDecimal(s)
		if msg == "" && f.Positive && v.d.Sign() <= 0 {
			msg = "must be greater than 0"
		}
	case model.TDateTime:
		v.t, msg = p.parseDateTime(s)
	case model.TDate:
		v.t, msg = p.parseDate(s)
	case model.TTime:
		v.s, msg = p.parseTime(s)
	case model.TEAN:
		msg = p.checkEAN(s)
	case model.TCountry:
		if err := model.CheckCountry(s); err != nil {
			msg = err.Error()
		}
	case model.TEmail:
		if err := model.CheckEmail(s); err != nil {
			msg = err.Error()
		}
	}
	return msg
}

// label names a column in a message.
func label(name string) string {
	switch name {
	case "sku":
		return "SKU"
	case "ean":
		return "EAN"
	}
	return name
}

// undocumentedMessage is the warning on a value the documents' samples use
// though their enum excludes it ("" for any other value).
func undocumentedMessage(f *model.Field, s string) string {
	if !slices.Contains(f.Undocumented, s) {
		return ""
	}
	return fmt.Sprintf("%q is not one of the %s values the API documents list (%s); a portal that refuses it gets the document without %s "+
		"(this file has it on other rows too when they repeat it); to send another value, map it on the route: [inboxes.routes.values] %s = { %s = %q }",
		s, f.Name, strings.Join(f.Enum, ", "), f.Name, f.Name, s, f.Enum[0])
}

func enumMessage(f *model.Field, s string) string {
	msg := fmt.Sprintf("%q is not an allowed %s; use one of %s", s, f.Name, strings.Join(f.Enum, ", "))
	for _, a := range f.Enum {
		if strings.EqualFold(a, s) {
			msg += fmt.Sprintf(" (write %q: the value is case-sensitive)", a)
			break
		}
	}
	return msg
}

// parseInt reads a whole number.
func (p *parser) parseInt(s string) (int64, string) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, ""
	}
	if p.xlsx && isFloatText(s) {
		// A workbook number such as 2.0000000000000004 or 4E+2.
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), ""
		}
	}
	d, msg := p.parseDecimal(s)
	switch {
	case msg != "":
		return 0, "must be a whole number (digits only)"
	case d.IsInt() && !strings.ContainsAny(s, ".,eE"):
		return 0, "is too large"
	case d.IsInt():
		return 0, fmt.Sprintf("must be a whole number written without decimals: write %s", d)
	}
	return 0, fmt.Sprintf("must be a whole number, not %s", s)
}

// isFloatText reports whether s looks like a number a spreadsheet wrote:
// an optional sign, digits with an optional point, an optional exponent.
func isFloatText(s string) bool { return floatText.MatchString(s) }

var floatText = regexp.MustCompile(`^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)

// parseDecimal reads an exact decimal number.
func (p *parser) parseDecimal(s string) (model.Decimal, string) {
	if d, ok := canonicalDecimal(s); ok && p.pointAllowed(s) && (!p.xlsx || len(s) <= 16 || significantDigits(s) <= 15) {
		return d, ""
	}
	t := s
	if strings.ContainsAny(t, "eE") {
		if !p.xlsx || !isFloatText(t) {
			return "", "is not a plain number (scientific notation or letters): write it like 12.5"
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", "is not a number"
		}
		t = strconv.FormatFloat(f, 'f', -1, 64)
	} else if p.xlsx && significantDigits(t) > 15 && isFloatText(t) {
		// Spreadsheet binary noise such as 89.900000000000006: keep what the
		// spreadsheet shows.
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			t = strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	hasComma, hasPoint := strings.Contains(t, ","), strings.Contains(t, ".")
	switch {
	case p.decimalComma && hasComma && hasPoint:
		return "", "mixes ',' and '.': write decimals with a comma and no thousands separator, like 1234,5"
	case p.decimalComma && hasComma:
		if strings.Count(t, ",") > 1 {
			return "", "has more than one ',': write decimals with one comma and no thousands separator, like 1234,5"
		}
		t = strings.Replace(t, ",", ".", 1)
	case p.decimalComma && hasPoint && !p.xlsx:
		return "", "uses a '.', but this route reads decimals with a comma: write 12,5 (no thousands separator)"
	case hasComma:
		return "", "uses a ',': write decimals with a point and no thousands separator, like 1234.5 (or set decimal = \",\" on the route)"
	}
	d, err := model.ParseDecimal(t)
	if err != nil {
		return "", "is not a number: write it like 12.5"
	}
	return d, ""
}

// pointAllowed reports whether s may use a '.' as its decimal point: not in
// a CSV file of a route that writes decimals with a comma, where "1.234"
// likely means 1234 (workbooks store numbers with a point whatever the route).
func (p *parser) pointAllowed(s string) bool {
	return !p.decimalComma || p.xlsx || strings.IndexByte(s, '.') < 0
}

// canonicalDecimal returns, without allocating, the canonical form of plain
// decimals such as "12.5", "3", "0.25" or "89.90" (trailing fractional zeros
// are cut); other forms are left to model.ParseDecimal.
func canonicalDecimal(s string) (model.Decimal, bool) {
	if s == "" || s[0] == '0' && len(s) > 1 && s[1] != '.' {
		return "", false
	}
	dot := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' && dot < 0 && i > 0:
			dot = i
		default:
			return "", false
		}
	}
	if dot >= 0 {
		end := len(s)
		for end > dot+1 && s[end-1] == '0' {
			end--
		}
		if end == dot+1 {
			end = dot
		}
		s = s[:end]
	}
	return model.Decimal(s), true
}

func significantDigits(s string) int {
	n, started := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '1' && c <= '9' {
			started = true
		}
		if started && c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// dateLayouts are tried in order for dates and date-times without a
// route-specific layout; the first one carries its offset.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseDateTime reads an instant; times without an offset are in the
// route's zone. The result is UTC.
func (p *parser) parseDateTime(s string) (time.Time, string) {
	if p.xlsx && isFloatText(s) {
		return p.serialDate(s)
	}
	if t, ok := p.parseLayouts(s); ok {
		return t.UTC(), ""
	}
	return time.Time{}, p.dateHelp("is not a date-time", "2026-12-01T08:00:00+01:00, 2026-12-01 08:00 or 2026-12-01")
}

// parseDate reads a calendar date (midnight UTC of that day): the day of
// the date as written, in its own offset when it has one.
func (p *parser) parseDate(s string) (time.Time, string) {
	var t time.Time
	if p.xlsx && isFloatText(s) {
		st, msg := p.serialDate(s)
		if msg != "" {
			return time.Time{}, msg
		}
		t = st.In(p.loc)
	} else if pt, ok := p.parseLayouts(s); ok {
		t = pt
	} else {
		return time.Time{}, p.dateHelp("is not a date", "2026-12-01")
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), ""
}

// parseLayouts reads s with the first of dateLayouts, then the route's
// layout, that fits it, in the route's zone.
func (p *parser) parseLayouts(s string) (time.Time, bool) {
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l, s, p.loc); err == nil {
			return t, true
		}
	}
	if p.layout != "" {
		if t, err := time.ParseInLocation(p.layout, s, p.loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseTime reads a time of day as "15:04".
func (p *parser) parseTime(s string) (string, string) {
	if p.xlsx && isFloatText(s) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 {
			return "", "is not a valid spreadsheet time"
		}
		_, frac := math.Modf(f)
		m := int(math.Round(frac*24*60)) % (24 * 60)
		return fmt.Sprintf("%02d:%02d", m/60, m%60), ""
	}
	for _, l := range []string{"15:04", "15:04:05", "3:04PM", "3:04 PM"} {
		if t, err := time.Parse(l, s); err == nil {
			if t.Second() != 0 {
				return "", "must be a time in hours and minutes, like 17:00"
			}
			return t.Format("15:04"), ""
		}
	}
	return "", "is not a time: write hours and minutes, like 17:00"
}

// firstYearSerial is the serial of the first day after a spreadsheet's
// first year of dates (1901-01-01 in the 1900 date system).
const firstYearSerial = 367

// serialDate converts a spreadsheet date serial (see serial). A serial in
// the first year of the spreadsheet's dates (1899-12-30 to 1900-12-31) is
// refused: it is a time of day without a date, or a small number typed
// into a date column, not a delivery date.
func (p *parser) serialDate(s string) (time.Time, string) {
	t, ok := p.serial(s)
	if !ok {
		return time.Time{}, "is not a valid spreadsheet date"
	}
	f, _ := strconv.ParseFloat(s, 64)
	switch {
	case f < 1:
		return time.Time{}, "is a time of day without a date: type the full date and time, like 2026-12-01 08:00, in a cell formatted as a date"
	case f < firstYearSerial:
		shown := t.In(p.loc)
		if !p.date1904 && f < 61 {
			// Excel counts the 29th of February 1900, which did not exist.
			shown = shown.AddDate(0, 0, 1)
		}
		return time.Time{}, "is the number " + s + ", which the spreadsheet shows as the date " + shown.Format("2006-01-02") +
			": type the full date, like 2026-12-01, in a cell formatted as a date"
	}
	return t, ""
}

// serial converts a spreadsheet date serial, read as a wall-clock time in
// the route's zone, to UTC.
func (p *parser) serial(s string) (time.Time, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 2958465 { // 9999-12-31
		return time.Time{}, false
	}
	t, err := excelize.ExcelDateToTime(f, p.date1904)
	if err != nil {
		return time.Time{}, false
	}
	t = t.Round(time.Second)
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, p.loc).UTC(), true
}

func (p *parser) dateHelp(what, examples string) string {
	msg := what + ": write it like " + examples
	if p.xlsx {
		// Not a serial: the cell was typed (or pasted) as text.
		msg = what + ": the cell holds text, not a spreadsheet date: format the column as a date in the spreadsheet, write it like " +
			examples + ", or set date_layout on the route to the layout of this text (e.g. \"02.01.2006\")"
	}
	if p.layout != "" {
		msg += " or in the route's layout " + p.layout
	}
	return msg
}

// checkEAN explains why s is not a usable EAN/GTIN, or returns "".
func (p *parser) checkEAN(s string) string {
	err := model.CheckEAN(s)
	switch {
	case err == nil:
		return ""
	case strings.ContainsAny(s, "eE") && isFloatText(s):
		return "Excel turned this EAN into a number in scientific notation and lost its last digits: format the column as Text, type the EANs again (or paste them as text) and save"
	}
	if i := strings.IndexByte(s, '.'); i > 0 && isDigits(s[:i]) && strings.Trim(s[i+1:], "0") == "" {
		return "this EAN was turned into a decimal number (" + s + "): format the column as Text in the spreadsheet and export again, so it is written with digits only"
	}
	if isDigits(s) && model.CheckEAN("0"+s) == nil {
		return "this EAN lost its leading zero (the spreadsheet took it for a number): format the column as Text and type 0" + s
	}
	return "is not a valid EAN/GTIN: " + err.Error()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
