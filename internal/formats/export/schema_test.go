package export

import (
	"strings"
	"testing"

	"filebridge/internal/model"
)

func TestSchemaHeaders(t *testing.T) {
	tests := []struct {
		typ     model.ExportType
		edition model.Edition
		want    string
	}{
		{model.ExportReceipts, model.EditionA, "orderNumber,referenceNumber,statusCode,statusName,receivedAt,warehouse,supplierCode,position,sku,quantityOrdered,quantityReceived,difference,lotNumber,expiryDate,ownerCode,updatedAt"},
		{model.ExportReceipts, model.EditionB, "orderNumber,referenceNumber,statusCode,statusName,receivedAt,warehouse,supplierCode,position,sku,quantityOrdered,quantityReceived,difference,lotNumber,expiryDate,ownerCode,updatedAt"},
		{model.ExportShipments, model.EditionB, "orderNumber,externalOrderNumber,fulfillmentNumber,shippedAt,trackingNumber,carrierCode,carrierName,position,sku,quantityOrdered,quantityShipped,quantityUnfulfillable,reasonCode,reasonComment,lotNumber,expiryDate,ownerCode"},
		{model.ExportStock, model.EditionA, "sku,name,ean,available,incoming,allocated,locked,updatedAt"},
		{model.ExportMovements, model.EditionA, "movedAt,sku,fromPosition,toPosition,quantity,comment,processed"},
		{model.ExportMovements, model.EditionB, "movedAt,sku,fromPosition,toPosition,quantity,comment,fromOwnerCode,fromLotNumber,fromExpiryDate,toOwnerCode,toLotNumber,toExpiryDate,processed"},
		{model.ExportTracking, model.EditionB, "occurredAt,orderNumber,shippingUnitNumber,trackingNumber,statusCode,statusName,location,message,statusDetail,severity,latitude,longitude"},
		{model.ExportItems, model.EditionB, "sku,name,ean,length,width,height,grossWeight,updatedAt"},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ)+"/"+string(tt.edition), func(t *testing.T) {
			s, err := For(tt.typ, tt.edition)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(s.Header(), ","); got != tt.want {
				t.Errorf("header\ngot  %s\nwant %s", got, tt.want)
			}
			for _, c := range s.Columns {
				if c.Doc == "" {
					t.Errorf("column %s has no description", c.Name)
				}
			}
		})
	}
}

func TestSchemaRefusesTypeOutsideEdition(t *testing.T) {
	for _, typ := range []model.ExportType{model.ExportTracking, model.ExportItems, "bogus"} {
		if _, err := For(typ, model.EditionA); err == nil {
			t.Errorf("For(%s, A): no error", typ)
		}
	}
}

func TestEveryExportTypeHasASchema(t *testing.T) {
	for _, e := range model.Editions {
		for _, typ := range model.ExportTypes(e) {
			cols, err := Columns(typ, e)
			if err != nil || len(cols) == 0 {
				t.Errorf("Columns(%s, %s) = %d columns, %v", typ, e, len(cols), err)
			}
		}
	}
}

func TestMarkdown(t *testing.T) {
	md := Markdown(model.EditionB)
	for _, want := range []string{"#### `tracking` (Edition B)", "| `difference` | integer |", "| `expiryDate` | date |", "| `latitude` | number |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown(B) lacks %q", want)
		}
	}
	if strings.Contains(Markdown(model.EditionA), "`tracking` (") {
		t.Error("Markdown(A) documents the tracking export")
	}
}

// MustFor is For for types known to be valid; it panics otherwise.
func MustFor(t model.ExportType, e model.Edition) *Schema {
	s, err := For(t, e)
	if err != nil {
		panic(err)
	}
	return s
}

// Columns returns the columns of an export type in an edition, with their
// kinds and descriptions, for the documentation and `templates`.
func Columns(t model.ExportType, e model.Edition) ([]Column, error) {
	s, err := For(t, e)
	if err != nil {
		return nil, err
	}
	return append([]Column(nil), s.Columns...), nil
}
