package portal

import (
	"testing"

	"filebridge/internal/model"
)

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
