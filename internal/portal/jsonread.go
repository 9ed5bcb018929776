package portal

import (
	"encoding/binary"
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf8"
)

// This file holds the fast reader of response bodies. Collections are read
// in one pass, each member straight into its wire struct. The wire types
// of the big lists (stocks, movements, SKUs, variants, partners) read
// themselves with it (fastDecoder, wire_fast.go) in the forms the portal
// sends; anything else (an escaped string, a numeric string, a key in
// another case, an unusual timestamp) makes the member fall back to
// encoding/json with the same bytes, so both paths give the same result.

// reader walks one JSON document forward. Every method checks the
// syntax of what it reads: a false result means "not valid JSON, or not a
// form this reader handles"; the caller then lets encoding/json decide.
type reader struct {
	b     []byte
	i     int
	depth int
	texts *[256]string // recent short texts, to share repeated values
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// fastDecoder is a wire type that reads itself from a reader. false
// leaves the value partly set; the caller zeroes it and decodes again with
// encoding/json.
type fastDecoder interface{ decodeFast(r *reader) bool }

// identified is a wire type carrying its own "@id" and "id" (docID
// embedded).
type identified interface{ ident() *docID }

func (d *docID) ident() *docID { return d }

// strByte classes the bytes of a string: 0 plain ASCII, 1 ends or escapes
// (quote, backslash, control character), 2 non-ASCII.
var strByte = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = 1
	}
	t['"'], t['\\'] = 1, 1
	for c := 0x80; c < 0x100; c++ {
		t[c] = 2
	}
	return t
}()

func (r *reader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\n', '\r', '\t':
			r.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (r *reader) peek() byte {
	if r.i < len(r.b) && r.b[r.i] > ' ' {
		return r.b[r.i]
	}
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

func (r *reader) eat(c byte) bool {
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// lit reads a literal (true, false, null).
func (r *reader) lit(s string) bool {
	if len(r.b)-r.i >= len(s) && string(r.b[r.i:r.i+len(s)]) == s {
		r.i += len(s)
		return true
	}
	return false
}

// str reads a string at r.i. s is its raw content; plain reports that s is
// its value (no escapes, valid UTF-8).
func (r *reader) str() (s []byte, plain, ok bool) {
	if !r.eat('"') {
		return nil, false, false
	}
	start, i := r.i, r.i
	plain = true
	ascii := true
	// Eight bytes at a time while none ends or escapes the string or is
	// non-ASCII.
	for ; i+8 <= len(r.b); i += 8 {
		x := binary.LittleEndian.Uint64(r.b[i:])
		q, bs := x^(lsb*'"'), x^(lsb*'\\')
		if (x|(x-lsb*0x20)|(q-lsb)&^q|(bs-lsb)&^bs)&msb != 0 {
			break
		}
	}
	for i < len(r.b) {
		switch strByte[r.b[i]] {
		case 0:
			i++
		case 2:
			ascii = false
			i++
		default:
			switch c := r.b[i]; {
			case c == '"':
				s, r.i = r.b[start:i], i+1
				if !ascii {
					plain = plain && utf8.Valid(s)
				}
				return s, plain, true
			case c < 0x20:
				return nil, false, false
			}
			// A backslash: check the escape.
			plain = false
			if i+1 >= len(r.b) {
				return nil, false, false
			}
			switch r.b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(r.b) || !isHex4(r.b[i+2:i+6]) {
					return nil, false, false
				}
				i += 6
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

// lsb and msb have the low and the high bit of every byte of a word set.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number reads a number at r.i. isInt reports one without fraction or
// exponent.
func (r *reader) number() (tok []byte, isInt, ok bool) {
	b, i := r.b, r.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return nil, false, false
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, false, false
		}
	}
	r.i = i
	return b[start:i], isInt, true
}

// object reads an object, calling fn at each value with its key (fn reads
// the value). A key with escapes is not handled.
func (r *reader) object(fn func(key []byte) bool) bool {
	if r.peek() != '{' || r.depth >= maxDepth {
		return false
	}
	r.i++
	r.depth++
	defer func() { r.depth-- }()
	if r.peek() == '}' {
		r.i++
		return true
	}
	for {
		r.ws()
		k, plain, ok := r.str()
		if !ok || !plain {
			return false
		}
		if r.peek() != ':' {
			return false
		}
		r.i++
		r.ws()
		if !fn(k) {
			return false
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling fn at each element (fn reads it).
func (r *reader) array(fn func() bool) bool {
	if r.peek() != '[' || r.depth >= maxDepth {
		return false
	}
	r.i++
	r.depth++
	defer func() { r.depth-- }()
	if r.peek() == ']' {
		r.i++
		return true
	}
	for {
		r.ws()
		if !fn() {
			return false
		}
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return true
		default:
			return false
		}
	}
}

// skip passes over one value, checking its syntax.
func (r *reader) skip() bool {
	switch r.peek() {
	case '"':
		_, _, ok := r.str()
		return ok
	case '{':
		if r.depth >= maxDepth {
			return false
		}
		r.i++
		r.depth++
		defer func() { r.depth-- }()
		if r.peek() == '}' {
			r.i++
			return true
		}
		for {
			r.ws()
			if _, _, ok := r.str(); !ok || r.peek() != ':' {
				return false
			}
			r.i++
			if !r.skip() {
				return false
			}
			switch r.peek() {
			case ',':
				r.i++
			case '}':
				r.i++
				return true
			default:
				return false
			}
		}
	case '[':
		return r.array(r.skip)
	case 't':
		return r.lit("true")
	case 'f':
		return r.lit("false")
	case 'n':
		return r.lit("null")
	}
	_, _, ok := r.number()
	return ok
}

// end reports that only white space is left.
func (r *reader) end() bool {
	r.ws()
	return r.i == len(r.b)
}

// via reads the next value with its own UnmarshalJSON, as encoding/json
// would.
func (r *reader) via(u json.Unmarshaler) bool {
	r.ws()
	start := r.i
	if !r.skip() {
		return false
	}
	return u.UnmarshalJSON(r.b[start:r.i]) == nil
}

// other passes over the value of a key the wire type does not read. A key
// encoding/json would match to a field anyway (another case, non-ASCII
// folding) is not handled.
func (r *reader) other(key []byte, known []string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	for _, k := range known {
		if len(k) == len(key) && strings.EqualFold(k, string(key)) {
			return false
		}
	}
	return r.skip()
}

// jsonKeys lists the JSON names of a struct's fields, embedded structs
// included.
func jsonKeys[T any]() []string {
	var keys []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
			case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
				walk(f.Type)
			case !f.IsExported():
			case name == "":
				keys = append(keys, f.Name)
			default:
				keys = append(keys, name)
			}
		}
	}
	walk(reflect.TypeFor[T]())
	return keys
}
