//go:build !race

package portal

import (
	"bytes"
	"testing"
)

// TestReadIDAllocs: the id of a create's answer is read without
// allocating, the text of "@id" included, which is only read when there is
// no "id" (the race detector allocates for itself: not built with it).
func TestReadIDAllocs(t *testing.T) {
	answer := []byte(`{"@context":"/api/contexts/Connection","@id":"/api/connections/12345","@type":"Connection","id":12345,` +
		`"company":42,"code":"BN1","name":"Bench partner","relationship":"Manufacturer","countryCode":"FR","state":null,` +
		`"city":"Lyon","zipcode":null,"createdAt":"2026-11-27T07:35:03+00:00","updatedAt":"2026-11-27T07:35:03+00:00"}`)
	r := bytes.NewReader(answer)
	var d docID
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(answer)
		d = docID{}
		if err := d.read(r, int64(len(answer))); err != nil {
			t.Fatal(err)
		}
	})
	if d.id() != 12345 || allocs != 0 {
		t.Errorf("read id %d with %.0f allocations; want 12345 with none", d.id(), allocs)
	}
}
