package formats

import (
	"bytes"
	"context"
	"testing"

	"filebridge/internal/model"
)

func TestFileTypeAndDelimiter(t *testing.T) {
	tests := []struct {
		name, data string
		opts       Options
		wantType   string
		wantDelim  rune
	}{
		{"comma header", "code,name\nS1,Nordic\n", Options{}, "suppliers", ','},
		{"semicolon header", "sku;name;ean;quantityPerBox;length;width;height;grossWeight;grossWeightBox;buyPrice;supplierCode\n", Options{}, "skus", ';'},
		{"renamed header", "Art.-Nr.|Bezeichnung|ean|quantityPerBox|length|width|height|grossWeight|grossWeightBox|buyPrice|supplierCode\n",
			Options{Columns: map[string]string{"Art.-Nr.": "sku", "Bezeichnung": "name"}}, "skus", '|'},
		{"type from the options", "whatever\tcolumns\n", Options{Type: "orders", Delimiter: '\t'}, "orders", '\t'},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Edition = model.EditionA
			r := bytes.NewReader([]byte(tt.data))
			dt, err := FileType(context.Background(), r, r.Size(), "F.csv", tt.opts)
			if err != nil || dt.Name != tt.wantType {
				t.Fatalf("FileType = %q, %v; want %q", dt.Name, err, tt.wantType)
			}
			sum, err := Decode(context.Background(), r, r.Size(), "F.csv", tt.opts, func(Doc) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if sum.Delimiter != tt.wantDelim {
				t.Errorf("Summary.Delimiter = %q, want %q", sum.Delimiter, tt.wantDelim)
			}
		})
	}
	r := bytes.NewReader([]byte("nothing,known\n1,2\n"))
	if _, err := FileType(context.Background(), r, r.Size(), "F.csv", Options{Edition: model.EditionA}); err == nil {
		t.Error("FileType of an unknown header: want an error")
	}
}
