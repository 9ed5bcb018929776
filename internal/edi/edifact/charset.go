package edifact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// charset is a syntax identifier's character repertoire (UNB 0001).
type charset struct {
	name string
	// allowed says whether a byte may appear in a value.
	allowed func(c byte) bool
	// latin1: bytes above 0x7F are ISO 8859-1 characters; utf8: UTF-8.
	latin1, utf8 bool
	what         string // the repertoire, for a person
}

// levelA are the characters of level A besides capital letters and digits.
const levelA = " .,-()/='+:?!\"%&*;<>"

func isLevelA(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c < 0x80 && c != 0 && strings.IndexByte(levelA, c) >= 0
}

// charsets are the syntax identifiers read, by name.
var charsets = map[string]charset{
	"UNOA": {name: "UNOA", allowed: isLevelA, what: "capital letters, digits, space and . , - ( ) / = ' + : ? ! \" % & * ; < >"},
	"UNOB": {name: "UNOB", allowed: func(c byte) bool { return isLevelA(c) || c >= 'a' && c <= 'z' }, what: "letters, digits, space and . , - ( ) / = ' + : ? ! \" % & * ; < >"},
	"UNOW": {name: "UNOW", utf8: true, allowed: func(c byte) bool { return c >= 0x20 && c != 0x7f }, what: "UTF-8 printable characters"},
	"UNOC": {name: "UNOC", latin1: true, allowed: func(c byte) bool { return c >= 0x20 && c < 0x7f || c >= 0xa0 }, what: "ISO 8859-1 (Latin-1) printable characters"},
}

// decode turns a value's bytes into text, or says which byte does not
// belong to the repertoire.
func (cs charset) decode(b []byte) (string, error) {
	ascii := true
	for i, c := range b {
		if !cs.allowed(c) {
			return "", fmt.Errorf("byte %d of the value is %s, which the character set %s does not have (%s)", i+1, showByte(c), cs.name, cs.what)
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	if ascii {
		return string(b), nil
	}
	if cs.utf8 {
		if !utf8.Valid(b) {
			return "", fmt.Errorf("the value %q is not valid UTF-8, which the UNB declares (UNOW)", b)
		}
		return string(b), nil
	}
	if utf8.Valid(b) {
		// Latin-1 text is hardly ever valid UTF-8 beyond ASCII: these bytes
		// are UTF-8 that the UNB calls Latin-1 (Ã¤ would be read for ä).
		return "", fmt.Errorf("the value %q is written in UTF-8 while the UNB declares %s (ISO 8859-1): send it in ISO 8859-1 or declare UNOW (UTF-8)", string(b), cs.name)
	}
	return charmap.ISO8859_1.NewDecoder().String(string(b))
}

// encode turns text into the repertoire's bytes, or says which character
// it cannot carry.
func (cs charset) encode(s string) (string, error) {
	for i, r := range s {
		if r < utf8.RuneSelf {
			if !cs.allowed(byte(r)) {
				return "", fmt.Errorf("character %d of %q, %q, is not in the character set %s (%s)", i+1, s, r, cs.name, cs.what)
			}
			continue
		}
		if cs.utf8 {
			continue
		}
		if !cs.latin1 || r > 0xff || r < 0xa0 {
			return "", fmt.Errorf("character %q of %q is not in the character set %s (%s)", r, s, cs.name, cs.what)
		}
	}
	if !cs.latin1 {
		return s, nil // ASCII, or UTF-8 as it is
	}
	return charmap.ISO8859_1.NewEncoder().String(s)
}

func showByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("0x%02X", c)
}
