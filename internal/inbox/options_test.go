package inbox_test

import (
	"testing"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/formats"
	"filebridge/internal/inbox"
	"filebridge/internal/model"
)

// TestFormatOptions: a route's settings become the decoder's options;
// without a route, the defaults.
func TestFormatOptions(t *testing.T) {
	cet := time.FixedZone("CET", 3600) // passed on as it is
	tests := []struct {
		name  string
		route *config.Route
		check func(t *testing.T, o formats.Options)
	}{
		{"no route: defaults", nil, func(t *testing.T, o formats.Options) {
			if o.Type != "" || o.Delimiter != 0 || o.NoHeader || o.MaxSize != 1000 || o.Edition != model.EditionB {
				t.Errorf("%+v", o)
			}
		}},
		{"full route", &config.Route{Type: "variants", Format: "csv", Delimiter: ";", Charset: "windows-1252", Decimal: ",",
			DateLayout: "02.01.2006", Location: cet, Header: true, Columns: map[string]string{"Art.-Nr.": "sku"},
			Defaults: map[string]config.Constant{"warehouseLocation": "3"}}, func(t *testing.T, o formats.Options) {
			if o.Type != "variants" || o.Delimiter != ';' || o.Charset != "windows-1252" || !o.DecimalComma ||
				o.DateLayout != "02.01.2006" || o.Location != cet || o.NoHeader || o.Columns["Art.-Nr."] != "sku" ||
				o.Defaults["warehouseLocation"] != "3" {
				t.Errorf("%+v", o)
			}
		}},
		{"tab, positions", &config.Route{Delimiter: "\t", Header: false, Positions: []string{"sku", "", "name"}, Sheet: "S"},
			func(t *testing.T, o formats.Options) {
				if o.Delimiter != '\t' || !o.NoHeader || len(o.Positions) != 3 || o.Sheet != "S" {
					t.Errorf("%+v", o)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, inbox.FormatOptions(model.EditionB, tt.route, 1000))
		})
	}
}
