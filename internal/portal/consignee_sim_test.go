package portal_test

import (
	"fmt"
	"sync"
	"testing"

	"filebridge/internal/model"
	"filebridge/internal/portalsim"
)

// TestSameNewConsigneeAtOnce: Edition B orders sent at the same moment
// that embed the same new consignee code create that connection once: the
// first order creates it, the others wait for it and refer to it, so the
// portal never refuses a repeated create of it.
func TestSameNewConsigneeAtOnce(t *testing.T) {
	sp := startSim(t, portalsim.Options{Edition: portalsim.EditionB})
	seedMaster(t, sp)
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			o := outbound(model.EditionB, fmt.Sprintf("SO-%d", i))
			o.ShipTo.Code = "CONS-SHARED"
			_, errs[i] = sp.c.CreateOutbound(t.Context(), o)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("SO-%d: %v", i, err)
		}
	}
	if r := sp.sim.RepeatedCreates(); r != 0 {
		t.Errorf("%d repeated creates, want 0", r)
	}
}

// TestSameDocumentAtOnce: the same document sent by several files at the
// same moment (two copies of a file released from a hold together) is
// created once; the others find it on the portal and say it exists,
// without a create the portal refuses as a repeat.
func TestSameDocumentAtOnce(t *testing.T) {
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			sp := startSim(t, portalsim.Options{Edition: portalsim.Edition(e)})
			seedMaster(t, sp)
			const n = 8
			var wg sync.WaitGroup
			created := make([]bool, n)
			errs := make([]error, n)
			for i := range n {
				wg.Go(func() {
					out, err := sp.c.CreateOutbound(t.Context(), outbound(e, "SO-SAME"))
					created[i], errs[i] = err == nil && !out.Existed, err
				})
			}
			wg.Wait()
			made := 0
			for i, err := range errs {
				if err != nil {
					t.Errorf("send %d: %v", i, err)
				}
				if created[i] {
					made++
				}
			}
			if made != 1 {
				t.Errorf("%d sends say created, want 1 (the others: exists)", made)
			}
			if r := sp.sim.RepeatedCreates(); r != 0 {
				t.Errorf("%d repeated creates, want 0", r)
			}
		})
	}
}
