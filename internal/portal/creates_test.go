//go:build !race

package portal_test

import (
	"context"
	"testing"
)

// TestCreateAllocs counts what a create allocates beyond the bare net/http
// create BenchmarkCreates compares it with (rawCreate), on the same
// simulator: both counts hold the simulator's and net/http's allocations,
// so the difference is the client's own (key locks, limiter, retry loop,
// body encoding, reading the answer's id). Reading the answer in one
// pass, sharing the headers' values and errors.AsType took it from 40 to
// 27. (Not built with the race detector, which allocates for itself.)
func TestCreateAllocs(t *testing.T) {
	const maxExtra = 29
	ctx := context.Background()
	c := benchClient(t, benchSim(t), 1)
	hc, url := rawClient(t, 1), benchSim(t).URL+"/api/connections"
	client := func() {
		if _, err := c.CreatePartner(ctx, benchPartner(benchCode())); err != nil {
			t.Fatal(err)
		}
	}
	raw := func() {
		if err := rawCreate(ctx, hc, url, benchCode()); err != nil {
			t.Fatal(err)
		}
	}
	for range 20 { // connections up, pools filled
		client()
		raw()
	}
	clientAllocs, rawAllocs := testing.AllocsPerRun(300, client), testing.AllocsPerRun(300, raw)
	if extra := clientAllocs - rawAllocs; extra > maxExtra {
		t.Errorf("a create allocates %.0f objects, %.0f more than the bare net/http create (%.0f); want at most %d more",
			clientAllocs, extra, rawAllocs, maxExtra)
	}
	t.Logf("client %.0f, raw %.0f allocations a create", clientAllocs, rawAllocs)
}
