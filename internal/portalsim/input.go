package portalsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// violation is one entry of a ConstraintViolationList.
type violation struct{ path, msg, code string }

type vset []violation

func (v *vset) add(path, msg, code string) { *v = append(*v, violation{path, msg, code}) }

// Symfony constraint codes (the last four are the simulator's own).
const (
	codeNotBlank = "c1051bb4-d103-4f74-8988-acbcafc7fdc3"
	codeTooLong  = "d94b19cc-114f-4f44-9cc4-4138e80a87b9"
	codeChoice   = "8e179f1b-97aa-4560-a02f-2a8b42e49df7"
	codePositive = "778b7ae0-84d3-481a-9dec-35fdb64b1d78"
	codeType     = "ba785a8c-82cb-4283-967c-3cf342181b40"
	codeUnique   = "23bd9dbf-6b9b-41cd-a99e-4844bcf3077f"
	codeEmail    = "bd79c0ab-ddba-46cc-a703-a7a4b08de310"
	codeCountry  = "8f900c12-61bd-455d-9398-996cd040f7f0"
	codeDate     = "1a9da513-2640-4f84-9b6a-4d99dcddc628"
	codeCount    = "bef8e338-6ae5-4caf-b8e2-50e7b0579e69"
	codeInvalid  = "fb3c5d2e-8d43-4c34-9d1b-6b1a9b1f6e01"
	codeEAN      = "3e5b6f4c-1d2a-4b7e-8f90-0a1b2c3d4e5f"
)

const (
	msgBlank   = "This value should not be blank."
	msgInvalid = "This value is not valid."
	msgUsed    = "This value is already used."
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
func (o in) missing(name string, fl model.Field) {
	if fl.Required {
		o.v.add(o.path(name), msgBlank, codeNotBlank)
	}
}

// str reads a string member and checks it against the field's rules.
func (o in) str(name string, fl model.Field) string {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, fl)
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

// flex reads a member that clients send as a string or a number (zip
// codes, access codes).
func (o in) flex(name string, fl model.Field) numText {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, fl)
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

func (o in) checkText(name string, fl model.Field, v string) {
	p := o.path(name)
	if strings.TrimSpace(v) == "" {
		o.missing(name, fl)
		return
	}
	if err := model.CheckLen(v, fl.MaxLen); err != nil {
		o.v.add(p, fmt.Sprintf("This value is too long. It should have %d characters or less.", fl.MaxLen), codeTooLong)
	}
	if len(fl.Enum) > 0 && !model.InEnum(v, fl.Enum) {
		o.v.add(p, "The value you selected is not a valid choice (use one of "+strings.Join(fl.Enum, ", ")+").", codeChoice)
	}
	switch fl.Type {
	case model.TEAN:
		if err := model.CheckEAN(v); err != nil {
			o.v.add(p, "This value is not a valid EAN: "+err.Error()+".", codeEAN)
		}
	case model.TCountry:
		if model.CheckCountry(v) != nil {
			o.v.add(p, "This value is not a valid country.", codeCountry)
		}
	case model.TEmail:
		if model.CheckEmail(v) != nil {
			o.v.add(p, "This value is not a valid email address.", codeEmail)
		}
	}
}

// num reads a JSON number as a decimal (TInt fields must be whole).
func (o in) num(name string, fl model.Field) model.Decimal {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, fl)
		return ""
	}
	n, isNum := x.(json.Number)
	var d model.Decimal
	if !isNum || d.UnmarshalJSON([]byte(n)) != nil {
		if fl.Type == model.TInt {
			o.typeErr(name, "int")
		} else {
			o.typeErr(name, "float")
		}
		return ""
	}
	if fl.Type == model.TInt && !d.IsInt() {
		o.typeErr(name, "int")
		return ""
	}
	if fl.Positive && d.Sign() <= 0 {
		o.v.add(o.path(name), "This value should be positive.", codePositive)
	}
	return d
}

// integer reads a whole JSON number.
func (o in) integer(name string, fl model.Field) int64 {
	fl.Type = model.TInt
	d := o.num(name, fl)
	n, _ := d.Int64()
	return n
}

// when reads a date-time (or, for TDate fields, a date) in UTC.
func (o in) when(name string, fl model.Field) time.Time {
	v := o.str(name, model.Field{Required: fl.Required})
	if v == "" {
		return time.Time{}
	}
	t, err := parseWhen(v)
	if err != nil {
		o.v.add(o.path(name), "This value is not a valid datetime.", codeDate)
	}
	return t
}

// date reads a calendar date, sent back as "2006-01-02".
func (o in) date(name string, fl model.Field) string {
	t := o.when(name, fl)
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// timeOfDay reads "15:04" or "15:04:05".
func (o in) timeOfDay(name string, fl model.Field) string {
	v := o.str(name, model.Field{Required: fl.Required})
	if v == "" {
		return ""
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Format("15:04")
		}
	}
	o.v.add(o.path(name), "This value is not a valid time.", codeDate)
	return ""
}

// object reads a nested object.
func (o in) object(name string, required bool) (in, bool) {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, model.Field{Required: required})
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
		o.missing(name, model.Field{Required: required})
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

// ref reads a reference to a document of r: an integer id, a numeric
// string or an IRI. A reference to nothing is "This value is not valid.".
func (o in) ref(name string, required bool, r portal.Resource) int64 {
	x, ok := o.get(name)
	if !ok {
		o.missing(name, model.Field{Required: required})
		return 0
	}
	id, valid := int64(0), false
	switch v := x.(type) {
	case json.Number:
		n, err := strconv.ParseInt(v.String(), 10, 64)
		id, valid = n, err == nil
	case string:
		s := v
		if strings.Contains(s, "/") {
			prefix := "/api" + portal.DefaultPath(r) + "/"
			if !strings.HasPrefix(s, prefix) {
				break
			}
			s = s[len(prefix):]
		}
		n, err := strconv.ParseInt(s, 10, 64)
		id, valid = n, err == nil
	default:
		o.typeErr(name, "int")
		return 0
	}
	if !valid || o.s.tables[r].get(id) == nil {
		o.v.add(o.path(name), msgInvalid, codeInvalid)
		return 0
	}
	return id
}

// warehouse reads a warehouse id: one of the seeded warehouses.
func (o in) warehouse(name string, required bool) int64 {
	fl := model.Field{Required: required, Type: model.TInt}
	if !o.has(name) {
		o.missing(name, fl)
		return 0
	}
	before := len(*o.v)
	id := o.integer(name, fl)
	if len(*o.v) > before {
		return 0
	}
	if _, ok := findWarehouse(id); !ok {
		o.v.add(o.path(name), msgInvalid, codeInvalid)
		return 0
	}
	return id
}

// checkCompany requires the caller's company id.
func (o in) checkCompany() {
	x, ok := o.get("company")
	if !ok {
		o.v.add("company", msgBlank, codeNotBlank)
		return
	}
	n, isNum := x.(json.Number)
	if !isNum {
		if s, isStr := x.(string); isStr && lastSegment(s) == itoa(o.s.opts.Company) {
			return // an IRI /api/companies/42
		}
		o.typeErr("company", "int")
		return
	}
	if n.String() != itoa(o.s.opts.Company) {
		o.v.add("company", msgInvalid+" The token belongs to company "+itoa(o.s.opts.Company)+".", codeInvalid)
	}
}

// fieldOf returns the rules of a file column of the edition's spec (a
// field without rules when the spec has none).
func (s *Sim) fieldOf(k model.Kind, name string) model.Field {
	spec, _ := model.SpecFor(s.opts.Edition, k)
	if fl, ok := spec.Field(name); ok {
		return fl
	}
	return model.Field{Name: name}
}

func required(fl model.Field) model.Field { fl.Required = true; return fl }

var errBody = errors.New("request body")

// decodeBody reads a JSON object body (numbers kept exact).
func decodeBody(r *http.Request, w http.ResponseWriter) (map[string]any, error) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: empty, expected a JSON object", errBody)
		}
		return nil, fmt.Errorf("%w: syntax error, malformed JSON: %v", errBody, err)
	}
	if m == nil {
		return nil, fmt.Errorf("%w: expected a JSON object", errBody)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: syntax error, extra data after the JSON object", errBody)
	}
	return m, nil
}

// createDoc serves POST /api/<res>.
func (s *Sim) createDoc(w http.ResponseWriter, r *http.Request, res *resource) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "json") {
		s.writeError(w, http.StatusUnsupportedMediaType, "The content-type \""+ct+"\" is not supported: send application/json or application/ld+json.")
		return
	}
	m, err := decodeBody(r, w)
	if err != nil {
		s.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	d, vs := res.create(m)
	var body []byte
	if len(vs) == 0 {
		o := res.render(d)
		if !s.ch.CreateIDs && !listsID(res.name) {
			o = without(o, "@id", "id")
		}
		body = appendJSON(make([]byte, 0, 1024), withContext(res, o))
	}
	s.mu.Unlock()
	if len(vs) > 0 {
		for _, v := range vs {
			if v.code == codeUnique && !strings.ContainsRune(v.path, '[') {
				s.repeated.Add(1)
				break
			}
		}
		s.writeViolations(w, vs)
		return
	}
	status := res.createStatus
	if s.ch.CreateStatus != 0 {
		status = s.ch.CreateStatus
	}
	if s.ch.CreateIDs || listsID(res.name) {
		w.Header().Set("Location", res.path+"/"+itoa(d.meta().ID))
	}
	writeBody(w, status, body)
}

// writeViolations writes a 422 ConstraintViolationList.
func (s *Sim) writeViolations(w http.ResponseWriter, vs vset) {
	lines := make([]string, len(vs))
	list := make([]obj, len(vs))
	for i, v := range vs {
		lines[i] = v.path + ": " + v.msg
		list[i] = obj{{"propertyPath", v.path}, {"message", v.msg}, {"code", v.code}}
	}
	desc := strings.Join(lines, "\n")
	o := obj{{"@context", "/api/contexts/ConstraintViolationList"}, {"@type", "ConstraintViolationList"}}
	if s.plain {
		o = append(o, kv{"title", "An error occurred"}, kv{"detail", desc}, kv{"description", desc}, kv{"status", s.ch.ViolationStatus})
	} else {
		o = append(o, kv{"hydra:title", "An error occurred"}, kv{"hydra:description", desc})
	}
	o = append(o, kv{"violations", list})
	writeBody(w, s.ch.ViolationStatus, appendJSON(nil, o))
}
