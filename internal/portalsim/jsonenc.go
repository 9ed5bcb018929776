package portalsim

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// kv is one member of an ordered JSON object.
type kv struct {
	k string
	v any
}

// obj is a JSON object whose members keep their order on the wire, so that
// responses read like the API's (identifiers first) and golden files are
// stable. It is encoded by appendJSON without reflection: stock pages of
// 10,000 objects are rendered in a few milliseconds.
type obj []kv

// stamp is a timestamp on the wire: "2006-01-02T15:04:05+00:00", or with
// alt the "+00:00:00" variant some of the API's samples carry. The zero time
// is null.
type stamp struct {
	t   time.Time
	alt bool
}

// numText is a value a client sent either as a JSON number or as a string
// (zip codes, access codes): it goes back out the way it came in.
type numText struct {
	s   string
	num bool
}

const wireLayout = "2006-01-02T15:04:05+00:00"

// appendJSON appends the JSON encoding of v.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	case bool:
		return strconv.AppendBool(b, x)
	case decimal:
		if x == "" {
			return append(b, "null"...)
		}
		return append(b, x...)
	case stamp:
		if x.t.IsZero() {
			return append(b, "null"...)
		}
		b = append(b, '"')
		b = x.t.UTC().AppendFormat(b, wireLayout)
		if x.alt {
			b = append(b, ":00"...)
		}
		return append(b, '"')
	case numText:
		if x.num {
			return append(b, x.s...)
		}
		return appendString(b, x.s)
	case obj:
		b = append(b, '{')
		for i, m := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.k)
			b = append(b, ':')
			b = appendJSON(b, m.v)
		}
		return append(b, '}')
	case []obj:
		return appendArray(b, x, func(b []byte, o obj) []byte { return appendJSON(b, o) })
	case []any:
		return appendArray(b, x, appendJSON)
	case []string:
		return appendArray(b, x, appendString)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendArray appends a JSON array, each element with elem.
func appendArray[T any](b []byte, xs []T, elem func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, x)
	}
	return append(b, ']')
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigit(c>>4), hexDigit(c&0xF))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

func hexDigit(c byte) byte { return "0123456789abcdef"[c] }

// nullable returns nil for an empty string, so that optional strings go out
// as null as in the Edition B documents.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
