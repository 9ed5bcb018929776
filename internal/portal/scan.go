package portal

import (
	"bytes"
	"encoding/json"
)

// scanID reads the id of a create response without decoding the whole
// document: it walks the top-level object's members and stops at "id"
// (or takes the last segment of "@id" when no "id" comes). ok is false on
// anything unusual; the caller then decodes with encoding/json.
func scanID(b []byte) (id int64, ok bool) {
	s := scanner{b: b}
	s.ws()
	if !s.eat('{') {
		return 0, false
	}
	var iri int64
	for {
		s.ws()
		if s.eat('}') {
			return iri, iri != 0
		}
		key, ok := s.str()
		if !ok {
			return 0, false
		}
		s.ws()
		if !s.eat(':') {
			return 0, false
		}
		s.ws()
		switch key {
		case "id":
			start := s.i
			if !s.skip() {
				return 0, false
			}
			var n wInt
			if err := json.Unmarshal(s.b[start:s.i], &n); err != nil || n <= 0 {
				return 0, false
			}
			return int64(n), true
		case "@id":
			v, ok := s.str()
			if !ok {
				return 0, false
			}
			iri = iriID(v)
		default:
			if !s.skip() {
				return 0, false
			}
		}
		s.ws()
		if !s.eat(',') {
			s.ws()
			return iri, s.eat('}') && iri != 0
		}
	}
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\r' || s.b[s.i] == '\t') {
		s.i++
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string without escapes (keys and IRIs have none); a string
// with escapes is reported as unusual.
func (s *scanner) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	end := bytes.IndexByte(s.b[s.i:], '"')
	if end < 0 || bytes.IndexByte(s.b[s.i:s.i+end], '\\') >= 0 {
		return "", false
	}
	v := string(s.b[s.i : s.i+end])
	s.i += end + 1
	return v, true
}

// skip passes over one value of any kind.
func (s *scanner) skip() bool {
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			s.i++
			for s.i < len(s.b) && s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
			if s.i >= len(s.b) {
				return false
			}
			s.i++
		case '{', '[':
			depth++
			s.i++
		case '}', ']':
			if depth == 0 {
				return true
			}
			depth--
			s.i++
		case ',':
			if depth == 0 {
				return true
			}
			s.i++
		default:
			s.i++
		}
		if depth == 0 && s.i > 0 {
			// A scalar ends at ',' or '}' (handled above); a closed
			// container or string ends here unless more follows.
			if prev := s.b[s.i-1]; prev == '"' || prev == '}' || prev == ']' {
				return true
			}
		}
	}
	return depth == 0
}
