package testkit

import (
	"net/http/httptest"
	"testing"

	"filebridge/internal/portalsim"
)

// Sim starts the portal simulator with opts behind an HTTP server on
// loopback, closed when the test ends.
func Sim(t testing.TB, opts portalsim.Options) (*portalsim.Sim, *httptest.Server) {
	t.Helper()
	sim, err := portalsim.New(opts)
	if err != nil {
		t.Fatalf("portal simulator: %v", err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	return sim, srv
}
