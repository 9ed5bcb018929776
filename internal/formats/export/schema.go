// Package export owns the file layout of filebridge's scheduled exports: one
// typed row struct per export type (receipts, shipments, stock, movements,
// tracking, items) whose `csv` struct tags are the single source of the
// column names and order, the conversion of model documents into those rows,
// and the streaming CSV and XLSX encoders that write them.
//
// Row structs carry these tags:
//
//	csv:"name[,omitempty][,date]"   column name; omitempty writes a zero
//	                                number as an empty cell; date writes a
//	                                time.Time as a calendar date
//	doc:"..."                       the column's description (Columns)
//	edition:"B"                     the column exists only in that edition
//	model:"Status.Code"             the document's field the column is
//	                                filled from, when not the same name
//
// The tags are read by this package rather than by gocarina/gocsv: gocsv
// writes a zero time.Time as "0001-01-01T00:00:00Z" where the cell must stay
// empty, and it cannot apply an export's decimal comma, date layout, time
// zone or charset, nor give XLSX typed cells. The value of a Go field decides
// the cell type: string is text, integers are numbers, model.Decimal is an
// exact decimal number (never rendered through a float in CSV), time.Time a
// date-time (or date) and bool a boolean.
package export

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"filebridge/internal/model"
)

// Kind is the type of a column's cells.
type Kind int

const (
	Text     Kind = iota + 1 // a string, written as is (formula characters neutralised)
	Integer                  // a whole number
	Number                   // an exact decimal number (model.Decimal)
	DateTime                 // an instant, written in the export's time zone
	Date                     // a calendar date, never shifted by a time zone
	Boolean                  // true or false
)

var kindNames = [...]string{Text: "text", Integer: "integer", Number: "number", DateTime: "date-time", Date: "date", Boolean: "boolean"}

func (k Kind) String() string {
	if k < Text || int(k) >= len(kindNames) {
		return fmt.Sprintf("kind(%d)", int(k))
	}
	return kindNames[k]
}

// Column describes one column of an export file.
type Column struct {
	Name      string // header name, the API's field name where there is one
	Kind      Kind
	OmitEmpty bool   // a zero number is written as an empty cell
	Doc       string // what the column holds
	Edition   model.Edition
	field     int // index of the field in the row struct
}

// Schema is the column layout of one export type in one edition.
type Schema struct {
	Type    model.ExportType
	Edition model.Edition
	Columns []Column
	// Key is the column that names the document a row comes from, used in
	// error messages ("row 12 (orderNumber PO-1)").
	Key     string
	rowType reflect.Type
	keyIdx  int
}

// rowTypes maps each export type to its row struct and key column.
var rowTypes = map[model.ExportType]struct {
	row any
	key string
}{
	model.ExportReceipts:  {ReceiptRow{}, "orderNumber"},
	model.ExportShipments: {ShipmentRow{}, "orderNumber"},
	model.ExportStock:     {StockRow{}, "sku"},
	model.ExportMovements: {MovementRow{}, "sku"},
	model.ExportTracking:  {TrackingRow{}, "shippingUnitNumber"},
	model.ExportItems:     {ItemRow{}, "sku"},
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[model.Decimal]()
)

// For returns the schema of an export type in an edition. The type must be
// one the edition offers (model.ExportTypes).
func For(t model.ExportType, e model.Edition) (*Schema, error) {
	if _, err := model.ParseExportType(e, string(t)); err != nil {
		return nil, err
	}
	rt, ok := rowTypes[t]
	if !ok {
		return nil, fmt.Errorf("export type %q has no row layout", t)
	}
	cols, err := columnsOf(reflect.TypeOf(rt.row))
	if err != nil {
		return nil, fmt.Errorf("reading the layout of export %s: %w", t, err)
	}
	s := &Schema{Type: t, Edition: e, Key: rt.key, rowType: reflect.TypeOf(rt.row), keyIdx: -1}
	for _, c := range cols {
		if c.Edition != "" && c.Edition != e {
			continue
		}
		s.Columns = append(s.Columns, c)
		if c.Name == rt.key {
			s.keyIdx = c.field
		}
	}
	return s, nil
}

// Header returns the column names in order.
func (s *Schema) Header() []string {
	h := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		h[i] = c.Name
	}
	return h
}

// columnsOf reads the tagged fields of a row struct.
func columnsOf(t reflect.Type) ([]Column, error) {
	var cols []Column
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("csv")
		if !ok || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		c := Column{Name: name, Doc: f.Tag.Get("doc"), Edition: model.Edition(f.Tag.Get("edition")), field: i}
		date := false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				c.OmitEmpty = true
			case "date":
				date = true
			default:
				return nil, fmt.Errorf("field %s: unknown csv tag option %q", f.Name, o)
			}
		}
		switch {
		case f.Type == timeType && date:
			c.Kind = Date
		case f.Type == timeType:
			c.Kind = DateTime
		case f.Type == decimalType:
			c.Kind = Number
		case f.Type.Kind() == reflect.String:
			c.Kind = Text
		case f.Type.Kind() >= reflect.Int && f.Type.Kind() <= reflect.Int64:
			c.Kind = Integer
		case f.Type.Kind() == reflect.Bool:
			c.Kind = Boolean
		default:
			return nil, fmt.Errorf("field %s: type %s cannot be a column", f.Name, f.Type)
		}
		if date && c.Kind != Date {
			return nil, fmt.Errorf("field %s: the date option needs a time.Time", f.Name)
		}
		cols = append(cols, c)
	}
	return cols, nil
}
