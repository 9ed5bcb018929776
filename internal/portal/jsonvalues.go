package portal

import (
	"time"

	"filebridge/internal/model"
)

// The wire field types read in their common forms by the fast reader (see
// jsonread.go): anything else goes through the type's own UnmarshalJSON.

// maxShared is the length up to which texts are shared.
const maxShared = 32

// text returns s as a string, sharing the string of an equal short text
// read before (codes, names and dimensions repeat across a page).
func (r *reader) text(s []byte) string {
	if len(s) > maxShared || len(s) < 2 {
		return string(s)
	}
	if r.texts == nil {
		r.texts = new([256]string)
	}
	h := uint32(2166136261)
	for _, c := range s {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &r.texts[uint8(h^h>>8^h>>16)]
	if *slot != string(s) {
		*slot = string(s)
	}
	return *slot
}

// wstr reads a text: a plain string, else as wStr.UnmarshalJSON.
func (r *reader) wstr(dst *wStr) bool {
	switch r.peek() {
	case '"':
		save := r.i
		if s, plain, ok := r.str(); ok && plain {
			*dst = wStr(r.text(s))
			return true
		}
		r.i = save
	case 'n':
		if r.lit("null") {
			*dst = ""
			return true
		}
	}
	return r.via(dst)
}

// iri reads the "@id" of a document, a plain string or null, keeping only
// the id it ends with (all docID.id needs).
func (r *reader) iri(d *docID) bool {
	switch r.peek() {
	case '"':
		s, plain, ok := r.str()
		if ok && plain {
			d.AtID, d.iri = "", iriIDBytes(s)
		}
		return ok && plain
	case 'n':
		return r.lit("null")
	}
	return false
}

// atID reads a string field: a plain string or null.
func (r *reader) atID(dst *string) bool {
	switch r.peek() {
	case '"':
		s, plain, ok := r.str()
		if ok && plain {
			*dst = string(s)
		}
		return ok && plain
	case 'n':
		return r.lit("null")
	}
	return false
}

// wint reads an integer: a JSON integer, else as wInt.UnmarshalJSON.
func (r *reader) wint(dst *wInt) bool {
	if c := r.peek(); c == '-' || '0' <= c && c <= '9' {
		save := r.i
		if tok, isInt, ok := r.number(); ok && isInt {
			if n, ok := smallInt(tok); ok {
				*dst = wInt(n)
				return true
			}
		}
		r.i = save
	}
	return r.via(dst)
}

// smallInt parses a JSON integer of at most 18 digits.
func smallInt(tok []byte) (int64, bool) {
	neg := tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	if len(tok) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range tok {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// wbool reads a boolean: true or false, else as wBool.UnmarshalJSON.
func (r *reader) wbool(dst *wBool) bool {
	switch r.peek() {
	case 't':
		if r.lit("true") {
			*dst = true
			return true
		}
	case 'f':
		if r.lit("false") {
			*dst = false
			return true
		}
	}
	return r.via(dst)
}

// decimal reads a number already in canonical form, else as
// model.Decimal.UnmarshalJSON.
func (r *reader) decimal(dst *model.Decimal) bool {
	if c := r.peek(); c == '-' || '0' <= c && c <= '9' {
		save := r.i
		if tok, _, ok := r.number(); ok && canonical(tok) {
			*dst = model.Decimal(r.text(tok))
			return true
		}
		r.i = save
	}
	return r.via(dst)
}

// canonical reports whether a JSON number is written as model.ParseDecimal
// would write it (JSON already rules out "+" and leading zeros).
func canonical(tok []byte) bool {
	if string(tok) == "-0" {
		return false
	}
	dot := false
	for _, c := range tok {
		switch c {
		case 'e', 'E':
			return false
		case '.':
			dot = true
		}
	}
	return !dot || tok[len(tok)-1] != '0'
}

// wtime reads a timestamp in the portal's usual form, else as
// wTime.UnmarshalJSON.
func (r *reader) wtime(dst *wTime) bool {
	if r.peek() == '"' {
		save := r.i
		if s, plain, ok := r.str(); ok && plain {
			if t, ok := fastTime(s); ok {
				dst.Time = t
				return true
			}
		}
		r.i = save
	}
	return r.via(dst)
}

// fastTime parses "2006-01-02T15:04:05+00:00", its "+00:00:00" variant
// and "2006-01-02T15:04:05Z" without allocating; ok is false for any other
// form and for values out of range (time.Parse then decides).
func fastTime(s []byte) (time.Time, bool) {
	switch {
	case len(s) == 25 && string(s[19:]) == "+00:00":
	case len(s) == 28 && string(s[19:]) == "+00:00:00":
	case len(s) == 20 && s[19] == 'Z':
	default:
		return time.Time{}, false
	}
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(s[0:4]), num(s[5:7]), num(s[8:10])
	hour, minute, sec := num(s[11:13]), num(s[14:16]), num(s[17:19])
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if t.Day() != day { // past the end of the month
		return time.Time{}, false
	}
	return t, true
}

// readRef reads a reference: an integer id, an IRI, or an embedded object
// of a type that reads itself; anything else as ref.UnmarshalJSON.
func readRef[T any](r *reader, dst *ref[T]) bool {
	switch c := r.peek(); {
	case c == '{':
		f, fast := any(&dst.Obj).(fastDecoder)
		idf, ok := any(&dst.Obj).(identified)
		if !fast || !ok {
			break
		}
		var zero T
		dst.Obj = zero
		if !f.decodeFast(r) {
			return false
		}
		dst.Has, dst.ID = true, idf.ident().id()
		return true
	case c == '"':
		save := r.i
		if s, plain, ok := r.str(); ok && plain {
			dst.setText(s)
			return true
		}
		r.i = save
	case c == '-' || '0' <= c && c <= '9':
		save := r.i
		if tok, isInt, ok := r.number(); ok && isInt {
			if n, ok := smallInt(tok); ok {
				dst.ID = n
				return true
			}
		}
		r.i = save
	}
	return r.via(dst)
}
