package formats

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
)

var (
	A = model.EditionA
	B = model.EditionB
)

func TestBindAll(t *testing.T) {
	for _, e := range model.Editions {
		for _, dt := range model.DocTypes(e) {
			s, _ := model.SpecFor(e, dt.Kind)
			for _, f := range s.Fields {
				if bind(dt.Kind, f) == nil {
					t.Errorf("edition %s %s: column %q has no place in the documents", e, dt.Name, f.Name)
				}
			}
		}
	}
}

// TestBindPaths decodes each document type's example row, and a service
// row for Edition A orders, and finds every column given a value at the
// place of the document its declaration names.
func TestBindPaths(t *testing.T) {
	for _, e := range model.Editions {
		for _, dt := range model.DocTypes(e) {
			t.Run(string(e)+"/"+dt.Name, func(t *testing.T) {
				rows := []map[string]string{exampleRow(e, dt.Kind, nil)}
				if s, _ := model.SpecFor(e, dt.Kind); dt.Kind == model.KindOutbound {
					if _, ok := s.Field("serviceType"); ok {
						rows = append(rows, exampleRow(e, dt.Kind, map[string]string{"sku": "", "serviceType": "TAKE-BACK", "position": "2"}))
					}
				}
				res := decodeBytes(t, "F.csv", csvFile(',', header(e, dt.Kind), rows...), Options{Edition: e})
				if res.err != nil || len(res.errors()) > 0 || len(res.docs) != 1 {
					t.Fatalf("err %v, %d docs, issues:%s", res.err, len(res.docs), dump(res.all()))
				}
				d := res.docs[0]
				doc := reflect.ValueOf(map[model.Kind]any{
					model.KindPartner: d.Partner, model.KindItem: d.Item, model.KindPackaging: d.Packaging,
					model.KindInbound: d.Inbound, model.KindOutbound: d.Outbound,
				}[dt.Kind]).Elem()
				s, _ := model.SpecFor(e, dt.Kind)
				for _, f := range s.Fields {
					want := rows[0][f.Name]
					if f.Level == model.LevelService {
						want = rows[len(rows)-1][f.Name]
					}
					if want == "" {
						continue
					}
					if got := valueAt(doc, f); got == "" {
						t.Errorf("column %s (%q) is not in the document at %v", f.Name, want, f.Path)
					}
				}
			})
		}
	}
}

// valueAt returns the text of the value at f's path in doc ("" when zero or
// absent): the first line of a line column, the service line of a service
// column, a map's value at the column's last name.
func valueAt(doc reflect.Value, f model.Field) string {
	v := doc
	for i, name := range f.Path {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return ""
			}
			v = v.Elem()
		}
		if v.Kind() == reflect.Map {
			return v.MapIndex(reflect.ValueOf(f.Name[strings.LastIndexByte(f.Name, '.')+1:])).String()
		}
		if i == 0 && f.Level == model.LevelService {
			name = "ServiceLines"
		}
		v = v.FieldByName(name)
		if !v.IsValid() {
			return ""
		}
		if v.Kind() == reflect.Slice {
			if v.Len() == 0 {
				return ""
			}
			v = v.Index(0)
		}
	}
	if v.IsZero() {
		return ""
	}
	return fmt.Sprint(v.Interface())
}

func TestExamplesValid(t *testing.T) {
	for _, e := range model.Editions {
		for _, dt := range model.DocTypes(e) {
			t.Run(string(e)+"/"+dt.Name, func(t *testing.T) {
				data := csvFile(',', header(e, dt.Kind), exampleRow(e, dt.Kind, nil))
				res := decodeBytes(t, "F.csv", data, Options{Edition: e})
				if res.err != nil || len(res.errors()) > 0 || len(res.docs) != 1 {
					t.Fatalf("err %v, %d docs, issues:%s", res.err, len(res.docs), dump(res.all()))
				}
				if res.sum.Type.Name != dt.Name {
					t.Errorf("detected %q, want %q", res.sum.Type.Name, dt.Name)
				}
			})
		}
	}
}

// TestRules runs one case per validation rule: rows (example rows with
// overrides) and the issue expected (column and part of the message); an
// empty want means the file is valid.
func TestRules(t *testing.T) {
	P, I, K, In, Out := model.KindPartner, model.KindItem, model.KindPackaging, model.KindInbound, model.KindOutbound
	type ov = map[string]string
	tests := []struct {
		name    string
		e       model.Edition
		k       model.Kind
		rows    []ov
		drop    []string // columns removed from the header
		column  string
		want    string
		wantRow int
	}{
		{"required", A, I, []ov{{"name": ""}}, nil, "name", "required", 2},
		{"sku length A", A, I, []ov{{"sku": "CHAIR-OAK-01-BLACK"}}, nil, "sku", `SKU "CHAIR-OAK-01-BLACK" is 18 characters long; at most 14 are allowed in edition A`, 2},
		{"sku length B ok", B, I, []ov{{"sku": "CHAIR-OAK-01-BLAC"}}, nil, "", "", 0},
		{"sku length B", B, I, []ov{{"sku": "CHAIR-OAK-01-BLACK"}}, nil, "sku", "at most 17", 2},
		{"reception number A", A, In, []ov{{"orderNumber": "REC-2026-00042"}}, nil, "orderNumber", "at most 13", 2},
		{"purchase order number B", B, In, []ov{{"orderNumber": strings.Repeat("P", 28)}}, nil, "orderNumber", "at most 27", 2},
		{"order number", A, Out, []ov{{"orderNumber": strings.Repeat("S", 18)}}, nil, "orderNumber", "at most 17", 2},
		{"connection code", B, P, []ov{{"code": strings.Repeat("C", 15)}}, nil, "code", "at most 14", 2},
		{"connection name", B, P, []ov{{"name": strings.Repeat("N", 31)}}, nil, "name", "at most 30", 2},
		{"enum case", A, In, []ov{{"orderType": "cont40"}}, nil, "orderType", `write "CONT40"`, 2},
		{"enum delivery mode", A, Out, []ov{{"deliveryMode": "FAST"}}, nil, "deliveryMode", "use one of ECO, STANDARD, UNPACKING, MOUNTING", 2},
		{"enum relationship", B, P, []ov{{"relationship": "Supplier"}}, nil, "relationship", "not an allowed relationship", 2},
		{"enum level", B, K, []ov{{"level": "pcb"}}, nil, "level", `write "PCB"`, 2},
		{"positive decimal", A, I, []ov{{"quantityPerBox": "0"}}, nil, "quantityPerBox", "greater than 0", 2},
		{"positive int", A, Out, []ov{{"quantity": "-3"}}, nil, "quantity", "greater than 0", 2},
		{"positive warehouse", A, In, []ov{{"warehouseLocation": "0"}}, nil, "warehouseLocation", "greater than 0", 2},
		{"integer", A, In, []ov{{"quantity": "2.5"}}, nil, "quantity", "whole number", 2},
		{"integer with sign", A, Out, []ov{{"quantity": "+7"}}, nil, "", "", 0},
		{"integer beyond int64", A, Out, []ov{{"quantity": "9223372036854775808"}}, nil, "quantity", "is too large", 2},
		{"integer with .0", B, Out, []ov{{"quantity": "2.0"}}, nil, "quantity", "without decimals: write 2", 2},
		{"number", A, I, []ov{{"length": "45cm"}}, nil, "length", "not a number", 2},
		{"ean check digit", A, I, []ov{{"ean": "4006381333932"}}, nil, "ean", "check digit", 2},
		{"ean excel exponent", A, I, []ov{{"ean": "4.00638E+12"}}, nil, "ean", "Excel turned this EAN into a number", 2},
		{"ean excel decimal", B, I, []ov{{"ean": "4006381333931.0"}}, nil, "ean", "format the column as Text", 2},
		{"ean leading zero", B, I, []ov{{"ean": "36000291452"}}, nil, "ean", "lost its leading zero", 2},
		{"ean box", A, I, []ov{{"eanBox": "14006381333939"}}, nil, "eanBox", "check digit", 2},
		{"packaging ean", B, K, []ov{{"ean": "123"}}, nil, "ean", "8, 12, 13 or 14 digits", 2},
		{"item ean on reception", A, In, []ov{{"item.ean": "4006381333932"}}, nil, "item.ean", "check digit", 2},
		{"eanBox required", A, I, []ov{{"quantityPerBox": "6", "eanBox": ""}}, nil, "eanBox", "required when quantityPerBox is above 1", 2},
		{"eanBox optional at 1", A, I, []ov{{"quantityPerBox": "1", "eanBox": ""}}, nil, "", "", 0},
		{"country case", A, Out, []ov{{"shipTo.countryCode": "fr"}}, nil, "shipTo.countryCode", "upper case", 2},
		{"country", B, P, []ov{{"countryCode": "XX"}}, nil, "countryCode", "ISO 3166", 2},
		{"email", B, Out, []ov{{"shipTo.email": "jeanne@example"}}, nil, "shipTo.email", "not an e-mail", 2},
		{"unique sku", A, I, []ov{{}, {"name": "other"}}, nil, "sku", "already appears on line 2", 3},
		{"unique supplier", A, P, []ov{{}, {}}, nil, "code", "already appears on line 2", 3},
		{"unique connection", B, P, []ov{{}, {}}, nil, "code", "already appears on line 2", 3},
		{"connection without code", B, P, []ov{{"code": ""}, {"code": ""}}, nil, "", "", 0},
		{"packaging per sku ok", B, K, []ov{{}, {"sku": "TABLE-01"}}, nil, "", "", 0},
		{"packaging per sku", B, K, []ov{{}, {}}, nil, "code", "already appears on line 2", 3},
		{"order rows apart", A, Out, []ov{{}, {"orderNumber": "SO-2"}, {"position": "2"}}, nil, "", "", 0},
		{"order rows apart agree", B, Out, []ov{{}, {"orderNumber": "SO-2"}, {"warehouseLocation": "4", "sku": "T", "position": "2"}}, nil, "warehouseLocation", `this row has "4", line 2 has "3"`, 4},
		{"positions assigned", A, Out, []ov{{"position": ""}, {"position": "", "sku": "T"}}, nil, "", "", 0},
		{"positions mixed", A, In, []ov{{"position": "1"}, {"position": "", "sku": "T"}}, nil, "position", "give every line of the order a position, or none", 3},
		{"positions unique", B, In, []ov{{"position": "1"}, {"position": "1", "sku": "T"}}, nil, "position", "position 1 is already used on line 2", 3},
		{"header agree", B, Out, []ov{{}, {"warehouseLocation": "4", "sku": "T"}}, nil, "warehouseLocation", `this row has "4", line 2 has "3"`, 3},
		{"header agree typed", A, In, []ov{{}, {"dueAt": "2026-12-01T09:00:00+01:00", "sku": "T", "position": "2"}}, nil, "", "", 0},
		{"header later fills", A, Out, []ov{{"externalOrderNumber": ""}, {"sku": "T", "position": "2"}}, nil, "", "", 0},
		{"header required on order", A, Out, []ov{{"externalOrderNumber": ""}, {"externalOrderNumber": "", "sku": "T"}}, nil, "externalOrderNumber", "empty on every row", 2},
		{"service line", A, Out, []ov{{}, {"sku": "", "serviceType": "TAKEBACK", "quantity": "1"}}, nil, "", "", 0},
		{"service line quantity", A, Out, []ov{{}, {"sku": "", "serviceType": "TAKEBACK", "quantity": ""}}, nil, "quantity", "required", 3},
		{"line without sku", A, Out, []ov{{"sku": ""}}, nil, "sku", "or a serviceType", 2},
		{"line without sku B", B, Out, []ov{{"sku": ""}}, nil, "sku", "needs the SKU", 2},
		{"sku and service", A, Out, []ov{{"serviceType": "TAKEBACK"}}, nil, "serviceType", "not both", 2},
		{"address A", A, Out, []ov{{"shipTo.city": ""}}, nil, "shipTo.city", "consignee address needs shipTo.city", 2},
		{"address A last name", A, Out, []ov{{"shipTo.name": "", "shipTo.lastName": "Martin"}}, nil, "", "", 0},
		{"address A no name", A, Out, []ov{{"shipTo.name": "", "shipTo.lastName": ""}}, nil, "shipTo.name", "needs a name", 2},
		{"address B partial", B, Out, []ov{{"shipTo.zipcode": ""}}, nil, "shipTo.zipcode", "needs shipTo.zipcode", 2},
		{"consignee B missing", B, Out, []ov{shipToEmpty(map[string]string{"shipToCode": ""})}, nil, "shipToCode", "needs a consignee", 2},
		{"consignee B code", B, Out, []ov{shipToEmpty(map[string]string{"shipToCode": "CUST-9"})}, nil, "", "", 0},
		{"warehouse B", B, In, []ov{{"warehouseLocation": "", "warehouseCode": ""}}, nil, "warehouseLocation", "warehouseLocation or a warehouseCode", 2},
		{"warehouse B code", B, Out, []ov{{"warehouseLocation": "", "warehouseCode": "WH-LYON"}}, nil, "", "", 0},
		{"item master partial", A, In, []ov{{"item.ean": ""}}, nil, "item.ean", "carries SKU master data", 2},
		{"item master eanBox", A, In, []ov{{"item.quantityPerBox": "4", "item.eanBox": ""}}, nil, "item.eanBox", "above 1", 2},
		{"no item master", B, In, []ov{itemEmpty(B)}, nil, "", "", 0},
		{"reception line link", A, Out, []ov{{"purchaseOrderLineItem.orderNumber": "REC-1"}}, nil, "purchaseOrderLineItem.position", "needs both", 2},
		{"date", A, In, []ov{{"dueAt": "01/12/2026"}}, nil, "dueAt", "not a date-time", 2},
		{"date B", B, Out, []ov{{"plannedDeliveryDate": "2026-13-01"}}, nil, "plannedDeliveryDate", "not a date", 2},
		{"time", B, Out, []ov{{"deliveryTimeSlotBefore": "5 o'clock"}}, nil, "deliveryTimeSlotBefore", "not a time", 2},
		{"missing column", A, I, []ov{{}}, []string{"ean"}, "ean", "required column \"ean\" is missing", 0},
		{"missing address column", A, Out, []ov{{}}, []string{"shipTo.city"}, "shipTo.city", "required column", 0},
		{"missing warehouse columns B", B, In, []ov{{}}, []string{"warehouseLocation", "warehouseCode"}, "warehouseLocation", "needs a column", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := header(tt.e, tt.k)
			for _, d := range tt.drop {
				for i, h := range head {
					if h == d {
						head = append(head[:i:i], head[i+1:]...)
						break
					}
				}
			}
			var rows []map[string]string
			for _, o := range tt.rows {
				rows = append(rows, exampleRow(tt.e, tt.k, o))
			}
			i := slices.IndexFunc(model.DocTypes(tt.e), func(dt model.DocType) bool { return dt.Kind == tt.k })
			res := decodeBytes(t, "F.csv", csvFile(',', head, rows...), Options{Edition: tt.e, Type: model.DocTypes(tt.e)[i].Name})
			if res.err != nil {
				t.Fatal(res.err)
			}
			errs := res.errors()
			if tt.want == "" {
				if len(errs) > 0 {
					t.Fatalf("want no error, got:%s", dump(errs))
				}
				return
			}
			is, ok := findIssue(errs, tt.column, tt.want)
			if !ok {
				t.Fatalf("want an error on %q containing %q, got:%s", tt.column, tt.want, dump(res.all()))
			}
			if is.Row != tt.wantRow {
				t.Errorf("issue on row %d, want %d: %s", is.Row, tt.wantRow, is.Error())
			}
			if tt.wantRow > 0 && res.sum.InvalidDocs == 0 {
				t.Errorf("no invalid document")
			}
		})
	}
}

func shipToEmpty(o map[string]string) map[string]string {
	for _, c := range header(B, model.KindOutbound) {
		if strings.HasPrefix(c, "shipTo.") {
			o[c] = ""
		}
	}
	return o
}

func itemEmpty(e model.Edition) map[string]string {
	o := map[string]string{}
	for _, c := range header(e, model.KindInbound) {
		if strings.HasPrefix(c, "item.") {
			o[c] = ""
		}
	}
	return o
}

// TestDocuments checks decoded values, not only issues.
func TestDocuments(t *testing.T) {
	t.Run("supplier relationship default", func(t *testing.T) {
		res := decodeBytes(t, "S.csv", []byte("code,name\nSUP-1,Nordic\n"), Options{Edition: A})
		if len(res.docs) != 1 || res.docs[0].Partner.Relationship != "Manufacturer" || !res.docs[0].Valid() {
			t.Fatalf("docs %+v issues %s", res.docs, dump(res.all()))
		}
	})
	t.Run("reception with item master", func(t *testing.T) {
		data := csvFile(';', header(A, model.KindInbound), exampleRow(A, model.KindInbound, nil),
			exampleRow(A, model.KindInbound, map[string]string{"position": "2", "sku": "TABLE-1", "quantity": "7"}))
		res := decodeBytes(t, "R.csv", data, Options{Edition: A})
		if len(res.docs) != 1 || len(res.errors()) > 0 {
			t.Fatalf("%d docs:%s", len(res.docs), dump(res.all()))
		}
		in := res.docs[0].Inbound
		want := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
		if in.OrderNumber != "REC-2026-0042" || in.WarehouseLocation != 3 || !in.DueAt.Equal(want) || in.Attributes["deliveryType"] != "pallet" {
			t.Errorf("header %+v", in)
		}
		if len(in.Lines) != 2 || in.Lines[1].Position != 2 || in.Lines[1].Quantity != 7 || in.Lines[1].SKU != "TABLE-1" {
			t.Fatalf("lines %+v", in.Lines)
		}
		it := in.Lines[1].Item
		if it == nil || it.SKU != "TABLE-1" || it.SupplierCode != "SUP-001" || it.GrossWeight != "6.5" || it.EAN != "4006381333931" {
			t.Errorf("item %+v", it)
		}
		if got := res.docs[0].Rows; len(got) != 2 || got[0] != 2 || got[1] != 3 {
			t.Errorf("rows %v", got)
		}
	})
	t.Run("sales order B embedded consignee", func(t *testing.T) {
		data := csvFile(',', header(B, model.KindOutbound), exampleRow(B, model.KindOutbound, map[string]string{"shipToCode": "CUST-9"}))
		res := decodeBytes(t, "O.csv", data, Options{Edition: B, Type: "orders"})
		if len(res.docs) != 1 || len(res.errors()) > 0 {
			t.Fatalf("%s", dump(res.all()))
		}
		out := res.docs[0].Outbound
		if out.ShipTo == nil || out.ShipTo.Code != "CUST-9" || out.ShipToCode != "" || out.ShipTo.City != "Lyon" ||
			out.DeliveryTimeSlotBefore != "17:00" || !out.PlannedDeliveryDate.Equal(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("order %+v ship to %+v", out, out.ShipTo)
		}
		if len(out.Lines) != 1 || out.Lines[0].Position != 1 || out.Lines[0].Quantity != 2 {
			t.Errorf("lines %+v", out.Lines)
		}
	})
	t.Run("service lines numbered apart", func(t *testing.T) {
		data := csvFile(',', header(A, model.KindOutbound), exampleRow(A, model.KindOutbound, map[string]string{"position": ""}),
			exampleRow(A, model.KindOutbound, map[string]string{"position": "", "sku": "", "serviceType": "TAKEBACK", "quantity": "1"}),
			exampleRow(A, model.KindOutbound, map[string]string{"position": "", "sku": "T2"}))
		res := decodeBytes(t, "O.csv", data, Options{Edition: A})
		out := res.docs[0].Outbound
		if len(out.Lines) != 2 || out.Lines[1].Position != 2 || len(out.ServiceLines) != 1 || out.ServiceLines[0].Position != 1 ||
			out.ServiceLines[0].ServiceType != "TAKEBACK" || out.ServiceLines[0].Quantity != 1 {
			t.Errorf("lines %+v services %+v:%s", out.Lines, out.ServiceLines, dump(res.all()))
		}
	})
}
