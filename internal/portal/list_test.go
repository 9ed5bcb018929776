package portal

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/model"
)

// pager serves n connections in pages of the requested size, in the given
// envelope style.
func pager(n int, style string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page, _ := strconv.Atoi(q.Get("page"))
		per, _ := strconv.Atoi(q.Get("itemsPerPage"))
		var members []string
		for i := (page - 1) * per; i < page*per && i < n; i++ {
			members = append(members, fmt.Sprintf(`{"@id":"/api/connections/%d","code":"C%03d"}`, i+1, i))
		}
		list := "[" + strings.Join(members, ",") + "]"
		next := ""
		if page*per < n {
			next = fmt.Sprintf(`,"hydra:next":"/api/connections?page=%d"`, page+1)
		}
		switch style {
		case "hydra":
			reply(w, 200, fmt.Sprintf(`{"hydra:member":%s,"hydra:totalItems":%d}`, list, n))
		case "plain":
			reply(w, 200, fmt.Sprintf(`{"member":%s,"totalItems":"%d"}`, list, n))
		case "view-only":
			reply(w, 200, fmt.Sprintf(`{"hydra:member":%s,"hydra:view":{"@id":"x"%s}}`, list, next))
		case "plain-view":
			reply(w, 200, fmt.Sprintf(`{"member":%s,"view":{"@id":"x"%s}}`, list, strings.ReplaceAll(next, "hydra:", "")))
		case "array":
			reply(w, 200, list)
		case "literal": // as the documents show: a view of @id and @type only
			reply(w, 200, fmt.Sprintf(`{"hydra:member":%s,"hydra:totalItems":%d,"hydra:view":{"@id":"/api/connections?page=%d","@type":"hydra:PartialCollectionView"}}`, list, n, page))
		case "short": // announces two more documents than it lists
			reply(w, 200, fmt.Sprintf(`{"hydra:member":%s,"hydra:totalItems":%d,"hydra:view":{"@id":"x"}}`, list, n+2))
		case "same-page": // ignores the page parameter
			reply(w, 200, fmt.Sprintf(`{"hydra:member":[{"id":1,"code":"C000"}],"hydra:totalItems":%d,"hydra:view":{"@id":"/api/connections?page=%d"}}`, n, page))
		}
	}
}

func TestPaging(t *testing.T) {
	tests := []struct {
		style     string
		n, per    int
		wantPages int
	}{
		{"hydra", 25, 10, 3},
		{"hydra", 20, 10, 2},
		{"hydra", 0, 10, 1},
		{"plain", 25, 10, 3},
		{"view-only", 25, 10, 3},
		{"view-only", 20, 10, 2},
		{"plain-view", 7, 3, 3},
		{"array", 25, 10, 3},
		{"array", 20, 10, 3}, // a last full page needs one empty page to be sure
		{"literal", 5, 3, 2},
		{"literal", 7, 3, 3},
		{"literal", 6, 3, 2},
		{"literal", 0, 3, 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d-by-%d", tt.style, tt.n, tt.per), func(t *testing.T) {
			srv, rec := serve(t, pager(tt.n, tt.style))
			c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = tt.per })
			got, err := partnerCodes(t, c, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n {
				t.Fatalf("got %d partners, want %d", len(got), tt.n)
			}
			for i, code := range got {
				if code != fmt.Sprintf("C%03d", i) {
					t.Fatalf("partner %d is %s", i, code)
				}
			}
			if pages := len(rec.all()); pages != tt.wantPages {
				t.Errorf("pages requested: got %d want %d", pages, tt.wantPages)
			}
		})
	}
}

// TestPagingIncomplete lists portals that end a list before its total or
// repeat a page: both are errors after the documents seen, never a loop.
func TestPagingIncomplete(t *testing.T) {
	tests := []struct {
		style     string
		n, per    int
		wantSeen  int
		wantPages int
		ahead     int // pages that may be requested ahead before the error shows
		wantErr   string
	}{
		{"short", 5, 3, 5, 3, 0, "ended after 5 of the 7 documents"},
		{"same-page", 5, 1, 1, 2, 1, "page 2 is the same as page 1"},
	}
	for _, tt := range tests {
		t.Run(tt.style, func(t *testing.T) {
			srv, rec := serve(t, pager(tt.n, tt.style))
			c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = tt.per })
			got, last := partnerCodes(t, c, 0)
			seen := len(got)
			if last == nil || !strings.Contains(last.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one saying %q", last, tt.wantErr)
			}
			if seen != tt.wantSeen {
				t.Errorf("listed %d before the error, want %d", seen, tt.wantSeen)
			}
			if pages := len(rec.all()); pages < tt.wantPages || pages > tt.wantPages+tt.ahead {
				t.Errorf("pages requested: got %d want %d (+%d ahead)", pages, tt.wantPages, tt.ahead)
			}
		})
	}
}

func TestPagingStopsEarly(t *testing.T) {
	srv, rec := serve(t, pager(100, "hydra"))
	c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = 10 })
	if _, err := partnerCodes(t, c, 15); err != nil {
		t.Fatal(err)
	}
	// Pages 1 and 2, and perhaps page 3 read ahead (then canceled).
	if n := len(rec.all()); n < 2 || n > 3 {
		t.Errorf("requested %d pages to read 15 of 100", n)
	}
}

// TestFilterQueries checks the query of every list's filter, and the
// names of the order status filter whatever the config says.
func TestFilterQueries(t *testing.T) {
	ts := time.Date(2026, 11, 21, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	sev := 0
	type tcase struct {
		name    string
		edition model.Edition
		path    string
		do      func(c *Client)
		want    string
	}
	tests := []tcase{
		{"partners", model.EditionA, "/api/connections", func(c *Client) {
			for range c.Partners(t.Context(), PartnerFilter{Name: "Nor", Codes: []string{"A", "B"}, Relationship: "Manufacturer"}) {
			}
		}, "code[]=A&code[]=B&itemsPerPage=50&name=Nor&page=1&relationship=Manufacturer"},
		{"items", model.EditionB, "/api/variants", func(c *Client) {
			for range c.Items(t.Context(), ItemFilter{SKU: "X", UpdatedAfter: ts}) {
			}
		}, "itemsPerPage=50&page=1&sku=X&updatedAt[after]=2026-11-21T09:30:00+00:00"},
		{"packagings", model.EditionB, "/api/variant_packagings", func(c *Client) {
			for range c.Packagings(t.Context(), PackagingFilter{VariantSKU: "S", Code: "C", EAN: "1", Variant: "/api/variants/1", VariantName: "n", OrderUpdatedAt: "desc"}) {
			}
		}, "code=C&ean=1&itemsPerPage=50&order[updatedAt]=desc&page=1&variant=/api/variants/1&variant.name=n&variant.sku=S"},
		{"warehouse clients", model.EditionB, "/api/warehouse_clients", func(c *Client) {
			for range c.WarehouseClients(t.Context(), WarehouseClientFilter{CompanyID: 42, Warehouse: "/api/warehouses/3"}) {
			}
		}, "company.id=42&itemsPerPage=50&page=1&warehouse=/api/warehouses/3"},
		{"carriers", model.EditionB, "/api/carriers", func(c *Client) {
			for range c.Carriers(t.Context(), CarrierFilter{Code: "DHL", MainTransportationCode: "ROAD"}) {
			}
		}, "code=DHL&itemsPerPage=50&mainTransportation.code=ROAD&page=1"},
		{"carrier services", model.EditionB, "/api/carrier_services", func(c *Client) {
			for range c.CarrierServices(t.Context(), CarrierServiceFilter{CarrierID: 7, Name: "Express"}) {
			}
		}, "carrier=7&itemsPerPage=50&name=Express&page=1"},
		{"inbounds", model.EditionB, "/api/purchase_orders", func(c *Client) {
			for range c.Inbounds(t.Context(), InboundFilter{StatusCodes: []int{75, 80}, UpdatedAfter: ts, ReceivedBefore: ts}) {
			}
		}, "itemsPerPage=50&page=1&receivedAt[before]=2026-11-21T09:30:00+00:00&status.code[]=75&status.code[]=80&updatedAt[after]=2026-11-21T09:30:00+00:00"},
		{"outbounds A", model.EditionA, "/api/sales_orders", func(c *Client) {
			for range c.Outbounds(t.Context(), OutboundFilter{StatusCodes: []int{80}, UpdatedAfter: ts, ShippedAfter: ts}) {
			}
		}, "fulfillmentStatus.code=80&itemsPerPage=50&page=1&receivedAt[after]=2026-11-21T09:30:00+00:00&status.code=80&updatedAt[after]=2026-11-21T09:30:00+00:00"},
		{"outbounds B", model.EditionB, "/api/sales_orders", func(c *Client) {
			for range c.Outbounds(t.Context(), OutboundFilter{ExternalOrderNumber: "W-1", StatusCodes: []int{80}}) {
			}
		}, "externalOrderNumber=W-1&itemsPerPage=50&page=1&status.code=80"},
		{"fulfillments", model.EditionB, "/api/fulfillments", func(c *Client) {
			for range c.Fulfillments(t.Context(), FulfillmentFilter{SalesOrderNumber: "SO-1", CreatedAt: TimeRange{StrictlyAfter: ts}, SortCreatedAt: "asc", CarrierID: 7}) {
			}
		}, "carrier.id=7&createdAt[strictly_after]=2026-11-21T09:30:00+00:00&itemsPerPage=50&order[createdAt]=asc&page=1&salesOrder.orderNumber=SO-1"},
		{"shipping units", model.EditionB, "/api/shipping_units", func(c *Client) {
			for range c.ShippingUnits(t.Context(), ShippingUnitFilter{StatusCodes: []string{"80", "90"}, UpdatedAt: TimeRange{After: ts}, SalesOrderNumber: "SO-1"}) {
			}
		}, "itemsPerPage=50&page=1&salesOrder.orderNumber=SO-1&shippingUnitStatus.code[]=80&shippingUnitStatus.code[]=90&updatedAt[after]=2026-11-21T09:30:00+00:00"},
		{"events", model.EditionB, "/api/shipping_unit_events", func(c *Client) {
			for range c.ShippingUnitEvents(t.Context(), EventFilter{Severity: &sev, StatusCode: "80"}) {
			}
		}, "itemsPerPage=50&page=1&severity=0&shippingUnitStatus.code=80"},
		{"stocks", model.EditionA, "/api/stocks", func(c *Client) {
			for range c.Stocks(t.Context(), StockFilter{VariantIDs: []int64{1, 2}, VariantSKU: "S"}) {
			}
		}, "itemsPerPage=50&page=1&variant.id[]=1&variant.id[]=2&variant.sku=S"},
		{"movements", model.EditionB, "/api/stock_movements", func(c *Client) {
			for range c.Movements(t.Context(), MovementFilter{VariantID: 3, CreatedAfter: ts}) {
			}
		}, "createdAt[after]=2026-11-21T09:30:00+00:00&itemsPerPage=50&page=1&variant.id=3"},
	}
	// Edition A's documents name the order status filter twice; whatever
	// the config says, both names are sent (and a third name the config
	// gives is added), so that a portal honouring either one returns the
	// shipped orders only.
	for _, f := range []struct{ config, want string }{
		{"status.code", "fulfillmentStatus.code[]=75&fulfillmentStatus.code[]=80&itemsPerPage=50&page=1&status.code[]=75&status.code[]=80"},
		{"fulfillmentStatus.code", "fulfillmentStatus.code[]=75&fulfillmentStatus.code[]=80&itemsPerPage=50&page=1&status.code[]=75&status.code[]=80"},
		{"", "fulfillmentStatus.code[]=75&fulfillmentStatus.code[]=80&itemsPerPage=50&page=1&status.code[]=75&status.code[]=80"},
		{"fulfillmentStatus", "fulfillmentStatus.code[]=75&fulfillmentStatus.code[]=80&fulfillmentStatus[]=75&fulfillmentStatus[]=80&itemsPerPage=50&page=1&status.code[]=75&status.code[]=80"},
	} {
		tests = append(tests, tcase{"order status filter " + f.config, model.EditionA, "/api/sales_orders", func(c *Client) {
			c.cfg.ShipmentStatusFilter = f.config
			for _, err := range c.Outbounds(t.Context(), OutboundFilter{StatusCodes: []int{75, 80}}) {
				if err != nil {
					t.Fatal(err)
				}
			}
		}, f.want})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request) {
				reply(w, 200, `{"hydra:member":[],"hydra:totalItems":0}`)
			})
			c := testClient(t, tt.edition, srv.URL, func(c *Config) {
				c.ItemsPerPage = 50
				c.ShipmentStatusFilter = "fulfillmentStatus.code"
			})
			tt.do(c)
			reqs := rec.all()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			got, _ := url.QueryUnescape(reqs[0].RawQuery)
			if reqs[0].Path != tt.path || got != tt.want {
				t.Errorf("got %s?%s\nwant %s?%s", reqs[0].Path, got, tt.path, tt.want)
			}
		})
	}
}

func TestEditionBOnlyLists(t *testing.T) {
	c := testClient(t, model.EditionA, "http://127.0.0.1:1")
	for _, err := range c.Fulfillments(t.Context(), FulfillmentFilter{}) {
		if !IsInvalid(err) || !strings.Contains(err.Error(), "Edition B") {
			t.Fatalf("got %v", err)
		}
	}
	if _, err := c.CreatePackaging(t.Context(), model.Packaging{SKU: "S", Code: "C"}); !IsInvalid(err) {
		t.Fatalf("got %v", err)
	}
	if _, err := c.ResolveWarehouse(t.Context(), "WH"); !IsInvalid(err) {
		t.Fatalf("got %v", err)
	}
}

// TestOutboundStatusCheckedClientSide: a deployment that ignores the
// status filter still yields only matching orders.
func TestOutboundStatusCheckedClientSide(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"hydra:member":[{"orderNumber":"A","fulfillmentStatus":{"code":80}},{"orderNumber":"B","fulfillmentStatus":{"code":"20"}}],"hydra:totalItems":2}`)
	})
	c := testClient(t, model.EditionA, srv.URL)
	var got []string
	for o, err := range c.Outbounds(t.Context(), OutboundFilter{StatusCodes: []int{80}}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.OrderNumber)
	}
	if strings.Join(got, ",") != "A" {
		t.Errorf("got %v", got)
	}
}

// TestEncodeQueryEveryField fills every parameter of every filter: each
// has a query form (encodeQuery panics on one without) and is sent.
func TestEncodeQueryEveryField(t *testing.T) {
	ts := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	sev := 2
	values := map[reflect.Type]any{
		reflect.TypeFor[string](): "v", reflect.TypeFor[int64](): int64(7), reflect.TypeFor[*int](): &sev,
		reflect.TypeFor[time.Time](): ts, reflect.TypeFor[TimeRange](): TimeRange{StrictlyBefore: ts},
		reflect.TypeFor[[]string](): []string{"a", "b"}, reflect.TypeFor[[]int64](): []int64{1, 2},
		reflect.TypeFor[[]int](): []int{75, 80},
	}
	for _, f := range []any{PartnerFilter{}, ItemFilter{}, PackagingFilter{}, WarehouseClientFilter{}, CarrierFilter{},
		CarrierServiceFilter{}, InboundFilter{}, OutboundFilter{}, FulfillmentFilter{}, ShippingUnitFilter{}, EventFilter{},
		StockFilter{}, MovementFilter{}} {
		v := reflect.New(reflect.TypeOf(f)).Elem()
		var names []string
		for i := range v.NumField() {
			name := v.Type().Field(i).Tag.Get("query")
			if name == "" {
				continue
			}
			val, ok := values[v.Field(i).Type()]
			if !ok {
				t.Fatalf("%s.%s: no test value for %s", v.Type(), v.Type().Field(i).Name, v.Field(i).Type())
			}
			v.Field(i).Set(reflect.ValueOf(val))
			names = append(names, name)
		}
		q := encodeQuery(v.Interface())
		for _, name := range names {
			if !slices.ContainsFunc(slices.Collect(maps.Keys(q)), func(k string) bool { return strings.HasPrefix(k, name) }) {
				t.Errorf("%s: %s not sent: %s", v.Type(), name, q.Encode())
			}
		}
	}
}

// TestListTotalChangedWhilePaged: a document that leaves a list between two
// page reads shifts the next ones onto the page already read; the total
// that changed makes the list be read again, so none is skipped and each
// is listed once.
func TestListTotalChangedWhilePaged(t *testing.T) {
	var mu sync.Mutex
	codes := []string{"S1", "S2", "S3", "S4", "S5", "S6"}
	served := 0
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		from := min((page-1)*2, len(codes))
		var members []string
		for _, c := range codes[from:min(from+2, len(codes))] {
			members = append(members, fmt.Sprintf(`{"id":%s,"code":%q}`, c[1:], c))
		}
		reply(w, 200, fmt.Sprintf(`{"hydra:member":[%s],"hydra:totalItems":%d}`, strings.Join(members, ","), len(codes)))
		if served++; served == 1 {
			codes = codes[1:] // S1 leaves the list after the first page
		}
	})
	c := testClient(t, model.EditionB, srv.URL, func(c *Config) { c.ItemsPerPage = 2 })
	var got []string
	for p, err := range c.Partners(t.Context(), PartnerFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Code)
	}
	if strings.Join(got, ",") != "S1,S2,S4,S5,S6,S3" {
		t.Errorf("listed %v, want each of S1..S6 once (S3 from the second pass)", got)
	}
}
