package formats

import (
	"reflect"
	"strings"
	"time"

	"filebridge/internal/model"
)

// target holds the documents a row writes into.
type target struct {
	partner *model.Partner
	item    *model.Item
	pack    *model.Packaging
	in      *model.Inbound
	inLine  *model.InboundLine
	out     *model.Outbound
	outLine *model.OutboundLine
	svc     *model.ServiceLine
}

// setter writes a converted value into a document.
type setter func(t *target, v *value)

// root is a document of a target a field may be written into.
type root struct {
	typ reflect.Type
	of  func(t *target) reflect.Value
}

func rootOf[T any](of func(t *target) *T) root {
	return root{reflect.TypeFor[T](), func(t *target) reflect.Value { return reflect.ValueOf(of(t)).Elem() }}
}

var (
	headerRoots = map[model.Kind]root{
		model.KindPartner:   rootOf(func(t *target) *model.Partner { return t.partner }),
		model.KindItem:      rootOf(func(t *target) *model.Item { return t.item }),
		model.KindPackaging: rootOf(func(t *target) *model.Packaging { return t.pack }),
		model.KindInbound:   rootOf(func(t *target) *model.Inbound { return t.in }),
		model.KindOutbound:  rootOf(func(t *target) *model.Outbound { return t.out }),
	}
	// lineRoots are the documents of a line column: an order's position and
	// quantity go to its product line and to its service line, which the
	// row turns out to be.
	lineRoots = map[model.Kind][]root{
		model.KindInbound: {rootOf(func(t *target) *model.InboundLine { return t.inLine })},
		model.KindOutbound: {
			rootOf(func(t *target) *model.OutboundLine { return t.outLine }),
			rootOf(func(t *target) *model.ServiceLine { return t.svc }),
		},
	}
)

// step is one field on the way from a root to the field written: a
// pointer to a nested document is allocated on its first value; a map
// (attributes) is written at key.
type step struct {
	index int
	ptr   bool
	key   reflect.Value // the map key when the field is a map
}

// bind returns the setter of a field of a kind: the field's declaration
// path (model.Field.Path) names the fields of the document it is written
// into. It is nil when no document has the field (see TestBindAll).
func bind(k model.Kind, f model.Field) setter {
	roots, path := []root{headerRoots[k]}, f.Path
	if f.Level != model.LevelHeader && len(path) > 1 {
		roots, path = lineRoots[k], path[1:] // a line column: Lines, then the line's own path
	}
	var set []setter
	for _, r := range roots {
		if s := bindPath(r, path, f.Name); s != nil {
			set = append(set, s)
		}
	}
	switch len(set) {
	case 0:
		return nil
	case 1:
		return set[0]
	}
	return func(t *target, v *value) {
		for _, s := range set {
			s(t, v)
		}
	}
}

// bindPath returns the setter of the field at path from root r, nil when
// there is none.
func bindPath(r root, path []string, col string) setter {
	if r.typ == nil {
		return nil
	}
	typ, steps := r.typ, make([]step, 0, len(path))
	for i, name := range path {
		if typ.Kind() == reflect.Map && i == len(path)-1 {
			// An attributes map, keyed by the column's last name.
			steps[len(steps)-1].key = reflect.ValueOf(col[strings.LastIndexByte(col, '.')+1:])
			typ = typ.Elem()
			break
		}
		sf, ok := typ.FieldByName(name)
		if !ok || len(sf.Index) != 1 {
			return nil
		}
		s := step{index: sf.Index[0]}
		typ = sf.Type
		if typ.Kind() == reflect.Pointer {
			s.ptr, typ = true, typ.Elem()
		}
		steps = append(steps, s)
	}
	put := putter(typ)
	if put == nil {
		return nil
	}
	if len(steps) == 1 && !steps[0].ptr && !steps[0].key.IsValid() {
		// A field of the document itself: most of them.
		i := steps[0].index
		return func(t *target, v *value) { put(r.of(t).Field(i), v) }
	}
	return func(t *target, v *value) {
		fv := r.of(t)
		for _, s := range steps {
			fv = fv.Field(s.index)
			if s.ptr {
				if fv.IsNil() {
					fv.Set(reflect.New(fv.Type().Elem()))
				}
				fv = fv.Elem()
			}
			if s.key.IsValid() {
				if fv.IsNil() {
					fv.Set(reflect.MakeMap(fv.Type()))
				}
				fv.SetMapIndex(s.key, reflect.ValueOf(v.s))
				return
			}
		}
		put(fv, v)
	}
}

// putter returns how a value is written into a field of type t.
func putter(t reflect.Type) func(fv reflect.Value, v *value) {
	switch {
	case t == reflect.TypeFor[model.Decimal]():
		return func(fv reflect.Value, v *value) { fv.SetString(string(v.d)) }
	case t == reflect.TypeFor[time.Time]():
		return func(fv reflect.Value, v *value) { *fv.Addr().Interface().(*time.Time) = v.t }
	case t.Kind() == reflect.String:
		return func(fv reflect.Value, v *value) { fv.SetString(v.s) }
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		return func(fv reflect.Value, v *value) { fv.SetInt(v.i) }
	}
	return nil
}
