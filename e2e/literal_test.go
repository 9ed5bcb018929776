package e2e

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/portalsim"
)

// literalExports are the export types of each edition.
var literalExports = map[string][]string{
	"A": {"receipts", "shipments", "stock", "movements"},
	"B": {"receipts", "shipments", "stock", "movements", "tracking", "items"},
}

// TestProfiles runs the built binary against `filebridge sim --profile P`
// for every profile of the simulator (each open point of the API
// documents read either way: order filter name, item reads, ids in create
// answers, updatedAt[after] on variants, STANDARD, next links,
// timestamps, list order, documents moving while paged...), both
// editions, with the default config but pages of 3 items, fewer than
// every list holds: every good sample document is created exactly once
// and reported created (never "already there"), every export type of the
// edition writes every row the portal holds, once, with its codes, a
// second run exports nothing again, and no request leaves the documents.
func TestProfiles(t *testing.T) {
	for _, profile := range portalsim.ProfileNames() {
		for _, ed := range []string{"A", "B"} {
			t.Run(profile+"/"+ed, func(t *testing.T) {
				t.Parallel()
				s := startSim(t, ed, "--profile", profile, "--preload", "8")
				dir := t.TempDir()
				inbox, outDir := mkdir(t, dir, "in"), mkdir(t, dir, "out")
				cfg := literalConfig(t, runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox}), outDir, literalExports[ed])
				p := start(t, "run "+ed, "run", "--config", cfg)
				good := sampleNames(t, ed, "good")
				dropSamples(t, ed, "good", inbox, good)
				processed := filepath.Join(inbox, "processed")
				allIn(t, 60*time.Second, processed, good)
				for _, n := range good {
					if res := readReport(t, findFile(t, processed, stem(n)+".report.csv")).results(); res["created"] == 0 || len(res) != 1 {
						t.Errorf("report of %s: results %v, want only created", n, res)
					}
				}
				p.stopOK(t, "run")
				if st := s.stats(t); st.RepeatedCreates != 0 {
					t.Errorf("%d create(s) refused as already used, want 0", st.RepeatedCreates)
				}
				for _, k := range [][2]string{{"connections", "code"}, {"variants", "sku"}, {"purchase_orders", "orderNumber"}, {"sales_orders", "orderNumber"}} {
					s.onceEach(t, k[0], k[1])
				}
				for range 8 {
					s.tick(t)
				}
				for _, typ := range literalExports[ed] {
					t.Run(typ, func(t *testing.T) {
						rows := literalExport(t, cfg, outDir, typ)
						want := s.expectedRows(t, ed, typ)
						if want == 0 || len(rows) != want {
							t.Fatalf("%s: %d rows exported, the portal holds %d", typ, len(rows), want)
						}
						seen := map[string]int{}
						for i, r := range rows {
							if j, dup := seen[fmt.Sprint(r)]; dup {
								t.Errorf("%s rows %d and %d are the same row: %v", typ, j+1, i+1, r)
							}
							seen[fmt.Sprint(r)] = i
							for _, col := range []string{"sku", "supplierCode"} {
								if v, ok := r[col]; ok && v == "" {
									t.Errorf("%s row %d: %s is empty: %v", typ, i+1, col, r)
								}
							}
						}
						if typ != "stock" {
							if again := literalExport(t, cfg, outDir, typ); len(again) != 0 {
								t.Errorf("%s exported %d rows again without changes", typ, len(again))
							}
						}
					})
				}
				if st := s.stats(t); st.UndocumentedRequests != 0 {
					t.Errorf("%d request(s) outside the documents: %v", st.UndocumentedRequests, st.Undocumented)
				}
			})
		}
	}
}

// literalConfig adds items_per_page = 3 to the portal of a run config and
// an outbox with the export types (scheduled once a year: the test runs
// them with `filebridge export`).
func literalConfig(t testing.TB, path, outDir string, types []string) string {
	t.Helper()
	text := strings.Replace(readFile(t, path), "timeout = \"10s\"\n", "timeout = \"10s\"\nitems_per_page = 3\n", 1)
	var b strings.Builder
	b.WriteString(text)
	fmt.Fprintf(&b, "\n[[outboxes]]\nname = \"out\"\nportal = \"main\"\nurl = %q\n", outDir)
	for _, typ := range types {
		fmt.Fprintf(&b, "\n  [[outboxes.exports]]\n  type = %q\n  schedule = \"0 0 1 1 *\"\n  filename = \"{type}_{seq}.csv\"\n", typ)
	}
	mustWrite(t, path, b.String())
	return path
}

var wroteFile = regexp.MustCompile(`wrote (\S+) in `)

// literalExport runs one export and returns its rows by column name (none
// when it wrote no file).
func literalExport(t testing.TB, cfg, outDir, typ string) []map[string]string {
	t.Helper()
	out, code := runCmd(t, 60*time.Second, "export", "--config", cfg, "--outbox", "out", typ)
	if code != 0 {
		t.Fatalf("export %s exited with %d:\n%s", typ, code, out)
	}
	m := wroteFile.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	fh, err := os.Open(filepath.Join(outDir, m[1]))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("reading %s: %v", m[1], err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		r := map[string]string{}
		for i, h := range recs[0] {
			r[h] = rec[i]
		}
		rows = append(rows, r)
	}
	return rows
}

// expectedRows counts the rows an export of everything must hold, from
// the simulator's lists read in one page each.
func (s *sim) expectedRows(t testing.TB, ed, typ string) int {
	t.Helper()
	list := func(resource string) []map[string]any { return s.listAll(t, resource) }
	count := func(m map[string]any, field string) int {
		l, _ := m[field].([]any)
		return len(l)
	}
	code := func(m map[string]any, field string) int {
		st, _ := m[field].(map[string]any)
		n, _ := st["code"].(float64)
		return int(n)
	}
	n := 0
	switch typ {
	case "receipts":
		codes := map[string][]int{"A": {80}, "B": {75, 80}}[ed]
		for _, po := range list("purchase_orders") {
			if slices.Contains(codes, code(po, "status")) {
				n += count(po, "purchaseOrderLineItems")
			}
		}
	case "shipments":
		if ed == "A" {
			for _, o := range list("sales_orders") {
				if code(o, "fulfillmentStatus") == 80 {
					n += count(o, "salesOrderLineItems")
				}
			}
			break
		}
		for _, f := range list("fulfillments") {
			n += count(f, "fulfillmentLineItems") + count(f, "unfulfillableLineItems")
		}
	case "stock":
		n = len(list("stocks"))
	case "movements":
		n = len(list("stock_movements"))
	case "tracking":
		for _, u := range list("shipping_units") {
			n += count(u, "shippingUnitEvents")
		}
	case "items":
		n = len(list("variants"))
	}
	return n
}
