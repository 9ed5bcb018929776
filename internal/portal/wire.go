package portal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"filebridge/internal/model"
)

// This file holds the JSON primitives responses are read with (read.go).
// Requests (model.Body) are written strictly (timestamps in one layout,
// numbers as JSON numbers); responses are read tolerantly:
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
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*n = wInt(v) // a plain integer, read without a copy
		return nil
	}
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

// iriID returns the numeric last segment of an IRI ("/api/variants/12" ->
// 12), or 0.
func iriID(iri string) int64 {
	iri = strings.TrimRight(iri, "/")
	i := strings.LastIndexByte(iri, '/')
	n, err := strconv.ParseInt(iri[i+1:], 10, 64)
	if err != nil || n < 0 {
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

// idDecoders recycle the decoders of create responses; a decoder back in
// the pool reads noBody, not the last response.
var (
	idDecoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}
	noBody     = strings.NewReader("")
)

// read reads a create's answer for its identity in one pass that skips
// every other member, as strictly as json.Unmarshal into a docID reads it:
// malformed JSON, a document that is not an object (null reads as none),
// an "@id" that is no string or anything after the document is an error;
// names match case-insensitively, the last of a repeated one wins. (Unmarshal
// scans the whole answer twice, a create's largest cost in the client.)
func (d *docID) read(r io.Reader, _ int64) error {
	dec := idDecoders.Get().(*jsontext.Decoder)
	defer idDecoders.Put(dec)
	defer dec.Reset(noBody)
	dec.Reset(r, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	switch tok, err := dec.ReadToken(); {
	case err != nil:
		return fmt.Errorf("reading the document: %w", err)
	case tok.Kind() == 'n':
	case tok.Kind() != '{':
		return fmt.Errorf("reading the document: want an object, not %s", tok.Kind())
	default:
		if err := d.members(dec); err != nil {
			return err
		}
	}
	switch _, err := dec.ReadToken(); err {
	case io.EOF:
		return nil
	case nil:
		return errors.New("reading the document: more JSON after its end")
	default:
		return fmt.Errorf("reading the document: after its end: %w", err)
	}
}

// members reads the members of the object dec has just entered, up to its
// end. The text of "@id" is only read when there is no "id".
func (d *docID) members(dec *jsontext.Decoder) error {
	var buf [64]byte
	var iri []byte // the last "@id" string, quoted
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf("reading the document: %w", err)
		}
		n := name.String()
		isID, isIRI := strings.EqualFold(n, "id"), strings.EqualFold(n, "@id")
		if !isID && !isIRI {
			if err := dec.SkipValue(); err != nil {
				return fmt.Errorf("reading the document: %w", err)
			}
			continue
		}
		v, err := dec.ReadValue()
		switch {
		case err != nil:
			return fmt.Errorf("reading the document: %w", err)
		case isID:
			if err := d.ID.UnmarshalJSON(v); err != nil {
				return fmt.Errorf("reading the document's id: %w", err)
			}
		case v.Kind() == '"':
			iri = append(buf[:0], v...)
		case v.Kind() != 'n':
			return fmt.Errorf("reading the document's @id: want a string, not %s", v)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if iri != nil && d.ID == 0 {
		var err error
		if d.AtID, _, err = jsonText(bytes.Clone(iri)); err != nil { // buf stays on the stack
			return fmt.Errorf("reading the document's @id: %w", err)
		}
	}
	return nil
}

func (d docID) id() int64 {
	if d.ID != 0 {
		return int64(d.ID)
	}
	return iriID(d.AtID)
}

// str returns a trimmed wire text.
func str(s wText) string { return strings.TrimSpace(string(s)) }
