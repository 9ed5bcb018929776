package portal

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
)

func TestResolveSKUs(t *testing.T) {
	tests := []struct {
		name        string
		ignoreCodes bool
		codes       []string
		want        map[string]int64
		wantMissing []string
	}{
		{"batched", false, []string{"A", "B", "A"}, map[string]int64{"A": 1, "B": 2}, nil},
		{"missing", false, []string{"A", "NOPE"}, map[string]int64{"A": 1}, []string{"NOPE"}},
		{"code[] ignored", true, []string{"A", "B", "NOPE"}, map[string]int64{"A": 1, "B": 2}, []string{"NOPE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := &fakePortal{skus: map[string]int64{"A": 1, "B": 2}, ignoreCodes: tt.ignoreCodes}
			srv, rec := serve(t, fp.handle)
			c := testClient(t, model.EditionB, srv.URL)
			got, err := c.ResolveSKUs(t.Context(), tt.codes)
			for code, id := range tt.want {
				if got[code] != id {
					t.Errorf("%s: got %d want %d", code, got[code], id)
				}
			}
			if len(tt.wantMissing) == 0 && err != nil {
				t.Fatal(err)
			}
			for _, code := range tt.wantMissing {
				if !IsInvalid(err) || !strings.Contains(err.Error(), `SKU "`+code+`" is not on the portal: create the SKU first or add it to a SKU file`) {
					t.Fatalf("got %v", err)
				}
			}
			// Cached: a second resolution asks nothing (misses included).
			n := len(rec.all())
			_, _ = c.ResolveSKUs(t.Context(), tt.codes)
			if len(rec.all()) != n {
				t.Errorf("second resolution made %d requests", len(rec.all())-n)
			}
		})
	}
}

func TestResolveMissExpiresAndRemember(t *testing.T) {
	fp := &fakePortal{partners: map[string]int64{}}
	srv, rec := serve(t, fp.handle)
	c := testClient(t, model.EditionA, srv.URL)
	if _, err := c.ResolvePartner(t.Context(), "SUP-9"); !IsInvalid(err) ||
		!strings.Contains(err.Error(), `supplier "SUP-9" is not on the portal: create the supplier first or add it to a supplier file`) {
		t.Fatalf("got %v", err)
	}
	n := len(rec.all())
	_, _ = c.ResolvePartner(t.Context(), "SUP-9")
	if len(rec.all()) != n {
		t.Error("miss not cached")
	}
	// Once the miss expires, the portal is asked again.
	fp.partners["SUP-9"] = 77
	base := c.refs.now()
	c.refs.now = func() time.Time { return base.Add(missTTL + time.Second) }
	if id, err := c.ResolvePartner(t.Context(), "SUP-9"); err != nil || id != 77 {
		t.Fatalf("after expiry: %d %v", id, err)
	}
	c.Remember(RefPartner, "NEW", 5)
	if id, err := c.ResolvePartner(t.Context(), "NEW"); err != nil || id != 5 {
		t.Fatalf("remembered: %d %v", id, err)
	}
}

func TestResolveReferenceLists(t *testing.T) {
	fp := &fakePortal{}
	srv, rec := serve(t, fp.handle)
	c := testClient(t, model.EditionB, srv.URL)
	tests := []struct {
		name    string
		do      func() (int64, error)
		want    int64
		wantErr string
	}{
		{"warehouse", func() (int64, error) { return c.ResolveWarehouse(t.Context(), "WH-LILLE") }, 4, ""},
		{"unknown warehouse", func() (int64, error) { return c.ResolveWarehouse(t.Context(), "WH-X") }, 0,
			`warehouseCode: warehouse "WH-X" is not on the portal: use one of WH-LILLE, WH-LYON`},
		{"carrier by @id", func() (int64, error) { return c.ResolveCarrier(t.Context(), "DHL") }, 7, ""},
		{"service unique", func() (int64, error) { return c.ResolveCarrierService(t.Context(), "ECO") }, 13, ""},
		{"service ambiguous", func() (int64, error) { return c.ResolveCarrierService(t.Context(), "EXPRESS") }, 0,
			`carrier service "EXPRESS" exists for several carriers (DHL, UPS): give carrierCode too`},
		{"service of carrier", func() (int64, error) { return c.resolveService(t.Context(), "EXPRESS", "UPS") }, 12, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := tt.do()
			if tt.wantErr != "" {
				if !IsInvalid(err) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || id != tt.want {
				t.Fatalf("got %d %v want %d", id, err, tt.want)
			}
		})
	}
	lists := 0
	for _, r := range rec.all() {
		if r.Method == http.MethodGet {
			lists++
		}
	}
	if lists != 3 {
		t.Errorf("reference lists loaded %d times, want once each (3)", lists)
	}
}

// TestCreateReportsEveryUnresolvedReference: one Invalid error names the
// supplier and each SKU that is not on the portal.
func TestCreateReportsEveryUnresolvedReference(t *testing.T) {
	fp := &fakePortal{partners: map[string]int64{}, skus: map[string]int64{"CHAIR-OAK-01": 1}}
	srv, rec := serve(t, fp.handle)
	c := testClient(t, model.EditionA, srv.URL)
	_, err := c.CreateInbound(t.Context(), sampleInbound())
	e, ok := asError(err)
	if !ok || e.Class != Invalid || len(e.Violations) != 2 || e.Violations[0].Field != "supplierCode" || e.Violations[1].Field != "sku" {
		t.Fatalf("got %#v", err)
	}
	for _, r := range rec.all() {
		if r.Method == http.MethodPost {
			t.Fatal("posted a document with unresolved references")
		}
	}
}

// TestForgetMisses: a code found missing is asked again at once after
// ForgetMisses, without waiting for the miss to expire.
func TestForgetMisses(t *testing.T) {
	fp := &fakePortal{partners: map[string]int64{}}
	srv, rec := serve(t, fp.handle)
	c := testClient(t, model.EditionA, srv.URL)
	if _, err := c.ResolvePartner(t.Context(), "SUP-9"); !IsInvalid(err) {
		t.Fatalf("got %v, want the supplier missing", err)
	}
	n := len(rec.all())
	fp.partners["SUP-9"] = 77 // a clerk creates it
	if _, err := c.ResolvePartner(t.Context(), "SUP-9"); !IsInvalid(err) || len(rec.all()) != n {
		t.Fatalf("before ForgetMisses the miss must be cached: %v, %d requests", err, len(rec.all())-n)
	}
	c.ForgetMisses()
	if id, err := c.ResolvePartner(t.Context(), "SUP-9"); err != nil || id != 77 {
		t.Fatalf("after ForgetMisses: %d %v, want 77", id, err)
	}
}
