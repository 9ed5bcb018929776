package portal_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// simPortal is a simulator served on 127.0.0.1 and a client of it.
type simPortal struct {
	sim *portalsim.Sim
	url string
	c   *portal.Client
}

func startSim(t testing.TB, opts portalsim.Options, mod ...func(*portal.Config)) *simPortal {
	t.Helper()
	sim, err := portalsim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	sp := &simPortal{sim: sim, url: srv.URL}
	sp.c = sp.client(t, mod...)
	return sp
}

func (sp *simPortal) client(t testing.TB, mod ...func(*portal.Config)) *portal.Client {
	t.Helper()
	cfg := portal.Config{
		Edition: model.Edition(sp.sim.Edition()), BaseURL: sp.url + "/api", Company: sp.sim.Company(), Token: "demo-token",
		MaxRetries: 20, RetryBaseWait: time.Millisecond, RetryMaxWait: 10 * time.Millisecond,
		Timeout: 5 * time.Second, ItemsPerPage: 3, Logger: slog.New(slog.DiscardHandler),
		Concurrency: 8, ShipmentStatusFilter: "status.code",
	}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := portal.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// collect drains a list.
func collect[T any](t testing.TB, seq iter.Seq2[T, error]) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// ean13 makes a valid EAN-13 from a number.
func ean13(n int) string {
	d := fmt.Sprintf("400%09d", n)
	return d + string(model.EANCheckDigit(d))
}

func item(e model.Edition, sku string, n int) model.Item {
	it := model.Item{SKU: sku, Name: "Item " + sku, EAN: ean13(n), Length: "45", Width: "50", Height: "90.5", GrossWeight: "6.5"}
	if e == model.EditionA {
		it.QuantityPerBox, it.GrossWeightBox, it.BuyPrice, it.SupplierCode = "1", "7.2", "89.9", "SUP-1"
	}
	return it
}

func supplier(e model.Edition, code string) model.Partner {
	p := model.Partner{Code: code, Name: "Supplier " + code, Relationship: "Manufacturer"}
	if e == model.EditionB {
		p.CountryCode, p.City = "SE", "Malmö"
	}
	return p
}

// dueAt and plannedDelivery are in the future and the same for every
// document of a run, so that a document sent again compares equal even
// across a second (or midnight).
var (
	dueAt           = time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	plannedDelivery = time.Now().AddDate(0, 0, 3).UTC().Truncate(24 * time.Hour)
)

func inbound(e model.Edition, number string) model.Inbound {
	in := model.Inbound{OrderNumber: number, SupplierCode: "SUP-1", DueAt: dueAt,
		Lines: []model.InboundLine{{Position: 1, SKU: "SKU-1", Quantity: 40}, {Position: 2, SKU: "SKU-2", Quantity: 12}}}
	if e == model.EditionA {
		in.WarehouseLocation, in.OrderType = 3, "CONT40"
	} else {
		in.WarehouseCode = "WH-LYON"
		in.Lines[0].LotNumber = "LOT-1"
	}
	return in
}

func outbound(e model.Edition, number string) model.Outbound {
	o := model.Outbound{OrderNumber: number, ExternalOrderNumber: "WEB-" + number,
		ShipTo: &model.Address{Name: "Jeanne Martin", StreetAddress: "12 rue des Lilas", City: "Lyon", Zipcode: "69003", CountryCode: "FR"},
		Lines:  []model.OutboundLine{{Position: 1, SKU: "SKU-1", Quantity: 2}, {Position: 2, SKU: "SKU-3", Quantity: 1}}}
	if e == model.EditionA {
		o.WarehouseLocation, o.DeliveryMode = 3, "STANDARD"
	} else {
		o.WarehouseCode, o.CarrierCode, o.CarrierServiceCode = "WH-LYON", "DHL", "DHL-EXP"
		o.PlannedDeliveryDate = plannedDelivery
	}
	return o
}

// simMode is a simulator a test runs against, named for its subtest.
type simMode struct {
	name string
	opts portalsim.Options
}

// simModes are the editions in both simulator modes.
func simModes(editions ...model.Edition) []simMode {
	var out []simMode
	for _, e := range editions {
		for _, literal := range []bool{false, true} {
			name := string(e)
			if literal {
				name += "/literal"
			}
			out = append(out, simMode{name: name, opts: portalsim.Options{Edition: portalsim.Edition(e), Literal: literal}})
		}
	}
	return out
}

// seedMaster creates SUP-1 and SKU-1..3 through the client.
func seedMaster(t testing.TB, sp *simPortal) {
	t.Helper()
	e := sp.c.Edition()
	ctx := context.Background()
	if _, err := sp.c.CreatePartner(ctx, supplier(e, "SUP-1")); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := sp.c.CreateItem(ctx, item(e, fmt.Sprintf("SKU-%d", i), i)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSimCreatesAndLists: every create and every list of both editions,
// in both envelopes and in the literal mode (hydra, no next links, no item
// reads, no order timestamps), paging across several pages.
func TestSimCreatesAndLists(t *testing.T) {
	for _, e := range model.Editions {
		for _, env := range []string{"hydra", "plain", "literal"} {
			t.Run(string(e)+"/"+env, func(t *testing.T) {
				opts := portalsim.Options{Edition: portalsim.Edition(e), Seed: 7, Envelope: env, Preload: 7}
				if env == "literal" {
					opts.Envelope, opts.Literal = "hydra", true
				}
				sp := startSim(t, opts)
				ctx := t.Context()
				c := sp.c
				seedMaster(t, sp)
				if e == model.EditionB {
					out, err := c.CreatePackaging(ctx, model.Packaging{SKU: "SKU-1", Code: "OUTER_CARTON", EAN: ean13(101),
						Quantity: 4, Length: "60", Width: "55", Height: "95", GrossWeight: "28", Level: "PCB", Type: "BOX", SupplierCode: "SUP-1"})
					if err != nil || out.ID == 0 {
						t.Fatalf("packaging: %+v %v", out, err)
					}
				}
				if out, err := c.CreateInbound(ctx, inbound(e, "REC-1")); err != nil || out.ID == 0 || out.Existed {
					t.Fatalf("inbound: %+v %v", out, err)
				}
				if out, err := c.CreateOutbound(ctx, outbound(e, "SO-1")); err != nil || out.ID == 0 || out.Existed {
					t.Fatalf("outbound: %+v %v", out, err)
				}

				// Lists, 3 per page: the 7 preloaded + 3 created items span 4 pages.
				items := collect(t, c.Items(ctx, portal.ItemFilter{}))
				if len(items) != sp.sim.Len(portalsim.Variants) || len(items) != 10 {
					t.Fatalf("items: got %d, sim holds %d", len(items), sp.sim.Len(portalsim.Variants))
				}
				seen := map[string]bool{}
				for _, it := range items {
					if seen[it.SKU] || it.ID == 0 {
						t.Fatalf("item %q twice or without id", it.SKU)
					}
					seen[it.SKU] = true
				}
				ps := collect(t, c.Partners(ctx, portal.PartnerFilter{Codes: []string{"SUP-1"}}))
				if len(ps) != 1 || ps[0].Name != "Supplier SUP-1" {
					t.Fatalf("partners: %+v", ps)
				}
				ins := collect(t, c.Inbounds(ctx, portal.InboundFilter{OrderNumber: "REC-1"}))
				if len(ins) != 1 || len(ins[0].Lines) != 2 || ins[0].Lines[0].SKU != "SKU-1" || ins[0].Lines[1].Quantity != 12 {
					t.Fatalf("inbounds: %+v", ins)
				}
				outs := collect(t, c.Outbounds(ctx, portal.OutboundFilter{OrderNumber: "SO-1"}))
				if len(outs) != 1 || outs[0].ShipTo == nil || outs[0].ShipTo.City != "Lyon" || len(outs[0].Lines) != 2 {
					t.Fatalf("outbounds: %+v", outs)
				}
				if e == model.EditionB {
					if outs[0].CarrierCode != "DHL" || outs[0].WarehouseLocation != 3 {
						t.Errorf("sales order carrier/warehouse: %+v", outs[0])
					}
					if pk := collect(t, c.Packagings(ctx, portal.PackagingFilter{VariantSKU: "SKU-1"})); len(pk) != 1 || pk[0].Code != "OUTER_CARTON" || pk[0].SKU != "SKU-1" {
						t.Errorf("packagings: %+v", pk)
					}
					if wc := collect(t, c.WarehouseClients(ctx, portal.WarehouseClientFilter{})); len(wc) != 3 || wc[0].WarehouseCode == "" {
						t.Errorf("warehouse clients: %+v", wc)
					}
					if cr := collect(t, c.Carriers(ctx, portal.CarrierFilter{})); len(cr) != 3 {
						t.Errorf("carriers: %+v", cr)
					}
					if cs := collect(t, c.CarrierServices(ctx, portal.CarrierServiceFilter{})); len(cs) != 6 || cs[0].CarrierCode == "" {
						t.Errorf("carrier services: %+v", cs)
					}
				}

				// The warehouse moves on: receipts, shipments, tracking, stock.
				for range 8 {
					sp.sim.Tick()
				}
				codes := []int{80}
				if e == model.EditionB {
					codes = []int{75, 80}
				}
				if rc := collect(t, c.Inbounds(ctx, portal.InboundFilter{StatusCodes: codes})); len(rc) != 1 || rc[0].Lines[0].QuantityReceived == 0 {
					t.Errorf("received inbounds: %+v", rc)
				}
				if e == model.EditionA {
					sh := collect(t, c.Outbounds(ctx, portal.OutboundFilter{StatusCodes: []int{80}}))
					if len(sh) != 1 || sh[0].ShippedAt.IsZero() {
						t.Errorf("shipped orders: %+v", sh)
					}
				} else {
					fs := collect(t, c.Fulfillments(ctx, portal.FulfillmentFilter{CreatedAt: portal.TimeRange{After: time.Now().Add(-time.Hour)}}))
					if len(fs) == 0 || fs[0].OrderNumber != "SO-1" || len(fs[0].Lines) == 0 || fs[0].Lines[0].SKU == "" {
						t.Errorf("fulfillments: %+v", fs)
					}
					us := collect(t, c.ShippingUnits(ctx, portal.ShippingUnitFilter{SalesOrderNumber: "SO-1"}))
					if len(us) == 0 || us[0].ShippingUnitNumber == "" {
						t.Errorf("shipping units: %+v", us)
					}
					evs := collect(t, c.ShippingUnitEvents(ctx, portal.EventFilter{}))
					if len(evs) == 0 || evs[0].OccurredAt.IsZero() {
						t.Errorf("events: %+v", evs)
					}
				}
				st := collect(t, c.Stocks(ctx, portal.StockFilter{}))
				if len(st) != 10 || st[0].SKU == "" {
					t.Errorf("stocks: %d %+v", len(st), st)
				}
				collect(t, c.Movements(ctx, portal.MovementFilter{CreatedAfter: time.Now().Add(-time.Hour)}))
			})
		}
	}
}

// TestSimErrorClasses: 401, 422 violations, unknown references, duplicates
// equal (Existed) and different (Conflict), a wrong path (404).
func TestSimErrorClasses(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			sp := startSim(t, portalsim.Options{Edition: portalsim.Edition(e), Seed: 3})
			seedMaster(t, sp)
			if _, err := sp.c.CreateInbound(t.Context(), inbound(e, "REC-1")); err != nil {
				t.Fatal(err)
			}
			if _, err := sp.c.CreateOutbound(t.Context(), outbound(e, "SO-1")); err != nil {
				t.Fatal(err)
			}
			badToken := sp.client(t, func(c *portal.Config) { c.Token = "wrong" })
			wrongPath := sp.client(t, func(c *portal.Config) { c.Paths = map[string]string{"sales_orders": "/sales-orders"} })
			tests := []struct {
				name  string
				do    func(ctx context.Context) (portal.Outcome, error)
				class portal.Class
				want  []string // substrings of the error
				out   portal.Outcome
				hint  string // portal.Hint(err, "main")
			}{
				{"401", func(ctx context.Context) (portal.Outcome, error) {
					return badToken.CreatePartner(ctx, supplier(e, "SUP-X"))
				}, portal.Auth, []string{"401"}, portal.Outcome{}, "the portal refused the token: check token_env/token_file of [portals.main]"},
				{"422 violations", func(ctx context.Context) (portal.Outcome, error) {
					it := item(e, "SKU-BAD", 9)
					it.Name, it.EAN = "", "123"
					return sp.c.CreateItem(ctx, it)
				}, portal.Invalid, []string{"422", "name:"}, portal.Outcome{}, ""},
				{"unknown SKU", func(ctx context.Context) (portal.Outcome, error) {
					o := outbound(e, "SO-2")
					o.Lines[1].SKU = "NOPE"
					return sp.c.CreateOutbound(ctx, o)
				}, portal.Invalid, []string{`SKU "NOPE" is not on the portal: create the SKU first or add it to a SKU file`}, portal.Outcome{}, ""},
				{"unknown supplier", func(ctx context.Context) (portal.Outcome, error) {
					in := inbound(e, "REC-2")
					in.SupplierCode = "SUP-NONE"
					return sp.c.CreateInbound(ctx, in)
				}, portal.Invalid, []string{`"SUP-NONE" is not on the portal`}, portal.Outcome{}, ""},
				{"duplicate partner equal", func(ctx context.Context) (portal.Outcome, error) {
					return sp.c.CreatePartner(ctx, supplier(e, "SUP-1"))
				}, 0, nil, portal.Outcome{ID: 1, Existed: true}, ""},
				{"duplicate item equal", func(ctx context.Context) (portal.Outcome, error) {
					return sp.c.CreateItem(ctx, item(e, "SKU-2", 2))
				}, 0, nil, portal.Outcome{Existed: true}, ""},
				{"duplicate inbound equal", func(ctx context.Context) (portal.Outcome, error) {
					return sp.c.CreateInbound(ctx, inbound(e, "REC-1"))
				}, 0, nil, portal.Outcome{Existed: true}, ""},
				{"duplicate outbound equal", func(ctx context.Context) (portal.Outcome, error) {
					return sp.c.CreateOutbound(ctx, outbound(e, "SO-1"))
				}, 0, nil, portal.Outcome{Existed: true}, ""},
				{"duplicate item different", func(ctx context.Context) (portal.Outcome, error) {
					it := item(e, "SKU-2", 2)
					it.Name, it.Length = "Renamed", "46"
					return sp.c.CreateItem(ctx, it)
				}, portal.Conflict, []string{`SKU "SKU-2" already exists on the portal with different values`, `name: file has "Renamed", portal has "Item SKU-2"`, `length: file has "46", portal has "45"`}, portal.Outcome{}, ""},
				{"duplicate outbound different", func(ctx context.Context) (portal.Outcome, error) {
					o := outbound(e, "SO-1")
					o.Lines[0].Quantity = 5
					return sp.c.CreateOutbound(ctx, o)
				}, portal.Conflict, []string{"quantity: line 1: file has \"5\", portal has \"2\""}, portal.Outcome{}, ""},
				{"wrong path", func(ctx context.Context) (portal.Outcome, error) {
					return wrongPath.CreateOutbound(ctx, outbound(e, "SO-3"))
				}, portal.NotFound, []string{"404", "/sales-orders"}, portal.Outcome{}, "check base_url and the resource path in [portals.main.paths]"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					out, err := tt.do(t.Context())
					if tt.class == 0 {
						if err != nil || out.Existed != tt.out.Existed || out.ID == 0 || (tt.out.ID != 0 && out.ID != tt.out.ID) {
							t.Fatalf("got %+v %v, want %+v", out, err, tt.out)
						}
						return
					}
					var pe *portal.Error
					if !asPortalError(err, &pe) || pe.Class != tt.class {
						t.Fatalf("got %v (%T), want class %v", err, err, tt.class)
					}
					for _, w := range tt.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("error %q lacks %q", err.Error(), w)
						}
					}
					if strings.Contains(err.Error(), "demo-token") {
						t.Error("token in error")
					}
					if strings.Contains(err.Error(), "check ") {
						t.Errorf("error %q gives advice: that is the edge's (Hint)", err.Error())
					}
					if got := portal.Hint(err, "main"); got != tt.hint {
						t.Errorf("hint %q, want %q", got, tt.hint)
					}
				})
			}
			for _, key := range []string{"SUP-1"} {
				if n := sp.sim.Count(portalsim.Connections, key); n != 1 {
					t.Errorf("%s created %d times", key, n)
				}
			}
			for _, key := range []string{"REC-1", "REC-2"} {
				if n := sp.sim.Count(portalsim.PurchaseOrders, key); n != map[string]int{"REC-1": 1}[key] {
					t.Errorf("%s created %d times", key, n)
				}
			}
		})
	}
}

// TestSimFaults: under each fault flag every create succeeds exactly once
// and lists read through.
func TestSimFaults(t *testing.T) {
	faults := []struct {
		name                 string
		fail, throttle, drop float64
	}{
		{"FailRate", 0.3, 0, 0},
		{"ThrottleRate", 0, 0.3, 0},
		{"DropRate", 0, 0, 0.3},
		{"all", 0.1, 0.1, 0.1},
	}
	for _, e := range model.Editions {
		for _, f := range faults {
			t.Run(string(e)+"/"+f.name, func(t *testing.T) {
				sp := startSim(t, portalsim.Options{Edition: portalsim.Edition(e), Seed: 11})
				seedMaster(t, sp)
				sp.sim.SetFaults(f.fail, f.throttle, f.drop, 0)
				ctx := t.Context()
				const n = 12
				var wg sync.WaitGroup
				errs := make(chan error, 4*n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := sp.c.CreatePartner(ctx, supplier(e, fmt.Sprintf("F-%02d", i))); err != nil {
							errs <- err
						}
						if _, err := sp.c.CreateItem(ctx, item(e, fmt.Sprintf("FI-%02d", i), 100+i)); err != nil {
							errs <- err
						}
						if _, err := sp.c.CreateInbound(ctx, inbound(e, fmt.Sprintf("R-%02d", i))); err != nil {
							errs <- err
						}
						if _, err := sp.c.CreateOutbound(ctx, outbound(e, fmt.Sprintf("O-%02d", i))); err != nil {
							errs <- err
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
				if got := len(collect(t, sp.c.Items(ctx, portal.ItemFilter{}))); got != 3+n {
					t.Errorf("listed %d items under faults, want %d", got, 3+n)
				}
				sp.sim.SetFaults(0, 0, 0, 0)
				for i := range n {
					for r, key := range map[portal.Resource]string{portal.Connections: fmt.Sprintf("F-%02d", i),
						portal.Variants: fmt.Sprintf("FI-%02d", i), portal.PurchaseOrders: fmt.Sprintf("R-%02d", i),
						portal.SalesOrders: fmt.Sprintf("O-%02d", i)} {
						if c := sp.sim.Count(portalsim.Resource(r), key); c != 1 {
							t.Errorf("%s %s created %d times", r, key, c)
						}
					}
				}
				st := sp.sim.Stats().Faults
				if st.Failed+st.Throttled+st.Dropped == 0 {
					t.Error("no fault was injected")
				}
				if f.drop > 0 && st.DroppedAfterDoc == 0 {
					t.Log("no POST was dropped after creating its document (seed-dependent)")
				}
			})
		}
	}
}

// firstPOST wraps a handler so that the first POST meets a fault; later
// requests pass through.
func firstPOST(fault string, delay time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		var once sync.Once
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hit := false
			if r.Method == http.MethodPost {
				once.Do(func() { hit = true })
			}
			if !hit {
				next.ServeHTTP(w, r)
				return
			}
			if fault != "drop-before" {
				next.ServeHTTP(httptest.NewRecorder(), r) // the document is created, the answer lost
			}
			switch fault {
			case "drop-before", "drop-after":
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					_ = conn.Close()
				}
			case "502-after":
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			case "timeout-after":
				time.Sleep(delay)
			}
		})
	}
}

// TestSimUnknownOutcome: an answer lost after sending is never blindly
// resent: the document is looked up by its key first; found and equal is
// Existed, not found is sent again. Nothing is created twice.
func TestSimUnknownOutcome(t *testing.T) {
	tests := []struct {
		fault       string
		wantExisted bool
	}{
		{"drop-before", false},
		{"drop-after", true},
		{"502-after", true},
		{"timeout-after", true},
	}
	creates := []struct {
		name string
		res  portal.Resource
		key  string
		do   func(ctx context.Context, c *portal.Client, e model.Edition) (portal.Outcome, error)
	}{
		{"partner", portal.Connections, "U-1", func(ctx context.Context, c *portal.Client, e model.Edition) (portal.Outcome, error) {
			return c.CreatePartner(ctx, supplier(e, "U-1"))
		}},
		{"item", portal.Variants, "U-SKU", func(ctx context.Context, c *portal.Client, e model.Edition) (portal.Outcome, error) {
			return c.CreateItem(ctx, item(e, "U-SKU", 77))
		}},
		{"inbound", portal.PurchaseOrders, "U-REC", func(ctx context.Context, c *portal.Client, e model.Edition) (portal.Outcome, error) {
			return c.CreateInbound(ctx, inbound(e, "U-REC"))
		}},
		{"outbound", portal.SalesOrders, "U-SO", func(ctx context.Context, c *portal.Client, e model.Edition) (portal.Outcome, error) {
			return c.CreateOutbound(ctx, outbound(e, "U-SO"))
		}},
		{"packaging", portal.VariantPackagings, "SKU-1/U-BOX", func(ctx context.Context, c *portal.Client, e model.Edition) (portal.Outcome, error) {
			return c.CreatePackaging(ctx, model.Packaging{SKU: "SKU-1", Code: "U-BOX", Quantity: 6})
		}},
	}
	for _, e := range model.Editions {
		for _, tt := range tests {
			for _, cr := range creates {
				if cr.res == portal.VariantPackagings && e == model.EditionA {
					continue
				}
				t.Run(string(e)+"/"+tt.fault+"/"+cr.name, func(t *testing.T) {
					sim, err := portalsim.New(portalsim.Options{Edition: portalsim.Edition(e), Seed: 5})
					if err != nil {
						t.Fatal(err)
					}
					plain := &simPortal{sim: sim}
					srv := httptest.NewServer(sim.Handler())
					t.Cleanup(srv.Close)
					plain.url = srv.URL
					plain.c = plain.client(t)
					seedMaster(t, plain)

					faulty := httptest.NewServer(firstPOST(tt.fault, 300*time.Millisecond)(sim.Handler()))
					t.Cleanup(faulty.Close)
					sp := &simPortal{sim: sim, url: faulty.URL}
					c := sp.client(t, func(c *portal.Config) { c.Timeout = 150 * time.Millisecond })
					out, err := cr.do(t.Context(), c, e)
					if err != nil {
						t.Fatal(err)
					}
					if out.ID == 0 || out.Existed != tt.wantExisted {
						t.Errorf("outcome %+v, want Existed %v", out, tt.wantExisted)
					}
					if n := sim.Count(portalsim.Resource(cr.res), cr.key); n != 1 {
						t.Errorf("%s created %d times", cr.key, n)
					}
				})
			}
		}
	}
}

func asPortalError(err error, target **portal.Error) bool {
	for err != nil {
		if e, ok := err.(*portal.Error); ok {
			*target = e
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// TestSimLinesCompleted: a fresh client (empty cache) lists documents whose
// lines carry bare variant ids, and an inbound line with SKU master data
// creates its SKU first.
func TestSimLinesCompleted(t *testing.T) {
	for _, tt := range simModes(model.Editions...) {
		e := model.Edition(tt.opts.Edition)
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Seed = 9
			sp := startSim(t, opts)
			seedMaster(t, sp)
			in := inbound(e, "REC-N")
			nested := item(e, "", 55)
			in.Lines = append(in.Lines, model.InboundLine{Position: 3, SKU: "SKU-NEW", Quantity: 5, Item: &nested})
			if _, err := sp.c.CreateInbound(t.Context(), in); err != nil {
				t.Fatal(err)
			}
			if n := sp.sim.Count(portalsim.Variants, "SKU-NEW"); n != 1 {
				t.Fatalf("nested SKU created %d times", n)
			}
			if _, err := sp.c.CreateOutbound(t.Context(), outbound(e, "SO-N")); err != nil {
				t.Fatal(err)
			}
			fresh := sp.client(t)
			ins := collect(t, fresh.Inbounds(t.Context(), portal.InboundFilter{}))
			if len(ins) != 1 || len(ins[0].Lines) != 3 || ins[0].Lines[2].SKU != "SKU-NEW" || ins[0].Lines[0].SKU != "SKU-1" {
				t.Errorf("inbound lines: %+v", ins)
			}
			outs := collect(t, fresh.Outbounds(t.Context(), portal.OutboundFilter{}))
			if len(outs) != 1 || outs[0].Lines[1].SKU != "SKU-3" {
				t.Errorf("outbound lines: %+v", outs)
			}
		})
	}
}

// TestSimCancel: a cancelled context stops a create and a list at once.
func TestSimCancel(t *testing.T) {
	sp := startSim(t, portalsim.Options{Edition: portalsim.EditionB, Seed: 1, ThrottleRate: 1})
	ctx, cancel := context.WithCancel(t.Context())
	c := sp.client(t, func(c *portal.Config) { c.RetryBaseWait, c.RetryMaxWait = time.Second, time.Second })
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.CreatePartner(ctx, supplier(model.EditionB, "X"))
	if !errors.Is(err, context.Canceled) || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
	for _, err := range c.Partners(ctx, portal.PartnerFilter{}) {
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("list: %v", err)
		}
	}
}
