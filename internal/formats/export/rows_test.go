package export

import (
	"reflect"
	"testing"
	"time"

	"filebridge/internal/model"
)

// TestRowsFilled fills every field of each export's documents and checks
// that every column of its rows gets a value: a column whose document field
// is renamed would be left empty by the by-name fill.
func TestRowsFilled(t *testing.T) {
	var (
		in = full[model.Inbound]()
		sh = full[model.Shipment]()
	)
	in.Lines = []model.InboundLine{full[model.InboundLine]()}
	in.Lines[0].QuantityReceived = 3
	sh.Lines = []model.ShipmentLine{full[model.ShipmentLine]()}
	rows := map[string]any{
		"receipts":  ReceiptRows(in)[0],
		"shipments": ShipmentRows(sh)[0],
		"stock":     StockRowOf(full[model.Stock]()),
		"movements": MovementRowOf(full[model.Movement]()),
		"tracking":  TrackingRowOf(full[model.TrackingEvent]()),
		"items":     ItemRowOf(full[model.Item]()),
	}
	for name, r := range rows {
		v := reflect.ValueOf(r)
		for i := range v.NumField() {
			if v.Field(i).IsZero() {
				t.Errorf("%s: column %s is empty", name, v.Type().Field(i).Name)
			}
		}
	}
}

// full returns a T whose every text, number, time, boolean and status is
// set (slices and pointers left out).
func full[T any]() T {
	var d T
	v := reflect.ValueOf(&d).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)))
		case f.Type() == reflect.TypeFor[model.Status]():
			f.Set(reflect.ValueOf(model.Status{Code: 80, Name: "Received"}))
		case f.Kind() == reflect.String:
			f.SetString("1")
		case f.Kind() == reflect.Int || f.Kind() == reflect.Int64:
			f.SetInt(2)
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		}
	}
	return d
}
