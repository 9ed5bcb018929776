package inbox_test

import (
	"path"
	"strings"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
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
				if got := e.sim.Len(portalsim.Resource(r)); got != n {
					t.Errorf("%s: %d documents, want %d", r, got, n)
				}
			}
		})
	}
}

// TestPolicies runs bad samples under the reject and the partial policy:
// reject submits nothing; partial submits the valid documents. Both send
// the file to error/ with its report and rejected rows (golden files).
func TestPolicies(t *testing.T) {
	cases := []struct {
		edition  model.Edition
		partners string // good partner sample, dropped in the same round
		bad      string
		typ      string
		resource portal.Resource
		// created under partial
		partial int
	}{
		{model.EditionA, "A/good/SUPPLIERS_20260302.csv", "A/bad/SKU_BAD_20260305.csv", "skus", portal.Variants, 1},
		{model.EditionB, "", "B/bad/CONNECTIONS_BAD_20260305.csv", "connections", portal.Connections, 2},
		{model.EditionB, "", "B/bad/VARIANTS_BAD_20260312.xlsx", "variants", portal.Variants, 1},
	}
	for _, tc := range cases {
		for _, policy := range []string{"reject", "partial"} {
			t.Run(string(tc.edition)+"/"+policy, func(t *testing.T) {
				routes := route("SUPPLIERS_*", "suppliers") + route("*_BAD_*", tc.typ, `policy = "`+policy+`"`)
				e := newEnv(t, envOpts{edition: tc.edition, routes: routes, workers: 1})
				before := e.sim.Len(portalsim.Resource(tc.resource))
				if tc.partners != "" {
					e.dropSample(tc.partners, "")
				}
				e.dropSample(tc.bad, "")
				rr := e.runOnce()
				name := path.Base(tc.bad)
				res := result(t, rr, name)
				if res.State != journal.FileFailed || res.FinalPath != "error/"+name {
					t.Fatalf("state %s, final path %q, want failed in error/: %s", res.State, res.FinalPath, res.Message)
				}
				if res.RejectedPath == "" || !e.exists(res.RejectedPath) || !e.exists(res.ReportPath) {
					t.Fatalf("report %q or rejected %q missing: %v", res.ReportPath, res.RejectedPath, e.ls("error"))
				}
				created := e.sim.Len(portalsim.Resource(tc.resource)) - before
				if tc.partners != "" && tc.resource == portal.Connections {
					created -= 7
				}
				want := 0
				if policy == "partial" {
					want = tc.partial
				}
				if created != want || res.DocsOK != want {
					t.Errorf("created %d documents (result says %d), want %d", created, res.DocsOK, want)
				}
				stem := strings.TrimSuffix(strings.TrimSuffix(name, ".csv"), ".xlsx")
				golden(t, "policy/"+policy+"/"+stem+".report.csv", e.read(res.ReportPath))
				golden(t, "policy/"+policy+"/"+stem+".rejected.csv", e.read(res.RejectedPath))
			})
		}
	}
}
