package portal_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// TestSettle looks prepared documents up by key on the simulator
// (Prepared.Settle) and counts the POSTs it receives: a look-up never
// posts, not even the SKU a reception line would create.
func TestSettle(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			sim, err := portalsim.New(portalsim.Options{Edition: portalsim.Edition(e), Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			var posts atomic.Int64
			h := sim.Handler()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					posts.Add(1)
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			sp := &simPortal{sim: sim, url: srv.URL}
			sp.c = sp.client(t, func(c *portal.Config) { c.Logger = slog.New(slog.DiscardHandler) })
			ctx := t.Context()
			c := sp.c
			seedMaster(t, sp)
			if _, err := c.CreateOutbound(ctx, outbound(e, "SO-1")); err != nil {
				t.Fatal(err)
			}
			other := outbound(e, "SO-1")
			other.Lines[0].Quantity = 7
			withItem := inbound(e, "REC-9")
			it := item(e, "SKU-NEW", 50)
			withItem.Lines[1].SKU, withItem.Lines[1].Item = "SKU-NEW", &it
			cases := []struct {
				name      string
				prepare   func(context.Context) (portal.Prepared, error)
				found     bool
				check     func(error) bool
				wantExist bool
			}{
				{"created earlier", func(ctx context.Context) (portal.Prepared, error) { return c.PrepareOutbound(ctx, outbound(e, "SO-1")) }, true, nil, true},
				{"never created", func(ctx context.Context) (portal.Prepared, error) { return c.PrepareOutbound(ctx, outbound(e, "SO-2")) }, false, nil, false},
				{"different values", func(ctx context.Context) (portal.Prepared, error) { return c.PrepareOutbound(ctx, other) }, true, portal.IsConflict, false},
				{"line SKU missing", func(ctx context.Context) (portal.Prepared, error) { return c.PrepareInbound(ctx, withItem) }, false, nil, false},
				{"supplier by key", func(context.Context) (portal.Prepared, error) { return c.PreparePartner(supplier(e, "SUP-1")), nil }, true, nil, true},
				{"keyless", func(context.Context) (portal.Prepared, error) { return c.PreparePartner(supplier(e, "")), nil }, false,
					func(err error) bool { return errors.Is(err, portal.ErrNoKey) }, false},
			}
			for _, tc := range cases {
				before := posts.Load()
				p, err := tc.prepare(ctx)
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				out, found, err := p.Settle(ctx)
				if n := posts.Load() - before; n != 0 {
					t.Errorf("%s: the look-up posted %d time(s)", tc.name, n)
				}
				if found != tc.found || out.Existed != tc.wantExist {
					t.Errorf("%s: found %v existed %v, want %v %v (error %v)", tc.name, found, out.Existed, tc.found, tc.wantExist, err)
				}
				if (tc.check == nil) != (err == nil) || (tc.check != nil && !tc.check(err)) {
					t.Errorf("%s: error %v", tc.name, err)
				}
				if found && out.ID == 0 {
					t.Errorf("%s: found without an id", tc.name)
				}
			}
			if sim.Count(portalsim.Variants, "SKU-NEW") != 0 {
				t.Error("the look-up created the line's SKU")
			}
		})
	}
}

// TestPreparedCreate: a prepared reception whose line carries a SKU the
// portal lacks creates the SKU, then the reception, once Create is
// called; Settle before it finds neither, and after it finds the
// reception with the file's values.
func TestPreparedCreate(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			sp := startSim(t, portalsim.Options{Edition: portalsim.Edition(e), Seed: 7})
			ctx := t.Context()
			seedMaster(t, sp)
			in := inbound(e, "REC-10")
			it := item(e, "SKU-LATE", 50)
			in.Lines[1].SKU, in.Lines[1].Item = "SKU-LATE", &it
			p, err := sp.c.PrepareInbound(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if _, found, err := p.Settle(ctx); found || err != nil {
				t.Fatalf("Settle before Create = found %v, %v; want not found", found, err)
			}
			out, err := p.Create(ctx)
			if err != nil || out.ID == 0 || out.Existed {
				t.Fatalf("Create = %+v, %v; want created", out, err)
			}
			if n := sp.sim.Count(portalsim.Variants, "SKU-LATE"); n != 1 {
				t.Errorf("the line's SKU was created %d times, want 1", n)
			}
			again, err := sp.c.PrepareInbound(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if got, found, err := again.Settle(ctx); !found || err != nil || !got.Existed || got.ID != out.ID {
				t.Errorf("Settle after Create = %+v, found %v, %v; want the reception %d, existed", got, found, err, out.ID)
			}
		})
	}
}
