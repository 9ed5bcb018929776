package model

import (
	"cmp"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// This file derives the field tables (Spec) from the declarations
// (decl.go). A field's `rule` tag is a comma-separated list of:
//
//	key             the column identifying a document
//	required        required on every document (or line, at line level)
//	max=N           at most N characters
//	positive        a number > 0
//	enum=V|W        the allowed values, or the name of a list in enums
//	undocumented=V  values outside the enum the documents' samples use
//	type=T          ean, country, email, date, time (otherwise from the Go type)
//	service         an Edition A service line column
//	lineitem        (on a nested struct) the SKU master data of a line
//	nodiff          not compared with the portal's copy (lines: the items)
//	ref=ID          compared by the ids of the field ID when both have one
//	unless=F        not compared when the file gives the field F
//
// The type of a field comes from its Go type: string is text, an integer an
// integer, Decimal a number, time.Time a date-time.

// enums are the enums a rule names.
var enums = map[string][]string{
	"RelationshipsCreate":  RelationshipsCreate,
	"ReceptionOrderTypesA": ReceptionOrderTypesA,
}

// specOf derives the field table of a declaration.
func specOf(decl any) Spec {
	var s Spec
	walk(reflect.TypeOf(decl), nil, "", LevelHeader, "", &s)
	return s
}

// walk appends the fields of struct type t to s: prefix is the column
// prefix, path the document's field names leading to t; inItem is the doc
// prefix of a line's SKU master data ("" elsewhere).
func walk(t reflect.Type, path []string, prefix string, level Level, inItem string, s *Spec) {
	for i := range t.NumField() {
		sf := t.Field(i)
		col, hasCol := sf.Tag.Lookup("col")
		ft := sf.Type
		if col == "-" || !hasCol && !sf.Anonymous && !isNested(ft) {
			continue // not a column: sent only (an id, the company), or not even that
		}
		name := prefix + col
		p := path
		if m := cmp.Or(sf.Tag.Get("model"), sf.Name); !sf.Anonymous && m != "-" {
			p = append(path[:len(path):len(path)], m)
		}
		rules := ruleSet(sf.Tag.Get("rule"))
		if isNested(ft) {
			sub, lvl, doc := prefix, level, inItem
			if hasCol {
				sub = name + "."
			}
			if ft.Kind() == reflect.Slice {
				lvl = LevelLine
			}
			if _, ok := rules["lineitem"]; ok {
				doc = "SKU master data: "
			}
			walk(nestedType(ft), p, sub, lvl, doc, s)
			continue
		}
		if inItem != "" && (col == "sku" || col == "supplierCode") {
			continue // the line's own sku; the supplier is the document's
		}
		f := Field{Name: name, Level: level, Type: typeOf(ft), Doc: inItem + sf.Tag.Get("doc"), Example: sf.Tag.Get("ex"), Path: p,
			NoDiff: inItem != ""}
		for r, v := range rules {
			switch r {
			case "key":
				s.Key = name
			case "required":
				f.Required = inItem == "" // required only when the line carries SKU master data
			case "positive":
				f.Positive = true
			case "max":
				n, err := strconv.Atoi(v)
				if err != nil {
					panic(fmt.Sprintf("declaration of %s: max=%q: %v", name, v, err))
				}
				f.MaxLen = n
			case "enum":
				f.Enum = enumOf(v)
			case "undocumented":
				f.Undocumented = enumOf(v)
			case "service":
				f.Level = LevelService
			case "type":
				f.Type = namedTypes[v]
			case "nodiff":
				f.NoDiff = true
			case "ref":
				f.RefID = v
			case "unless":
				f.Unless = v
			default:
				panic(fmt.Sprintf("declaration of %s: unknown rule %q", name, r))
			}
		}
		s.Fields = append(s.Fields, f)
	}
}

// isNested reports a type whose fields are columns: a struct (not a
// value such as a time), a pointer to one, a slice of them (lines), a Ref.
func isNested(t reflect.Type) bool {
	if _, ok := leafTypes[t]; ok {
		return false
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.Pointer, reflect.Slice:
		return t.Elem().Kind() == reflect.Struct
	}
	return false
}

// nestedType is the struct type whose fields are the columns of t.
func nestedType(t reflect.Type) reflect.Type {
	if e, ok := reflect.Zero(t).Interface().(embedder); ok {
		return e.embedded()
	}
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		return t.Elem()
	}
	return t
}

var namedTypes = map[string]FieldType{"ean": TEAN, "country": TCountry, "email": TEmail, "date": TDate, "time": TTime}

// ruleSet splits a rule tag into its rules and their values.
func ruleSet(tag string) map[string]string {
	m := map[string]string{}
	for r := range strings.SplitSeq(tag, ",") {
		if r != "" {
			k, v, _ := strings.Cut(r, "=")
			m[k] = v
		}
	}
	return m
}

func enumOf(v string) []string {
	if e, ok := enums[v]; ok {
		return e
	}
	return strings.Split(v, "|")
}

// leafTypes are the value types that are not text or integers.
var leafTypes = map[reflect.Type]FieldType{
	reflect.TypeFor[Decimal]():   TDecimal,
	reflect.TypeFor[Timestamp](): TDateTime,
	reflect.TypeFor[Date]():      TDate,
	reflect.TypeFor[time.Time](): TDateTime,
}

func typeOf(t reflect.Type) FieldType {
	if ft, ok := leafTypes[t]; ok {
		return ft
	}
	if t.Kind() == reflect.Int || t.Kind() == reflect.Int64 {
		return TInt
	}
	return TString
}
