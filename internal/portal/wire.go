package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"filebridge/internal/model"
)

// This file holds the JSON primitives both editions' wire tables are built
// from. Requests (model.Body) are written strictly (timestamps in one
// layout, numbers as JSON numbers); responses are read tolerantly:
// "+00:00" and "+00:00:00" offsets, numbers as JSON numbers or numeric
// strings, references as ids, IRIs or embedded objects.

const (
	// wireTimeLayout is how timestamps are sent: UTC with an explicit offset.
	wireTimeLayout = model.TimestampLayout
	// wireDateLayout is how calendar dates are sent.
	wireDateLayout = time.DateOnly
)

// readTimeLayouts are tried in order when reading a timestamp. Fractional
// seconds are accepted after the seconds of any layout.
var readTimeLayouts = []string{
	time.RFC3339,
	"2006-01-02T15:04:05Z07:00:00",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	wireDateLayout,
}

// parseWireTime reads a timestamp or a date in any of the forms the portal
// uses. A value without an offset is taken as UTC.
func parseWireTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range readTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("reading time %q: not an ISO-8601 date or timestamp", s)
}

// wTime is a timestamp on the wire.
type wTime struct{ time.Time }

// UnmarshalJSON reads a timestamp string (or null).
func (t *wTime) UnmarshalJSON(b []byte) error {
	s, ok, err := jsonText(b)
	if err != nil || !ok {
		return err
	}
	v, err := parseWireTime(s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}

// wDate is a calendar date on the wire.
type wDate struct{ time.Time }

// UnmarshalJSON reads a date or a timestamp (or null).
func (d *wDate) UnmarshalJSON(b []byte) error {
	var t wTime
	if err := t.UnmarshalJSON(b); err != nil {
		return err
	}
	d.Time = t.Time
	return nil
}

// jsonText returns the text of a JSON string, number or boolean; ok is
// false for null.
func jsonText(b []byte) (s string, ok bool, err error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return "", false, nil
	}
	if b[0] == '"' {
		if n := len(b); n >= 2 && b[n-1] == '"' && bytes.IndexByte(b[1:n-1], '\\') < 0 && bytes.IndexByte(b[1:n-1], '"') < 0 && utf8.Valid(b[1:n-1]) {
			// Nothing to unescape.
			return string(b[1 : n-1]), true, nil
		}
		var v string // declared here: only this path moves it to the heap
		if err := json.Unmarshal(b, &v); err != nil {
			return "", false, err
		}
		return v, true, nil
	}
	if b[0] == '{' || b[0] == '[' {
		return "", false, fmt.Errorf("reading %.40s: want a string or a number", b)
	}
	return string(b), true, nil
}

// wInt is an integer read from a JSON number (whole, possibly written
// "5.0") or a numeric string.
type wInt int64

// UnmarshalJSON reads a number, a numeric string or null.
func (n *wInt) UnmarshalJSON(b []byte) error {
	s, ok, err := jsonText(b)
	if err != nil || !ok {
		return err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		*n = 0
		return nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = wInt(v)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) {
		return fmt.Errorf("reading %q: want a whole number", s)
	}
	*n = wInt(int64(f))
	return nil
}

// wText is a text read from a JSON string, number or boolean (zip codes and
// access codes are numbers in some samples).
type wText string

// UnmarshalJSON reads a string, a number, a boolean or null.
func (s *wText) UnmarshalJSON(b []byte) error {
	v, _, err := jsonText(b)
	if err != nil {
		return err
	}
	*s = wText(v)
	return nil
}

// wBool is a boolean read from true/false, "true"/"false", 1/0 or null.
type wBool bool

// UnmarshalJSON reads a boolean in any common spelling.
func (v *wBool) UnmarshalJSON(b []byte) error {
	s, ok, err := jsonText(b)
	if err != nil || !ok {
		return err
	}
	bv, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("reading %q: want true or false", s)
	}
	*v = wBool(bv)
	return nil
}

// wStatus is a status object {code, name}; a bare code is accepted, an IRI
// leaves it empty.
type wStatus struct {
	Code wInt  `json:"code"`
	Name wText `json:"name"`
}

// UnmarshalJSON reads a status object, a code or null.
func (st *wStatus) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		type plain wStatus
		return json.Unmarshal(b, (*plain)(st))
	}
	s, ok, err := jsonText(b)
	if err != nil || !ok {
		return err
	}
	if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		st.Code = wInt(v)
	}
	return nil
}

func (st *wStatus) model() model.Status {
	return model.Status{Code: int(st.Code), Name: str(st.Name)}
}

// none is the object of a reference whose content filebridge does not read.
type none struct{}

// ref is a reference to another resource as responses carry it: an id
// (12), an IRI ("/api/variants/12") or an embedded object (with "@id" and/or
// "id"). Obj is set (and Has true) only for an embedded object.
type ref[T any] struct {
	ID  int64
	Has bool
	Obj T
}

// UnmarshalJSON reads an id, an IRI, an object or null.
func (r *ref[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == '{':
		var obj T
		var head docID
		if idf, ok := any(&obj).(identified); ok {
			// The object carries its own "@id" and "id": one decode.
			if err := json.Unmarshal(b, &obj); err != nil {
				return err
			}
			head = *idf.ident()
		} else {
			if err := json.Unmarshal(b, &head); err != nil {
				return err
			}
			if _, skip := any(obj).(none); !skip {
				if err := json.Unmarshal(b, &obj); err != nil {
					return err
				}
			}
		}
		r.Obj, r.Has, r.ID = obj, true, head.id()
		return nil
	case c == '-' || '0' <= c && c <= '9':
		if n, ok := parseInt(b); ok {
			r.ID = n
			return nil
		}
	case c == '"' && len(b) >= 2 && bytes.IndexByte(b, '\\') < 0:
		r.setText(b[1 : len(b)-1])
		return nil
	}
	s, ok, err := jsonText(b)
	if err != nil || !ok {
		return err
	}
	r.setText([]byte(s))
	return nil
}

// setText sets the reference from a text: an integer id or an IRI.
func (r *ref[T]) setText(s []byte) {
	t := bytes.TrimSpace(s)
	if n, ok := parseInt(t); ok {
		r.ID = n
		return
	}
	r.ID = iriIDBytes(s)
}

// parseInt is strconv.ParseInt(b, 10, 64) without allocating.
func parseInt(b []byte) (int64, bool) {
	d := b
	if len(d) > 0 && (d[0] == '+' || d[0] == '-') {
		d = d[1:]
	}
	if len(d) == 0 {
		return 0, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	if len(d) > 18 {
		n, err := strconv.ParseInt(string(b), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range d {
		n = n*10 + int64(c-'0')
	}
	if b[0] == '-' {
		n = -n
	}
	return n, true
}

// get returns the embedded object, or a zero one.
func (r ref[T]) get() T { return r.Obj }

// iriID returns the numeric last segment of an IRI ("/api/variants/12" ->
// 12), or 0.
func iriID(iri string) int64 { return iriIDBytes([]byte(iri)) }

func iriIDBytes(iri []byte) int64 {
	iri = bytes.TrimRight(iri, "/")
	i := bytes.LastIndexByte(iri, '/')
	n, ok := parseInt(iri[i+1:])
	if !ok || n < 0 {
		return 0
	}
	return n
}

// docID is the identity of a document in a response: "id", else the last
// segment of "@id". Create responses are read for it alone.
type docID struct {
	AtID string `json:"@id"`
	ID   wInt   `json:"id"`
}

// identified is a wire type carrying its own "@id" and "id" (docID
// embedded).
type identified interface{ ident() *docID }

func (d *docID) ident() *docID { return d }

func (d docID) id() int64 {
	if d.ID != 0 {
		return int64(d.ID)
	}
	return iriID(d.AtID)
}

// str returns a trimmed wire text.
func str(s wText) string { return strings.TrimSpace(string(s)) }
