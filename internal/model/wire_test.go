package model

import (
	"cmp"
	"reflect"
	"strings"
	"testing"
)

// TestDeclaredFieldsReadBack: every field a declaration sends is read back
// from the portal's answers into the same document field, under the same
// JSON name (the document field's `wire` tag, which the portal package
// reads responses by), so that a declared field is read both ways.
func TestDeclaredFieldsReadBack(t *testing.T) {
	docs := map[Kind]reflect.Type{
		KindPartner: reflect.TypeFor[Partner](), KindItem: reflect.TypeFor[Item](), KindPackaging: reflect.TypeFor[Packaging](),
		KindInbound: reflect.TypeFor[Inbound](), KindOutbound: reflect.TypeFor[Outbound](),
	}
	for e, kinds := range declarations {
		for k, decl := range kinds {
			checkReadBack(t, string(e)+" "+k.String(), reflect.TypeOf(decl), docs[k], "")
		}
	}
}

func checkReadBack(t *testing.T, where string, decl, doc reflect.Type, prefix string) {
	t.Helper()
	for i := range decl.NumField() {
		sf := decl.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if _, filled := sf.Tag.Lookup("fill"); name == "-" || filled {
			continue // not sent from the document
		}
		if sf.Anonymous {
			checkReadBack(t, where, sf.Type, doc, prefix)
			continue
		}
		m := cmp.Or(sf.Tag.Get("model"), sf.Name)
		if m == "-" {
			checkReadBack(t, where, nestedType(sf.Type), doc, prefix+name+".")
			continue
		}
		df, ok := doc.FieldByName(m)
		if !ok {
			t.Errorf("%s: %s: no field %s in %s", where, name, m, doc)
			continue
		}
		wire, _, _ := strings.Cut(df.Tag.Get("wire"), "|")
		wire, _, _ = strings.Cut(wire, ";")
		if got := strings.TrimPrefix(wire, "#"); got != prefix+name {
			t.Errorf("%s: %s.%s reads %q back, sent as %q", where, doc.Name(), m, got, prefix+name)
		}
		if isNested(sf.Type) && df.Type.Kind() != reflect.Map { // a map reads the whole object
			dt := df.Type
			if dt.Kind() == reflect.Pointer || dt.Kind() == reflect.Slice {
				dt = dt.Elem()
			}
			checkReadBack(t, where, nestedType(sf.Type), dt, "")
		}
	}
}
