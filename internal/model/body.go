package model

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"
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
// (a struct, or a map of attributes keyed by column).
func fill(dst, src reflect.Value, values map[string]any) {
	for src.Kind() == reflect.Pointer {
		if src.IsNil() {
			return
		}
		src = src.Elem()
	}
	t := dst.Type()
	for i := range t.NumField() {
		sf, d := t.Field(i), dst.Field(i)
		if sf.Tag.Get("json") == "-" {
			continue
		}
		if name, ok := sf.Tag.Lookup("fill"); ok {
			if v, ok := values[name]; ok {
				d.Set(reflect.ValueOf(v).Convert(d.Type()))
			}
			continue
		}
		name := cmp.Or(sf.Tag.Get("model"), sf.Name)
		if sf.Anonymous || name == "-" {
			fillNested(d, src, values) // the document keeps these fields in src itself
			continue
		}
		var s reflect.Value
		if src.Kind() == reflect.Map {
			s = src.MapIndex(reflect.ValueOf(sf.Tag.Get("col")))
		} else {
			s = fieldAt(src, name)
		}
		if _, ok := reflect.Zero(d.Type()).Interface().(embedder); ok {
			fillRef(d, src, name, s, values)
			continue
		}
		if !s.IsValid() {
			continue
		}
		switch {
		case d.Kind() == reflect.Slice && d.Type().Elem().Kind() == reflect.Struct:
			d.Set(reflect.MakeSlice(d.Type(), s.Len(), s.Len()))
			for j := range s.Len() {
				fill(d.Index(j), s.Index(j), values)
			}
		case isNested(d.Type()):
			fillNested(d, s, values)
		default:
			d.Set(s.Convert(d.Type()))
			if def := sf.Tag.Get("default"); def != "" && d.Kind() == reflect.String && d.String() == "" {
				d.SetString(def)
			}
		}
	}
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

// fillRef fills the Ref d: the document's object s, else the id of
// <name>ID in src.
func fillRef(d, src reflect.Value, name string, s reflect.Value, values map[string]any) {
	if s.IsValid() && s.Kind() == reflect.Pointer && !s.IsNil() {
		obj := reflect.New(d.FieldByName("New").Type().Elem())
		fill(obj.Elem(), s, values)
		if c := obj.Elem().FieldByName("Code"); c.IsValid() && c.String() == "" {
			c.SetString(src.FieldByName(name + "Code").String())
		}
		d.FieldByName("New").Set(obj)
		return
	}
	if id := src.FieldByName(name + "ID"); id.IsValid() {
		d.FieldByName("ID").SetInt(id.Int())
	}
}

// fieldAt returns the field at the dotted path in the struct v, invalid
// when there is none or a pointer on the way is nil.
func fieldAt(v reflect.Value, path string) reflect.Value {
	for name := range strings.SplitSeq(path, ".") {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		}
		if v = v.FieldByName(name); !v.IsValid() {
			return v
		}
	}
	return v
}
