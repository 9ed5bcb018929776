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

// TestLookup looks documents up by key on the simulator and counts the
// POSTs it receives: a look-up never posts, not even the SKU a reception
// line would create.
func TestLookup(t *testing.T) {
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
				create    func(context.Context) (portal.Outcome, error)
				found     bool
				check     func(error) bool
				wantExist bool
			}{
				{"created earlier", func(ctx context.Context) (portal.Outcome, error) { return c.CreateOutbound(ctx, outbound(e, "SO-1")) }, true, nil, true},
				{"never created", func(ctx context.Context) (portal.Outcome, error) { return c.CreateOutbound(ctx, outbound(e, "SO-2")) }, false, nil, false},
				{"different values", func(ctx context.Context) (portal.Outcome, error) { return c.CreateOutbound(ctx, other) }, true, portal.IsConflict, false},
				{"line SKU missing", func(ctx context.Context) (portal.Outcome, error) { return c.CreateInbound(ctx, withItem) }, false, nil, false},
				{"supplier by key", func(ctx context.Context) (portal.Outcome, error) { return c.CreatePartner(ctx, supplier(e, "SUP-1")) }, true, nil, true},
				{"keyless", func(ctx context.Context) (portal.Outcome, error) { return c.CreatePartner(ctx, supplier(e, "")) }, false,
					func(err error) bool { return errors.Is(err, portal.ErrNoKey) }, false},
			}
			for _, tc := range cases {
				before := posts.Load()
				out, found, err := c.Lookup(ctx, tc.create)
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
