package inbox_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// TestTransientFaults: with the simulator failing, throttling and dropping
// connections (before and after handling a POST), rounds are repeated
// until every file is through: every document lands exactly once, no file
// ever goes to error/.
func TestTransientFaults(t *testing.T) {
	e := newEnv(t, envOpts{workers: 8, portal: `max_retries = 2`,
		sim: portalsim.Options{FailRate: 0.12, ThrottleRate: 0.08, DropRate: 0.12}})
	const nSup, nSKU, nOrd = 10, 60, 20
	e.drop("SUPPLIERS.csv", suppliersFile("SUP-", nSup))
	var b strings.Builder
	b.WriteString(skuHeader)
	for i := 1; i <= nSKU; i++ {
		b.WriteString(skuRow(i, fmt.Sprintf("SUP-%d", i%nSup+1)))
	}
	e.drop("SKU.csv", b.String())
	b.Reset()
	b.WriteString("orderNumber,externalOrderNumber,warehouseLocation,shipTo.lastName,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,position,sku,quantity\n")
	for i := 1; i <= nOrd; i++ {
		for l := 1; l <= 2; l++ {
			fmt.Fprintf(&b, "SO-%d,EXT-%d,3,Martin,1 rue X,69003,Lyon,FR,%d,SKU-%d,%d\n", i, i, l, (i*l)%nSKU+1, l)
		}
	}
	e.drop("ORDERS.csv", b.String())

	ctx := context.Background()
	retries := 0
	for round := 0; ; round++ {
		_, err := e.in.RunOnce(ctx)
		if err != nil && !inbox.IsRetry(err) {
			t.Fatalf("round %d: %v", round, err)
		}
		if err != nil {
			retries++
		}
		open, oerr := e.j.OpenFiles(ctx, "erp")
		if oerr != nil {
			t.Fatal(oerr)
		}
		if len(open) == 0 && len(e.ls(".")) == len(e.ls("processed")) {
			break
		}
		if round > 40 {
			t.Fatalf("files still open after %d rounds: %+v", round, open)
		}
	}
	st := e.sim.Stats()
	t.Logf("rounds with a retry: %d; simulator: %+v", retries, st)
	if st.Faults.Failed+st.Faults.Throttled+st.Faults.Dropped == 0 {
		t.Errorf("no fault was injected, the test proved nothing: %+v", st.Faults)
	}
	if got := e.ls("error"); len(got) != 0 {
		t.Errorf("files in error/: %v", got)
	}
	e.onceEach(portal.Connections, "SUP-", nSup)
	e.onceEach(portal.Variants, "SKU-", nSKU)
	e.onceEach(portal.SalesOrders, "SO-", nOrd)
	if got := len(e.ls("processed")); got != 6 {
		t.Errorf("processed/ holds %d files, want 3 files and 3 reports: %v", got, e.ls("processed"))
	}
}

// TestAuthFailure: a refused token leaves the file in processing/ and
// pauses the portal in the shared Health; a later round with a good token
// finishes the file and resumes the portal.
func TestAuthFailure(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOpts{token: "wrong-token"})
	e.drop("SUPPLIERS.csv", suppliersA)
	rr, err := e.in.RunOnce(ctx)
	if !inbox.IsRetry(err) || !portal.IsAuth(err) {
		t.Fatalf("RunOnce: %v, want a retry error for a refused token", err)
	}
	if rr.Retrying != 1 || !e.exists("processing/SUPPLIERS.csv") || len(e.ls("error")) != 0 {
		t.Fatalf("the file is not waiting in processing/: %+v, %v", rr, e.ls("."))
	}
	if paused, reason := e.health.Paused("main"); !paused || !strings.Contains(reason, "401") ||
		!strings.Contains(reason, "(the portal refused the token: check token_env/token_file of [portals.main])") {
		t.Fatalf("portal not paused with the reason and what to check: %v %q", paused, reason)
	}
	if snap := e.health.Snapshot(); len(snap) != 1 || snap[0].Portal != "main" {
		t.Errorf("snapshot %+v", snap)
	}
	// Retrying with the same token keeps it paused.
	if _, err := e.in.RunOnce(ctx); !portal.IsAuth(err) {
		t.Fatalf("second round: %v", err)
	}

	fixed := *e.cfg.Portal("main")
	fixed.Token = config.NewSecret("demo-token")
	client, err := app.NewPortal(&fixed, app.PortalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := e.newInbox(client, nil)
	rr, err = in.RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, rr, "SUPPLIERS.csv"); r.State != journal.FileDone {
		t.Fatalf("state %s: %s", r.State, r.Message)
	}
	if paused, _ := e.health.Paused("main"); paused {
		t.Error("the portal is still paused after a successful call")
	}
}
