package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"filebridge/internal/model"
)

// This file reads a response document straight into its model document
// (model/documents.go) by the `wire` tags of the model's fields, with the
// tolerant primitives of wire.go. A tag is one or more paths separated by
// "|": the first that gives a non-zero value wins (a list takes the
// members of every path, one after the other); or by ";": the first whose
// reference (its first name) has an id wins, else the last. A path is the JSON names
// leading to the value, dotted through embedded objects ("variant.sku");
// "#path" is the id of the resource referenced there (an id, an IRI or an
// embedded object with "id" or "@id"), "#" the document's own. A field
// without a tag is not read.

// readDoc reads one document (a JSON object, or null for a zero one).
func readDoc[M any](raw []byte) (M, error) {
	var m M
	o, err := newObj(raw, shapeOf(reflect.TypeFor[M]()))
	if err == nil {
		err = readInto(reflect.ValueOf(&m).Elem(), o)
	}
	if err != nil {
		return m, fmt.Errorf("reading %s: %w", model.Clip(strings.TrimSpace(string(raw)), 80), err)
	}
	return m, nil
}

// A shape is the members of an object that a document reads, and theirs:
// an object is decoded into a struct of just those members, kept raw
// (typ), so that the others are passed over unread.
type shape struct {
	typ  reflect.Type
	idx  map[string]int
	kids map[string]*shape
}

var shapes sync.Map // reflect.Type -> *shape

// shapeOf returns the shape of the objects read into the struct type t.
func shapeOf(t reflect.Type) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	s := &shape{}
	s.merge(t)
	s.build()
	shapes.Store(t, s)
	return s
}

// merge adds the members the fields of struct type t read.
func (s *shape) merge(t reflect.Type) {
	for _, f := range readPlan(t) {
		ft := t.Field(f.index).Type
		for _, p := range f.paths {
			n := s.kid(p.names...)
			if p.id {
				n.kid("id")
				n.kid("@id")
			}
			if (ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice) && ft.Elem().Kind() == reflect.Struct {
				n.merge(ft.Elem())
			}
		}
	}
}

// kid returns the member at the path, added when missing.
func (s *shape) kid(path ...string) *shape {
	for _, k := range path {
		if s.kids[k] == nil {
			if s.kids == nil {
				s.kids = map[string]*shape{}
			}
			s.kids[k] = &shape{}
		}
		s = s.kids[k]
	}
	return s
}

// build makes the struct types of s and its members.
func (s *shape) build() {
	s.idx = map[string]int{}
	var fields []reflect.StructField
	for _, k := range slices.Sorted(maps.Keys(s.kids)) {
		s.kids[k].build()
		s.idx[k] = len(fields)
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", len(fields)),
			Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(fmt.Sprintf("json:%q", k))})
	}
	s.typ = reflect.StructOf(fields)
}

// jobj is a JSON object, the members its shape names kept raw; the
// embedded objects read are kept for the next path through them.
type jobj struct {
	v   reflect.Value
	s   *shape
	sub map[string]*jobj
}

func newObj(raw []byte, s *shape) (*jobj, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] != '{' && string(t) != "null" {
		return nil, fmt.Errorf("reading %.40s: want an object", t)
	}
	v := reflect.New(s.typ)
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		return nil, err
	}
	return &jobj{v: v.Elem(), s: s}, nil
}

// get returns the raw member key, nil when the object has none.
func (o *jobj) get(key string) json.RawMessage {
	i, ok := o.s.idx[key]
	if !ok {
		return nil
	}
	return o.v.Field(i).Bytes()
}

// obj returns the embedded object under key, nil when the member is not an
// object.
func (o *jobj) obj(key string) *jobj {
	if s, ok := o.sub[key]; ok {
		return s
	}
	raw := o.get(key)
	var s *jobj
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		s, _ = newObj(raw, o.s.kids[key]) // a member of a valid object: valid itself
	}
	if o.sub == nil {
		o.sub = map[string]*jobj{}
	}
	o.sub[key] = s
	return s
}

// at returns the object holding the last name of path and that member,
// nil when the path leads nowhere.
func (o *jobj) at(path []string) (*jobj, json.RawMessage) {
	for _, k := range path[:len(path)-1] {
		if o = o.obj(k); o == nil {
			return nil, nil
		}
	}
	return o, o.get(path[len(path)-1])
}

// selfID is the id of the object: "id", else the last segment of "@id".
func (o *jobj) selfID() (int64, error) {
	var d docID
	if raw := o.get("id"); raw != nil {
		if err := d.ID.UnmarshalJSON(raw); err != nil {
			return 0, err
		}
	}
	if raw := o.get("@id"); raw != nil {
		var s wText
		if err := s.UnmarshalJSON(raw); err != nil {
			return 0, err
		}
		d.AtID = string(s)
	}
	return d.id(), nil
}

// refID is the id of the resource referenced at path.
func (o *jobj) refID(path []string) (int64, error) {
	if len(path) == 0 {
		return o.selfID()
	}
	holder, raw := o.at(path)
	if raw == nil {
		return 0, nil
	}
	if sub := holder.obj(path[len(path)-1]); sub != nil {
		return sub.selfID()
	}
	s, ok, err := jsonText(raw)
	if err != nil || !ok {
		return 0, err
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		return n, nil
	}
	return iriID(s), nil
}

// A readPath is one path of a wire tag.
type readPath struct {
	names []string
	id    bool
}

type readField struct {
	index int
	name  string // the tag, for errors
	paths []readPath
	byRef bool // ";": the path is chosen by its reference
}

var readPlans sync.Map // reflect.Type -> []readField

// readPlan returns the tagged fields of the struct type t.
func readPlan(t reflect.Type) []readField {
	if p, ok := readPlans.Load(t); ok {
		return p.([]readField)
	}
	var p []readField
	for i := range t.NumField() {
		tag, ok := t.Field(i).Tag.Lookup("wire")
		if !ok {
			continue
		}
		f := readField{index: i, name: tag, byRef: strings.Contains(tag, ";")}
		for alt := range strings.FieldsFuncSeq(tag, func(r rune) bool { return r == '|' || r == ';' }) {
			rp := readPath{}
			if rest, ok := strings.CutPrefix(alt, "#"); ok {
				rp.id, alt = true, rest
			}
			if alt != "" {
				rp.names = strings.Split(alt, ".")
			}
			f.paths = append(f.paths, rp)
		}
		p = append(p, f)
	}
	readPlans.Store(t, p)
	return p
}

// readInto fills the struct dst from the object o.
func readInto(dst reflect.Value, o *jobj) error {
	for _, f := range readPlan(dst.Type()) {
		d, paths := dst.Field(f.index), f.paths
		if f.byRef {
			paths = paths[len(paths)-1:]
			for _, p := range f.paths {
				if id, err := o.refID(p.names[:1]); err != nil || id != 0 {
					paths = []readPath{p} // an error is told reading it
					break
				}
			}
		}
		for _, p := range paths {
			if err := readValue(d, o, p); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			if !d.IsZero() && d.Kind() != reflect.Slice {
				break
			}
		}
	}
	return nil
}

// readValue reads the value at p into d; a list is appended to.
func readValue(d reflect.Value, o *jobj, p readPath) error {
	if p.id {
		id, err := o.refID(p.names)
		switch {
		case err != nil:
			return err
		case d.Kind() == reflect.String && id != 0:
			d.SetString(strconv.FormatInt(id, 10))
		case d.CanInt():
			d.SetInt(id)
		}
		return nil
	}
	holder, raw := o.at(p.names)
	if raw == nil {
		return nil
	}
	switch p := d.Addr().Interface().(type) {
	case *time.Time:
		var t wTime
		err := t.UnmarshalJSON(raw)
		*p = t.Time
		return err
	case *model.Status:
		var st wStatus
		err := st.UnmarshalJSON(raw)
		*p = st.model()
		return err
	case json.Unmarshaler:
		return p.UnmarshalJSON(raw) // a Decimal
	}
	switch d.Kind() {
	case reflect.String:
		var s wText
		err := s.UnmarshalJSON(raw)
		d.SetString(str(s))
		return err
	case reflect.Int, reflect.Int64:
		var n wInt
		err := n.UnmarshalJSON(raw)
		d.SetInt(int64(n))
		return err
	case reflect.Bool:
		var b wBool
		err := b.UnmarshalJSON(raw)
		d.SetBool(bool(b))
		return err
	case reflect.Map:
		var m map[string]wText
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		d.Set(reflect.ValueOf(attrs(m)))
	case reflect.Pointer:
		if sub := holder.obj(p.names[len(p.names)-1]); sub != nil {
			v := reflect.New(d.Type().Elem())
			if err := readInto(v.Elem(), sub); err != nil {
				return err
			}
			d.Set(v)
		}
	case reflect.Slice:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return err
		}
		for _, it := range items {
			sub, err := newObj(it, holder.s.kids[p.names[len(p.names)-1]])
			if err != nil {
				return err
			}
			v := reflect.New(d.Type().Elem()).Elem()
			if err := readInto(v, sub); err != nil {
				return err
			}
			d.Set(reflect.Append(d, v))
		}
	default:
		return fmt.Errorf("no reader for %s", d.Type())
	}
	return nil
}

// attrs converts an attributes object.
func attrs(m map[string]wText) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = str(v)
	}
	return out
}
