package model

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Body returns the create request of doc (a document of kind k, not a
// pointer) in edition e: the kind's declaration filled from the document,
// for encoding/json. Codes are not sent: the document's ids (resolved
// from them) are. A field tagged `fill:"name"` takes values[name] (the
// company, a packaging's variant IRI); `default` is sent for a text the
// document leaves empty. An object ends up nil when nothing in it is set.
// A Ref is the document's embedded object when it has one (with the code of
// the document's <Name>Code field), else the id of <Name>ID.
// It panics on a kind the edition does not declare.
func Body(e Edition, k Kind, doc any, values map[string]any) any {
	decl, ok := declarations[e][k]
	if !ok {
		panic(fmt.Sprintf("edition %s declares no %s documents", e, k))
	}
	body := reflect.New(reflect.TypeOf(decl))
	fill(body.Elem(), reflect.ValueOf(doc), values)
	return body.Interface()
}

// Fill writes the fields of the struct *dst from the fields of the same
// name (or `model` path, dotted) of the document src, as Body does: the
// rows of the exports are filled this way.
func Fill(dst, src any) {
	fill(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src), nil)
}

// fill writes the fields of the declared struct dst from the document src
// (a struct, or a map of attributes keyed by column), following the plan of
// their two types.
func fill(dst, src reflect.Value, values map[string]any) {
	for src.Kind() == reflect.Pointer {
		if src.IsNil() {
			return
		}
		src = src.Elem()
	}
	for _, st := range planOf(dst.Type(), src.Type()) {
		d := dst.Field(st.dst)
		switch st.how {
		case byValues:
			if v, ok := values[st.value]; ok {
				d.Set(reflect.ValueOf(v).Convert(d.Type()))
			}
			continue
		case byFlat:
			fillNested(d, src, values) // the document keeps these fields in src itself
			continue
		}
		var s reflect.Value
		if st.key.IsValid() {
			s = src.MapIndex(st.key)
		} else if st.src != nil {
			s = fieldAt(src, st.src)
		}
		if st.how == byRef {
			fillRef(d, src, st, s, values)
			continue
		}
		if !s.IsValid() {
			continue
		}
		switch st.how {
		case byLines:
			d.Set(reflect.MakeSlice(d.Type(), s.Len(), s.Len()))
			for j := range s.Len() {
				fill(d.Index(j), s.Index(j), values)
			}
		case byObject:
			fillNested(d, s, values)
		default:
			if s.Type() != d.Type() {
				s = s.Convert(d.Type())
			}
			d.Set(s)
			if st.def != "" && d.String() == "" {
				d.SetString(st.def)
			}
		}
	}
}

// A fillStep is how one field of a declared struct is filled.
type fillStep struct {
	dst   int
	how   int
	src   []int         // the document's field (indexes, pointers followed), nil when it has none
	key   reflect.Value // the attributes map's key, when the document is a map
	value string        // byValues: the name of the value
	def   string        // the default of a text
	id    []int         // ref: the document's <name>ID and <name>Code fields
	code  []int
}

// How a field is filled.
const (
	byValue  = iota // the document's value converted to the field's type
	byValues        // one of the values Body is given
	byFlat          // an object whose fields the document keeps flat
	byLines         // a slice of objects
	byObject        // an object
	byRef           // a Ref
)

type typePair struct{ dst, src reflect.Type }

// plans are the fill plans by declared and document type.
var plans sync.Map // typePair -> []fillStep

// planOf returns the plan of filling a dst from a src.
func planOf(dst, src reflect.Type) []fillStep {
	if p, ok := plans.Load(typePair{dst, src}); ok {
		return p.([]fillStep)
	}
	var p []fillStep
	for i := range dst.NumField() {
		sf := dst.Field(i)
		if sf.Tag.Get("json") == "-" {
			continue
		}
		st := fillStep{dst: i, how: byValue, def: sf.Tag.Get("default")}
		name := cmp.Or(sf.Tag.Get("model"), sf.Name)
		_, isRef := reflect.Zero(sf.Type).Interface().(embedder)
		switch v, ok := sf.Tag.Lookup("fill"); {
		case ok:
			st.how, st.value = byValues, v
		case sf.Anonymous || name == "-":
			st.how = byFlat
		case src.Kind() == reflect.Map:
			st.key = reflect.ValueOf(sf.Tag.Get("col"))
		default:
			st.src = indexOf(src, name)
		}
		switch {
		case st.how != byValue:
		case isRef:
			st.how, st.id, st.code = byRef, indexOf(src, name+"ID"), indexOf(src, name+"Code")
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Struct:
			st.how = byLines
		case isNested(sf.Type):
			st.how = byObject
		}
		if st.how == byValue && st.src == nil && !st.key.IsValid() {
			continue // the document has no such field
		}
		p = append(p, st)
	}
	plans.Store(typePair{dst, src}, p)
	return p
}

// indexOf returns the indexes of the fields of the dotted path in struct
// type t, nil when there is none.
func indexOf(t reflect.Type, path string) []int {
	var idx []int
	for name := range strings.SplitSeq(path, ".") {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		f, ok := t.FieldByName(name)
		if !ok || len(f.Index) != 1 {
			return nil
		}
		idx, t = append(idx, f.Index[0]), f.Type
	}
	return idx
}

// fieldAt returns the field at the indexes in the struct v, invalid when a
// pointer on the way is nil.
func fieldAt(v reflect.Value, idx []int) reflect.Value {
	for _, i := range idx {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v
}

// fillNested fills the object d (a struct or a pointer to one) from src;
// a pointer stays nil when nothing in the object is set.
func fillNested(d, src reflect.Value, values map[string]any) {
	if d.Kind() != reflect.Pointer {
		fill(d, src, values)
		return
	}
	if src.Kind() == reflect.Pointer && src.IsNil() || src.Kind() == reflect.Map && src.Len() == 0 {
		return
	}
	obj := reflect.New(d.Type().Elem())
	fill(obj.Elem(), src, values)
	if !obj.Elem().IsZero() {
		d.Set(obj)
	}
}

// fillRef fills the Ref d: the document's object s (with the code of the
// document's <name>Code when it has none), else the id of <name>ID.
func fillRef(d, src reflect.Value, st fillStep, s reflect.Value, values map[string]any) {
	if s.IsValid() && s.Kind() == reflect.Pointer && !s.IsNil() {
		obj := reflect.New(d.FieldByName("New").Type().Elem())
		fill(obj.Elem(), s, values)
		if c := obj.Elem().FieldByName("Code"); c.IsValid() && c.String() == "" && st.code != nil {
			c.SetString(fieldAt(src, st.code).String())
		}
		d.FieldByName("New").Set(obj)
		return
	}
	if st.id != nil {
		d.FieldByName("ID").SetInt(fieldAt(src, st.id).Int())
	}
}
