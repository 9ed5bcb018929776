package inbox_test

import (
	"path"
	"strings"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
)

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
				before := e.sim.Len(tc.resource)
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
				created := e.sim.Len(tc.resource) - before
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
