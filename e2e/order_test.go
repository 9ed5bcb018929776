package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// isMasterData reports whether a sample name is master data (partners,
// SKUs/variants, packagings) rather than receptions or orders.
func isMasterData(name string) bool {
	for _, p := range []string{"SUPPLIERS_", "CONNECTIONS_", "SKU_", "VARIANTS_", "PACKAGINGS_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// TestDependencyOrder checks issue 8 point 1 for both editions: the good
// samples are dropped in reverse dependency order, the orders file first
// and the rest up to settle later (settle 1s), into one inbox or split
// over two inboxes of one portal (master data in one, receptions and
// orders in the other), or into one inbox whose routes name no type (the
// types come from the header rows). Every file must end in processed/ with every
// document created: none was started before the files it depends on.
func TestDependencyOrder(t *testing.T) {
	t.Parallel()
	for _, ed := range []string{"A", "B"} {
		for _, mode := range []string{"one inbox", "two inboxes", "routes without type"} {
			split := mode == "two inboxes"
			t.Run(ed+"/"+mode, func(t *testing.T) {
				t.Parallel()
				s := startSim(t, ed)
				dir := t.TempDir()
				erp, shop := mkdir(t, dir, "erp"), mkdir(t, dir, "shop")
				specs := []inboxSpec{{name: "erp", url: erp, extra: `settle = "1s"`}}
				if split {
					specs = append(specs, inboxSpec{name: "shop", url: shop, extra: `settle = "1s"`})
				}
				cfg := runConfig(t, dir, s, "", specs...)
				if mode == "routes without type" {
					// Types come from the header rows, read while the files settle.
					var kept []string
					for line := range strings.SplitSeq(readFile(t, cfg), "\n") {
						if !strings.HasPrefix(strings.TrimSpace(line), "type = ") {
							kept = append(kept, line)
						}
					}
					mustWrite(t, cfg, strings.Join(kept, "\n"))
				}
				p := start(t, "run", "run", "--config", cfg)
				waitFor(t, 15*time.Second, "the daemon to run", func() bool { return strings.Contains(p.out.String(), "filebridge running") })

				good := dependencyOrder(sampleNames(t, ed, "good"))
				slices.Reverse(good)
				target := func(n string) string {
					if split && !isMasterData(n) {
						return shop
					}
					return erp
				}
				for i, n := range good {
					copySample(t, ed, "good", n, target(n), "")
					if i == 0 {
						time.Sleep(700 * time.Millisecond) // the orders file settles well before its master data
					} else {
						time.Sleep(50 * time.Millisecond)
					}
				}
				for _, n := range good {
					allIn(t, 60*time.Second, filepath.Join(target(n), "processed"), []string{n})
				}
				for _, n := range good {
					rep := readReport(t, findFile(t, filepath.Join(target(n), "processed"), stem(n)+".report.csv"))
					if res := rep.results(); res["created"] == 0 || len(res) != 1 {
						t.Errorf("report of %s: results %v, want only created", n, res)
					}
				}
				for _, d := range []string{erp, shop} {
					if got := files(t, filepath.Join(d, "error")); len(got) > 0 {
						t.Errorf("files went to error/: %q", got)
					}
				}
				if !strings.Contains(p.out.String(), "file waits for a file it depends on") {
					t.Errorf("no file was deferred: the test did not drop files out of order")
				}
				if strings.Contains(p.out.String(), "file held: master data not on the portal yet") {
					t.Errorf("a file was held for master data: it started before the files it depends on")
				}
				p.stopOK(t, "run")
			})
		}
	}
}
