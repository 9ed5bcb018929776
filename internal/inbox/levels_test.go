package inbox_test

import (
	"fmt"
	"strings"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

// TestFileConcurrency: with file_concurrency = 4, twenty one-supplier
// files and a SKU file that needs one of them go through in one round:
// every supplier once, and the SKU file (the next level) after them.
func TestFileConcurrency(t *testing.T) {
	e := newEnv(t, envOpts{routes: skuRoute, inbox: "file_concurrency = 4", workers: 2})
	header := strings.SplitN(suppliersA, "\n", 2)[0]
	row := strings.SplitN(strings.SplitN(suppliersA, "\n", 3)[1], ",", 2)[1]
	for i := range 20 {
		e.drop(fmt.Sprintf("SUPPLIERS_%02d.csv", i), fmt.Sprintf("%s\nSUP-C%02d,%s\n", header, i, row))
	}
	e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
	e.dropSample("A/good/SKU_20260302.csv", "")
	rr := e.runOnce()
	if len(rr.Files) != 22 || rr.Deferred != 0 || rr.Retrying != 0 {
		t.Fatalf("round: %d files, %d deferred, %d retrying; want 22, 0, 0", len(rr.Files), rr.Deferred, rr.Retrying)
	}
	for _, f := range rr.Files {
		if f.State != journal.FileDone {
			t.Errorf("%s: %s: %s", f.Name, f.State, f.Message)
		}
	}
	if last := rr.Files[len(rr.Files)-1]; last.Name != "SKU_20260302.csv" {
		t.Errorf("the SKU file finished before a supplier file: last is %s", last.Name)
	}
	if n := e.sim.Len(portal.Connections); n != 20+7 {
		t.Errorf("%d suppliers on the portal, want 27", n)
	}
}
