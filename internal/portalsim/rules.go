package portalsim

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// The simulator's request rules are written from shared/api/edition-a.md
// and edition-b.md, never from the client's packages (internal/model,
// formats, portal): a deliberate second copy of what the client checks, so
// that a wrong guess of the client fails a test instead of being mirrored.
// Where the documents are explicit (types, required fields, enums, maximum
// lengths, "greater than 0", date-times of the form <date>T<time>+00:00,
// integer ids, IRIs) the rules are strict (Choices.StrictInput); where
// they say "not shown" a switch of Choices decides, and otherwise the
// value is taken as it comes.

// field is the rule of one request member.
type field struct {
	required bool
	maxLen   int      // characters; 0 = no limit shown
	enum     []string // allowed values; nil = any
	positive bool     // "greater than 0"
	format   format
}

// format is a value format the documents name.
type format int

const (
	anyText     format = iota
	eanText            // "EAN": a GS1 number with its check digit
	countryCode        // "ISO alpha-2"
	emailText          // "e-mail"
)

var (
	req = field{required: true}
	opt = field{}
)

func reqMax(n int) field { return field{required: true, maxLen: n} }
func optMax(n int) field { return field{maxLen: n} }

// The documents' enums and limits.
var (
	// Edition A: a supplier is created with relationship Manufacturer
	// (the list filter takes Customer, Marketplace, Entity, Forwarder and
	// Warehouse too).
	relationshipsA = []string{"Manufacturer"}
	// Edition B: relationship on create.
	relationshipsB = []string{"Manufacturer", "Customer", "Marketplace", "Entity"}
	// Edition A: reception orderType (STANDARD: Choices.StandardOrderType).
	orderTypesA = []string{"SEMI", "CONT20", "CONT40", "CONT40HC", "CONT45HC"}
	// Edition A: order deliveryMode.
	deliveryModesA = []string{"ECO", "STANDARD", "UNPACKING", "MOUNTING"}
	// Edition B: variant packaging level.
	packagingLevels = []string{"PCB", "SPCB", "UVC"}
)

const (
	skuMaxA            = 14 // SKU code
	skuMaxB            = 17 // variant sku
	receptionNumberMax = 13 // Edition A reception orderNumber
	orderNumberMax     = 17 // Edition A order, Edition B sales order orderNumber
	poNumberMaxB       = 27 // Edition B purchase order orderNumber
	connectionCodeMaxB = 14
	connectionNameMaxB = 30
)

// in reads one JSON object of a request body, collecting violations under
// the property path prefix.
type in struct {
	s      *Sim
	m      map[string]any
	prefix string
	v      *vset
}

func (s *Sim) input(m map[string]any) in { return in{s: s, m: m, v: &vset{}} }

func (o in) path(name string) string { return o.prefix + name }

func (o in) strict() bool { return o.s.ch.StrictInput }

// get returns a member that is present and not null.
func (o in) get(name string) (any, bool) {
	x, ok := o.m[name]
	return x, ok && x != nil
}

func (o in) has(name string) bool { _, ok := o.get(name); return ok }

func (o in) typeErr(name, typ string) {
	o.v.add(o.path(name), "This value should be of type "+typ+".", codeType)
}

// missing records a required member that is absent, null or empty.
func (o in) missing(name string, required bool) {
	if required {
		o.v.add(o.path(name), msgBlank, codeNotBlank)
	}
}

// str reads a string member and checks it against its rule.
func (o in) str(name string, fl field) string {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, fl.required)
		return ""
	}
	v, isStr := x.(string)
	if !isStr {
		o.typeErr(name, "string")
		return ""
	}
	o.checkText(name, fl, v)
	return v
}

// flex reads a member the samples show as a number though it is text (an
// Edition A ShipTo's zipcode and accessCode): a string or a number.
func (o in) flex(name string, fl field) numText {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, fl.required)
		return numText{}
	}
	switch v := x.(type) {
	case string:
		o.checkText(name, fl, v)
		return numText{s: v}
	case json.Number:
		return numText{s: v.String(), num: true}
	}
	o.typeErr(name, "string")
	return numText{}
}

func (o in) checkText(name string, fl field, v string) {
	p := o.path(name)
	if strings.TrimSpace(v) == "" {
		o.missing(name, fl.required)
		return
	}
	if fl.maxLen > 0 && utf8.RuneCountInString(v) > fl.maxLen {
		o.v.add(p, fmt.Sprintf("This value is too long. It should have %d characters or less.", fl.maxLen), codeTooLong)
	}
	if fl.enum != nil && !contains(fl.enum, v) {
		o.v.add(p, "The value you selected is not a valid choice (use one of "+strings.Join(fl.enum, ", ")+").", codeChoice)
	}
	switch fl.format {
	case eanText:
		if !validEAN(v) {
			o.v.add(p, "This value is not a valid EAN: 8, 12, 13 or 14 digits, the last one their GS1 control digit.", codeEAN)
		}
	case countryCode:
		if r, err := language.ParseRegion(v); err != nil || len(v) != 2 || r.String() != v || !r.IsCountry() || r.IsPrivateUse() {
			o.v.add(p, "This value is not a valid country (ISO 3166-1 alpha-2, e.g. FR).", codeCountry)
		}
	case emailText:
		if a, err := mail.ParseAddress(v); err != nil || a.Address != v {
			o.v.add(p, "This value is not a valid email address.", codeEmail)
		}
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// validEAN checks a GS1 number: 8, 12, 13 or 14 digits, the last one the
// check digit.
func validEAN(v string) bool {
	switch len(v) {
	case 8, 12, 13, 14:
	default:
		return false
	}
	sum := 0
	for i := len(v) - 2; i >= 0; i-- {
		d := int(v[i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if (len(v)-2-i)%2 == 0 {
			d *= 3
		}
		sum += d
	}
	return int(v[len(v)-1]-'0') == (10-sum%10)%10
}

// numberText is the text of the number member name: false when it is
// absent (missing, if required); "" when it is no JSON number (with
// StrictInput off a string is taken too), which the caller refuses.
func (o in) numberText(name string, fl field) (string, bool) {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, fl.required)
		return "", false
	}
	switch v := x.(type) {
	case json.Number:
		return v.String(), true
	case string:
		if !o.strict() {
			return v, true
		}
	}
	return "", true
}

// num reads a JSON number ("number" in the documents). With StrictInput
// off a numeric string is taken too.
func (o in) num(name string, fl field) decimal {
	text, ok := o.numberText(name, fl)
	if !ok {
		return ""
	}
	d, err := parseDecimal(text)
	if text == "" || err != nil {
		o.typeErr(name, "float")
		return ""
	}
	if fl.positive && d.Sign() <= 0 {
		o.v.add(o.path(name), "This value should be greater than 0.", codePositive)
	}
	return d
}

// integer reads a whole JSON number ("integer" in the documents).
func (o in) integer(name string, fl field) int64 {
	text, ok := o.numberText(name, fl)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		o.typeErr(name, "int")
		return 0
	}
	if fl.positive && n <= 0 {
		o.v.add(o.path(name), "This value should be greater than 0.", codePositive)
	}
	return n
}

// documentedTime is the documents' date-time: <date>T<time>+00:00, or the
// samples' variant with a trailing :00.
var documentedTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00(:00)?$`)

// when reads a date-time in UTC. With StrictInput only the documents'
// form is taken; without, whatever parseWhen reads.
func (o in) when(name string, required bool) time.Time {
	v := o.str(name, field{required: required})
	if v == "" {
		return time.Time{}
	}
	t, err := parseWhen(v)
	if err != nil || (o.strict() && !documentedTime.MatchString(v)) {
		o.v.add(o.path(name), "This value is not a valid datetime: use the form 2026-01-02T15:04:05+00:00 (UTC).", codeDate)
		return time.Time{}
	}
	return t
}

// date reads a calendar date ("string date"), sent back as 2006-01-02.
func (o in) date(name string, required bool) string {
	v := o.str(name, field{required: required})
	if v == "" {
		return ""
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t.Format(time.DateOnly)
	}
	if !o.strict() {
		if t, err := parseWhen(v); err == nil {
			return t.Format(time.DateOnly)
		}
	}
	o.v.add(o.path(name), "This value is not a valid date: use the form 2026-01-02.", codeDate)
	return ""
}

// timeOfDay reads a time ("string time"): 15:04 or 15:04:05.
func (o in) timeOfDay(name string, required bool) string {
	v := o.str(name, field{required: required})
	if v == "" {
		return ""
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Format("15:04")
		}
	}
	o.v.add(o.path(name), "This value is not a valid time: use the form 15:04.", codeDate)
	return ""
}

// object reads a nested object.
func (o in) object(name string, required bool) (in, bool) {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, required)
		return in{}, false
	}
	m, isObj := x.(map[string]any)
	if !isObj {
		o.typeErr(name, "object")
		return in{}, false
	}
	return in{s: o.s, m: m, prefix: o.path(name) + ".", v: o.v}, true
}

// list reads an array of objects; a required list needs one element.
func (o in) list(name string, required bool) []in {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, required)
		return nil
	}
	arr, isArr := x.([]any)
	if !isArr {
		o.typeErr(name, "array")
		return nil
	}
	if required && len(arr) == 0 {
		o.v.add(o.path(name), "This collection should contain 1 element or more.", codeCount)
	}
	out := make([]in, 0, len(arr))
	for i, e := range arr {
		p := o.path(name) + "[" + strconv.Itoa(i) + "]"
		m, isObj := e.(map[string]any)
		if !isObj {
			o.v.add(p, "This value should be of type object.", codeType)
			m = map[string]any{}
		}
		out = append(out, in{s: o.s, m: m, prefix: p + ".", v: o.v})
	}
	return out
}

// refForm is how the documents give a reference to another document.
type refForm int

const (
	refInt    refForm = iota // "integer": a JSON number
	refIRI                   // "string IRI": /api/<collection>/<id>
	refIDText                // "string (id of ...)": the id as a string
)

// ref reads a reference to a document of r in the documented form. With
// StrictInput off any of an integer, a numeric string or an IRI is taken.
// A reference to nothing is "This value is not valid.".
func (o in) ref(name string, required bool, r Resource, form refForm) int64 {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, required)
		return 0
	}
	text, got := "", refInt
	switch v := x.(type) {
	case json.Number:
		text = v.String()
	case string:
		text, got = v, refIDText
		if strings.Contains(v, "/") {
			got = refIRI
			rest, isIRI := strings.CutPrefix(v, r.path()+"/")
			if !isIRI {
				o.v.add(o.path(name), msgInvalid+" Give an IRI of the form "+r.path()+"/<id>.", codeInvalid)
				return 0
			}
			text = rest
		}
	default:
		o.typeErr(name, map[refForm]string{refInt: "int", refIRI: "string", refIDText: "string"}[form])
		return 0
	}
	if o.strict() && got != form {
		switch form {
		case refInt:
			o.typeErr(name, "int")
		case refIRI:
			o.v.add(o.path(name), msgInvalid+" Give the IRI "+r.path()+"/<id>.", codeInvalid)
		case refIDText:
			o.v.add(o.path(name), msgInvalid+" Give the id as a string.", codeInvalid)
		}
		return 0
	}
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil || o.s.tables[r].get(id) == nil {
		o.v.add(o.path(name), msgInvalid, codeInvalid)
		return 0
	}
	return id
}

// warehouse reads a warehouse id: one of the seeded warehouses, or in
// Edition B under Choices.WarehouseLocation "warehouse-client" the id of a
// warehouse client, which names its warehouse.
func (o in) warehouse(name string, required bool) int64 {
	if !o.has(name) {
		o.missing(name, required)
		return 0
	}
	before := len(*o.v)
	id := o.integer(name, req)
	if len(*o.v) > before {
		return 0
	}
	if o.s.isB() && o.s.ch.WarehouseLocation == "warehouse-client" {
		if wc, ok := o.s.tables[WarehouseClients].get(id).(*warehouseClient); ok {
			return wc.WarehouseID
		}
		o.v.add(o.path(name), msgInvalid+" No warehouse client has this id.", codeInvalid)
		return 0
	}
	if _, ok := findWarehouse(id); !ok {
		o.v.add(o.path(name), msgInvalid+" No warehouse has this id.", codeInvalid)
		return 0
	}
	return id
}

// checkCompany requires the caller's company id, an integer (an IRI
// /api/companies/<id> too with StrictInput off).
func (o in) checkCompany() {
	x, ok := o.get("company")
	if !ok {
		o.v.add("company", msgBlank, codeNotBlank)
		return
	}
	n, isNum := x.(json.Number)
	if !isNum {
		if s, isStr := x.(string); isStr && !o.strict() && lastSegment(s) == itoa(o.s.opts.Company) {
			return
		}
		o.typeErr("company", "int")
		return
	}
	if n.String() != itoa(o.s.opts.Company) {
		o.v.add("company", msgInvalid+" The token belongs to company "+itoa(o.s.opts.Company)+".", codeInvalid)
	}
}
