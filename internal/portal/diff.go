package portal

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/model"
)

// The diff compares the fields a file sets with what the portal returns: a
// field the file leaves empty, or the response does not carry, is not
// compared. Each difference is a Violation on the file's column. What is
// compared, and how, is the declarations' (model.Spec): every column but
// the key and those marked NoDiff, by its type; lines are matched by
// position (by order when positions are missing).

type differ struct{ vs []Violation }

func (d *differ) add(field, want, got string) {
	d.vs = append(d.vs, Violation{Field: field, Message: fmt.Sprintf("file has %q, portal has %q", want, got)})
}

func (d *differ) str(field, want, got string) {
	want, got = strings.TrimSpace(want), strings.TrimSpace(got)
	if want != "" && got != "" && want != got {
		d.add(field, want, got)
	}
}

// fold compares case-insensitively (country codes, e-mails).
func (d *differ) fold(field, want, got string) {
	want, got = strings.TrimSpace(want), strings.TrimSpace(got)
	if want != "" && got != "" && !strings.EqualFold(want, got) {
		d.add(field, want, got)
	}
}

func (d *differ) dec(field string, want, got model.Decimal) {
	if want.IsZero() || got.IsZero() {
		return
	}
	w, err1 := model.ParseDecimal(string(want))
	g, err2 := model.ParseDecimal(string(got))
	if err1 != nil || err2 != nil || w != g {
		d.add(field, string(want), string(got))
	}
}

func (d *differ) int(field string, want, got int64) {
	if want != 0 && got != 0 && want != got {
		d.add(field, strconv.FormatInt(want, 10), strconv.FormatInt(got, 10))
	}
}

func (d *differ) time(field string, want, got time.Time) {
	if !want.IsZero() && !got.IsZero() && !want.Truncate(time.Second).Equal(got.Truncate(time.Second)) {
		d.add(field, want.UTC().Format(wireTimeLayout), got.UTC().Format(wireTimeLayout))
	}
}

func (d *differ) date(field string, want, got time.Time) {
	if !want.IsZero() && !got.IsZero() && want.Format(wireDateLayout) != got.UTC().Format(wireDateLayout) {
		d.add(field, want.Format(wireDateLayout), got.UTC().Format(wireDateLayout))
	}
}

// ref compares a reference by id when both sides have one, else by code.
func (d *differ) ref(field string, wantID, gotID int64, wantCode, gotCode string) {
	if wantID != 0 && gotID != 0 {
		d.int(field, wantID, gotID)
		return
	}
	d.str(field, wantCode, gotCode)
}

// diffDoc compares want, the file's document of kind k, with got, the
// portal's copy (both model documents of the kind, not pointers).
func diffDoc(e model.Edition, k model.Kind, want, got any) []Violation {
	spec, _ := model.SpecFor(e, k)
	var d differ
	w, g := reflect.ValueOf(want), reflect.ValueOf(got)
	var lineFields []model.Field
	for _, f := range spec.Fields {
		switch {
		case f.NoDiff || f.Name == spec.Key:
		case f.Level != model.LevelHeader:
			lineFields = append(lineFields, f)
		default:
			d.field(f, f.Path, w, g)
		}
	}
	if wl, gl := w.FieldByName("Lines"), g.FieldByName("Lines"); len(lineFields) > 0 && gl.Len() > 0 {
		d.lines(lineFields, wl, gl)
	}
	return d.vs
}

// field compares the field f at path in want and got.
func (d *differ) field(f model.Field, path []string, want, got reflect.Value) {
	up := path[:len(path)-1]
	if f.Unless != "" {
		if u := at(want, append(up[:len(up):len(up)], f.Unless), ""); u.IsValid() && !u.IsNil() {
			return
		}
	}
	wv, gv := at(want, path, f.Name), at(got, path, f.Name)
	if !wv.IsValid() || !gv.IsValid() {
		return
	}
	if f.RefID != "" {
		ids := append(up[:len(up):len(up)], f.RefID)
		d.ref(f.Name, at(want, ids, "").Int(), at(got, ids, "").Int(), wv.String(), gv.String())
		return
	}
	switch f.Type {
	case model.TCountry, model.TEmail:
		d.fold(f.Name, wv.String(), gv.String())
	case model.TDecimal:
		d.dec(f.Name, model.Decimal(wv.String()), model.Decimal(gv.String()))
	case model.TInt:
		d.int(f.Name, wv.Int(), gv.Int())
	case model.TDateTime:
		d.time(f.Name, wv.Interface().(time.Time), gv.Interface().(time.Time))
	case model.TDate:
		d.date(f.Name, wv.Interface().(time.Time), gv.Interface().(time.Time))
	default:
		d.str(f.Name, wv.String(), gv.String())
	}
}

// at returns the value at path in v, invalid when a pointer on the way is
// nil or a map has no value at the column's last name.
func at(v reflect.Value, path []string, col string) reflect.Value {
	for _, name := range path {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		}
		if v.Kind() == reflect.Map {
			return v.MapIndex(reflect.ValueOf(col[strings.LastIndexByte(col, '.')+1:]))
		}
		if v = v.FieldByName(name); !v.IsValid() {
			return v
		}
	}
	return v
}

// lines compares the lines by position (by order when positions are
// missing) on fields, given from the document's own (Lines, then the
// line's field).
func (d *differ) lines(fields []model.Field, want, got reflect.Value) {
	if want.Len() != got.Len() {
		d.vs = append(d.vs, Violation{Field: "lines", Message: fmt.Sprintf("file has %d lines, portal has %d", want.Len(), got.Len())})
		return
	}
	byPos := map[int64]reflect.Value{}
	for i := range got.Len() {
		byPos[got.Index(i).FieldByName("Position").Int()] = got.Index(i)
	}
	for i := range want.Len() {
		w := want.Index(i)
		pos := w.FieldByName("Position").Int()
		g, ok := byPos[pos]
		if pos == 0 || !ok {
			g = got.Index(i)
		}
		n := len(d.vs)
		for _, f := range fields {
			d.field(f, f.Path[1:], w, g)
		}
		if pos == 0 {
			pos = int64(i + 1)
		}
		for j := n; j < len(d.vs); j++ {
			d.vs[j].Message = fmt.Sprintf("line %d: %s", pos, d.vs[j].Message)
		}
	}
}
