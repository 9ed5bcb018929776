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
