package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"filebridge/internal/suggest"
)

// Error lists every problem found in a configuration, each saying where
// (line number or key path) and what to do.
type Error struct {
	Problems []string
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%d problems:\n  - %s", len(e.Problems), strings.Join(e.Problems, "\n  - "))
}

// presence is the document decoded without a schema. It tells a key left
// out (which gets the default) from a key set to its zero value (which is
// validated like any value).
type presence map[string]any

// table returns the sub-table at key, or nil.
func (p presence) table(key string) presence {
	m, _ := p[key].(map[string]any)
	return m
}

// elem returns element i of the array of tables at key, or nil.
func (p presence) elem(key string, i int) presence {
	a, _ := p[key].([]any)
	if i < 0 || i >= len(a) {
		return nil
	}
	m, _ := a[i].(map[string]any)
	return m
}

// has reports whether key is set.
func (p presence) has(key string) bool {
	_, ok := p[key]
	return ok
}

// decodeStrict decodes data into c, refusing unknown keys, and returns the
// schema-less view of the same document.
func decodeStrict(data []byte, c *Config) (presence, error) {
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		if located := locateDurationErrors(data); located != nil {
			return nil, located
		}
		return nil, describeDecodeError(err)
	}
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return nil, describeDecodeError(err)
	}
	return raw, nil
}

// describeDecodeError turns go-toml's errors into problems with line numbers
// and, for a misspelt key, the key that was probably meant.
func describeDecodeError(err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		probs := make([]string, 0, len(strict.Errors))
		for _, e := range strict.Errors {
			line, _ := e.Position()
			key := e.Key()
			msg := fmt.Sprintf("line %d: unknown key %q", line, strings.Join(key, "."))
			if s := suggestKey(key); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += " (see config.toml.example for the keys of this table)"
			}
			probs = append(probs, msg)
		}
		return &Error{Problems: probs}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		msg := friendlyMismatch(strings.TrimPrefix(de.Error(), "toml: "))
		where := fmt.Sprintf("line %d, column %d", line, col)
		if k := de.Key(); len(k) > 0 {
			where = fmt.Sprintf("line %d: %s", line, strings.Join(k, "."))
		}
		return &Error{Problems: []string{where + ": " + msg}}
	}
	return fmt.Errorf("decoding TOML: %w", err)
}

// suggestKey finds the known key closest to the last element of an unknown
// key path, walking the Config type along the path.
func suggestKey(key []string) string {
	if len(key) == 0 {
		return ""
	}
	t := reflect.TypeOf(Config{})
	for _, k := range key[:len(key)-1] {
		t = unwrap(t)
		switch t.Kind() {
		case reflect.Struct:
			ft, ok := tomlFields(t)[k]
			if !ok {
				return ""
			}
			t = ft
		case reflect.Map:
			t = t.Elem()
		default:
			return ""
		}
	}
	t = unwrap(t)
	if t.Kind() != reflect.Struct {
		return ""
	}
	want := strings.ToLower(key[len(key)-1])
	best, bestDist := "", 3
	for name := range tomlFields(t) {
		if d := suggest.Distance(want, name); d < bestDist || (d == bestDist && name < best) {
			best, bestDist = name, d
		}
	}
	return best
}

// unwrap removes pointers and slices (arrays of tables).
func unwrap(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

// tomlFields maps the TOML keys of a struct to their types, flattening
// embedded structs the way the decoder does.
func tomlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("toml")
		if f.Anonymous && tag == "" {
			for k, v := range tomlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// locateDurationErrors finds durations written as bare numbers or booleans.
// The decoder reports those without a position, so they are looked up in
// the schema-less document and their lines in the parse tree.
func locateDurationErrors(data []byte) error {
	var raw map[string]any
	if toml.Unmarshal(data, &raw) != nil {
		return nil
	}
	lines := keyLines(data)
	seen := map[string]int{}
	var probs []string
	var walk func(v any, t reflect.Type, path []string)
	walk = func(v any, t reflect.Type, path []string) {
		t = unwrap(t)
		if t == reflect.TypeOf(Duration{}) {
			key := strings.Join(path, ".")
			n := seen[key]
			seen[key]++
			if _, ok := v.(string); ok {
				return
			}
			line := 0
			if n < len(lines[key]) {
				line = lines[key][n]
			}
			probs = append(probs, fmt.Sprintf("line %d: %s = %v: a duration is a string with a unit, e.g. \"%vs\" or \"5m\"", line, key, v, v))
			return
		}
		switch t.Kind() {
		case reflect.Struct:
			m, _ := v.(map[string]any)
			fields := tomlFields(t)
			for _, k := range sortedKeys(m) {
				if ft, ok := fields[k]; ok {
					walk(m[k], ft, append(path, k))
				}
			}
		case reflect.Map:
			m, _ := v.(map[string]any)
			for _, k := range sortedKeys(m) {
				walk(m[k], t.Elem(), append(path, k))
			}
		}
		if a, ok := v.([]any); ok {
			for _, e := range a {
				walk(e, t, path)
			}
		}
	}
	walk(raw, reflect.TypeOf(Config{}), nil)
	if len(probs) == 0 {
		return nil
	}
	return &Error{Problems: probs}
}

// keyLines maps every dotted key of the document (table prefix included)
// to the lines it is set on, in document order.
func keyLines(data []byte) map[string][]int {
	var p unstable.Parser
	p.Reset(data)
	out := map[string][]int{}
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		var key []string
		line := 0
		it := e.Key()
		for it.Next() {
			n := it.Node()
			if len(key) == 0 {
				line = p.Shape(n.Raw).Start.Line
			}
			key = append(key, string(n.Data))
		}
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = key
		case unstable.KeyValue:
			full := strings.Join(append(append([]string{}, table...), key...), ".")
			out[full] = append(out[full], line)
		}
	}
	return out
}

var mismatchPattern = regexp.MustCompile(`^cannot decode TOML (.+?) into (?:struct field \S+ of type )?(\S+)$`)

// expected says what a value of a Go type go-toml names is written as.
var expected = map[string]string{
	"string": "a string in quotes", "model.Edition": "a string in quotes", "model.ExportType": "a string in quotes",
	"bool":            "true or false",
	"[]string":        `an array of strings, e.g. ["a", "b"]`,
	"config.Constant": "a string, number or boolean",
	"config.Duration": `a duration string such as "30s"`,
	"config.ByteSize": `a size in bytes or a string such as "100MB"`,
}

// friendlyMismatch rewrites go-toml's type mismatch messages, which name Go
// types, into what the key expects.
func friendlyMismatch(msg string) string {
	m := mismatchPattern.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	want := m[2]
	switch {
	case strings.HasPrefix(want, "int"):
		want = "an integer"
	case expected[want] != "":
		want = expected[want]
	case strings.HasPrefix(want, "map[") || strings.HasPrefix(want, "config."):
		want = "a table"
	}
	return fmt.Sprintf("found a TOML %s, expected %s", m[1], want)
}
