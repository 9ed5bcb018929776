package portal

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"filebridge/internal/model"
)

var (
	due     = time.Date(2026, 12, 1, 8, 0, 0, 0, time.FixedZone("CET", 3600))
	expiry  = time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
	planned = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
)

func samplePartner() model.Partner {
	return model.Partner{Code: "SUP-001", Name: "Nordic Furniture AB", Relationship: "Manufacturer", CountryCode: "SE",
		City: "Malmö", Zipcode: "21120", StreetAddress: "Industrigatan 4", Email: "orders@nordic.example", ContactName: "Eva Lind"}
}

func sampleItem() model.Item {
	return model.Item{SKU: "CHAIR-OAK-01", Name: "Oak chair", Description1: "Solid <oak> & chair", EAN: "4006381333931",
		EANBox: "14006381333938", QuantityPerBox: "4", Length: "45", Width: "50", Height: "90", GrossWeight: "6.5",
		GrossWeightBox: "27.2", BuyPrice: "89.90", SupplierCode: "SUP-001"}
}

func sampleInbound() model.Inbound {
	return model.Inbound{OrderNumber: "REC-0042", ReferenceNumber: "PO-88123", WarehouseLocation: 3, WarehouseCode: "WH-LYON",
		SupplierCode: "SUP-001", OrderType: "CONT40", Attributes: map[string]string{"deliveryType": "pallet"}, DueAt: due,
		Lines: []model.InboundLine{
			{Position: 1, SKU: "CHAIR-OAK-01", Quantity: 40, LotNumber: "LOT-7781", ExpiryDate: expiry},
			{Position: 2, SKU: "TABLE-OAK-01", Quantity: 10},
		}}
}

func sampleOutbound() model.Outbound {
	return model.Outbound{OrderNumber: "SO-10001", ExternalOrderNumber: "WEB-558812", DeliveryMode: "STANDARD",
		WarehouseLocation: 3,
		ShipTo: &model.Address{Name: "Jeanne Martin", Title: "Mme", FirstName: "Jeanne", LastName: "Martin",
			StreetAddress: "12 rue des Lilas", City: "Lyon", CountryCode: "FR", Zipcode: "01000", Email: "j@example.org",
			Phone: "+33 6", LanguageCode: "fr", AccessCode: "4521", Floor: "3"},
		CarrierCode: "DHL", CarrierServiceCode: "EXPRESS", PlannedDeliveryDate: planned, DeliveryTimeSlotBefore: "17:00",
		Lines: []model.OutboundLine{
			{Position: 1, SKU: "CHAIR-OAK-01", Quantity: 2, ReceptionOrderNumber: "REC-0042", ReceptionPosition: 1},
			{Position: 2, SKU: "TABLE-OAK-01", Quantity: 1},
		},
		ServiceLines: []model.ServiceLine{{Position: 3, ServiceType: "TAKEBACK", Quantity: 1}},
	}
}

// TestCreateRequestGolden checks every create's wire body, path and headers
// per edition against testdata/requests.
func TestCreateRequestGolden(t *testing.T) {
	type create func(ctx context.Context, c *Client) (Outcome, error)
	tests := []struct {
		name    string
		edition model.Edition
		path    string
		do      create
	}{
		{"A-partner", model.EditionA, "/api/connections", func(ctx context.Context, c *Client) (Outcome, error) {
			return c.CreatePartner(ctx, model.Partner{Code: "SUP-001", Name: "Nordic Furniture AB"})
		}},
		{"A-item", model.EditionA, "/api/variants", func(ctx context.Context, c *Client) (Outcome, error) {
			return c.CreateItem(ctx, sampleItem())
		}},
		{"A-inbound", model.EditionA, "/api/purchase_orders", func(ctx context.Context, c *Client) (Outcome, error) {
			return c.CreateInbound(ctx, sampleInbound())
		}},
		{"A-outbound", model.EditionA, "/api/sales_orders", func(ctx context.Context, c *Client) (Outcome, error) {
			return c.CreateOutbound(ctx, sampleOutbound())
		}},
		{"B-partner", model.EditionB, "/api/connections", func(ctx context.Context, c *Client) (Outcome, error) {
			return c.CreatePartner(ctx, samplePartner())
		}},
		{"B-item", model.EditionB, "/api/variants", func(ctx context.Context, c *Client) (Outcome, error) {
			return c.CreateItem(ctx, sampleItem())
		}},
		{"B-packaging", model.EditionB, "/api/variant_packagings", func(ctx context.Context, c *Client) (Outcome, error) {
			return c.CreatePackaging(ctx, model.Packaging{SKU: "CHAIR-OAK-01", Code: "OUTER_CARTON", EAN: "14006381333938",
				Quantity: 4, Length: "60", GrossWeight: "28.0", Level: "PCB", Type: "BOX", SupplierCode: "SUP-001"})
		}},
		{"B-inbound", model.EditionB, "/api/purchase_orders", func(ctx context.Context, c *Client) (Outcome, error) {
			in := sampleInbound()
			in.WarehouseLocation = 0
			return c.CreateInbound(ctx, in)
		}},
		{"B-outbound-embedded", model.EditionB, "/api/sales_orders", func(ctx context.Context, c *Client) (Outcome, error) {
			o := sampleOutbound()
			o.WarehouseLocation, o.WarehouseCode, o.ShipToCode = 0, "WH-LILLE", "CUST-NEW"
			return c.CreateOutbound(ctx, o)
		}},
		// A consignee whose code is already a connection is referred to by
		// its id: embedding a code again is refused as already used.
		{"B-outbound-known-consignee", model.EditionB, "/api/sales_orders", func(ctx context.Context, c *Client) (Outcome, error) {
			o := sampleOutbound()
			o.ShipToCode, o.CarrierCode, o.CarrierServiceCode = "CUST-9", "", ""
			return c.CreateOutbound(ctx, o)
		}},
		{"B-outbound-codes", model.EditionB, "/api/sales_orders", func(ctx context.Context, c *Client) (Outcome, error) {
			o := sampleOutbound()
			o.ShipTo, o.ShipToCode, o.BillingToCode, o.CarrierCode, o.CarrierServiceCode = nil, "CUST-9", "SUP-001", "", "ECO"
			return c.CreateOutbound(ctx, o)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := &fakePortal{partners: map[string]int64{"SUP-001": 5, "CUST-9": 9},
				skus: map[string]int64{"CHAIR-OAK-01": 12, "TABLE-OAK-01": 13}}
			srv, rec := serve(t, fp.handle)
			c := testClient(t, tt.edition, srv.URL)
			out, err := tt.do(t.Context(), c)
			if err != nil {
				t.Fatal(err)
			}
			if out.ID != 1001 || out.Existed {
				t.Errorf("outcome: got %+v want ID 1001", out)
			}
			var post *recorded
			for _, r := range rec.all() {
				if r.Method == http.MethodPost {
					post = &r
				}
			}
			if post == nil || post.Path != tt.path {
				t.Fatalf("no POST to %s: %+v", tt.path, rec.all())
			}
			for h, want := range map[string]string{"Authorization": "Bearer " + testToken,
				"Accept": "application/ld+json", "Content-Type": "application/json"} {
				if got := post.Header.Get(h); got != want {
					t.Errorf("header %s: got %q want %q", h, got, want)
				}
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, []byte(post.Body), "", "  "); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, post.Body)
			}
			pretty.WriteByte('\n')
			golden := filepath.Join("testdata", "requests", tt.name+".json")
			if *update {
				_ = os.WriteFile(golden, pretty.Bytes(), 0o644)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if pretty.String() != string(want) {
				t.Errorf("body differs from %s:\n%s", golden, pretty.String())
			}
		})
	}
}

// TestCreateWithoutID: a create answer without id or @id is completed by a
// look-up by key, and the document counts as created by this call (never
// as already there, never with id 0).
func TestCreateWithoutID(t *testing.T) {
	for _, e := range []model.Edition{model.EditionA, model.EditionB} {
		t.Run(string(e), func(t *testing.T) {
			fp := &fakePortal{partners: map[string]int64{}, noIDs: true}
			srv, rec := serve(t, fp.handle)
			c := testClient(t, e, srv.URL)
			out, err := c.CreatePartner(t.Context(), model.Partner{Code: "SUP-NEW", Name: "N", Relationship: "Manufacturer"})
			if err != nil {
				t.Fatal(err)
			}
			if out.ID != 1001 || out.Existed {
				t.Errorf("outcome %+v, want ID 1001 created by this call", out)
			}
			var posts, gets int
			for _, r := range rec.all() {
				switch r.Method {
				case http.MethodPost:
					posts++
				case http.MethodGet:
					gets++
				}
			}
			if posts != 1 || gets != 1 {
				t.Errorf("%d POST and %d GET, want 1 and 1", posts, gets)
			}
			if id, err := c.ResolvePartner(t.Context(), "SUP-NEW"); err != nil || id != 1001 {
				t.Errorf("the created supplier resolves to %d (%v), want 1001 from the cache", id, err)
			}
		})
	}
}
