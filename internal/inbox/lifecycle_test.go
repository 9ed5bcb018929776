package inbox_test

import (
	"path"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// TestGoodFiles drops an edition's good samples in one round: every file
// goes to processed/ in dependency order, every document lands once.
func TestGoodFiles(t *testing.T) {
	cases := []struct {
		edition model.Edition
		files   []string
		counts  map[portal.Resource]int
	}{
		{model.EditionA, []string{"ORDERS_20260316.csv", "RECEPTIONS_20260304.csv", "SKU_20260302.csv", "SKU_20260310.xlsx", "SUPPLIERS_20260302.csv"},
			map[portal.Resource]int{portal.Connections: 7, portal.Variants: 26, portal.PurchaseOrders: 7, portal.SalesOrders: 7}},
		{model.EditionB, []string{"CONNECTIONS_20260302.csv", "PACKAGINGS_20260303.csv", "PURCHASE_ORDERS_20260304.csv", "SALES_ORDERS_20260316.csv", "VARIANTS_20260302.csv"},
			map[portal.Resource]int{portal.Connections: 16, portal.Variants: 23, portal.VariantPackagings: 11, portal.PurchaseOrders: 6, portal.SalesOrders: 6}},
	}
	for _, tc := range cases {
		t.Run(string(tc.edition), func(t *testing.T) {
			e := newEnv(t, envOpts{edition: tc.edition, workers: 1})
			for _, f := range tc.files {
				e.dropSample(string(tc.edition)+"/good/"+f, "")
			}
			rr := e.runOnce()
			if len(rr.Files) != len(tc.files) {
				t.Fatalf("got %d results, want %d: %+v", len(rr.Files), len(tc.files), rr)
			}
			for _, f := range rr.Files {
				if f.State != journal.FileDone {
					t.Errorf("%s: state %s, want done: %s\n%s", f.Name, f.State, f.Message, e.read(f.ReportPath))
					continue
				}
				golden(t, "good/"+string(tc.edition)+"/"+path.Base(f.ReportPath), e.read(f.ReportPath))
			}
			for r, n := range tc.counts {
				if got := e.sim.Len(r); got != n {
					t.Errorf("%s: %d documents, want %d", r, got, n)
				}
			}
		})
	}
}
