package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// validateJSON is what `validate --format json` says of one file.
type validateJSON struct {
	Files []struct {
		Sheet          string `json:"sheet"`
		ValidDocuments int    `json:"valid_documents"`
		Invalid        int    `json:"invalid_documents"`
		Issues         []struct {
			Cell, Column, Value, Message string
			Warning                      bool
		} `json:"issues"`
	} `json:"files"`
}

// TestWorkbooksAsTheClerkSeesThem (issue 24) sends workbooks through
// `validate` and `process` on Edition A: both read the visible sheet the
// clerk filled and not the hidden one before it, a supplier code formatted
// 00000 as 00042, an order number merged over its three lines as one
// reception of three lines; an order with cells merged across columns is
// refused whole (policy partial), never created in part. `validate` and
// the report agree on the documents, the warnings and the sheet; the
// portal holds each document once.
func TestWorkbooksAsTheClerkSeesThem(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A")
	dir := t.TempDir()
	inbox := mkdir(t, dir, "in")
	src := mkdir(t, dir, "src")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `settle = "300ms"
poll = "200ms"

  [[inboxes.routes]]
  match = "P_RECEPTIONS_*"
  type = "receptions"
  policy = "partial"`})
	// process exits 1 when documents of the file were refused.
	process := func(path string, want int) string {
		t.Helper()
		out, code := runCmd(t, 60*time.Second, "process", "--config", cfg, "--inbox", "erp", path)
		if code != want {
			t.Fatalf("process %s: exit %d, want %d:\n%s", filepath.Base(path), code, want, out)
		}
		return out
	}
	for _, name := range []string{"SUPPLIERS_20260302.csv", "SKU_20260302.csv"} {
		process(filepath.Join(repoRoot, "samples", "A", "good", name), 0)
	}
	skus := s.keyCounts(t, "variants", "sku")
	var sku []string
	for k := range skus {
		sku = append(sku, k)
	}
	slices.Sort(sku)
	if len(sku) < 3 {
		t.Fatalf("the SKU sample created %d SKUs, want at least 3", len(sku))
	}

	suppliers := filepath.Join(src, "SUPPLIERS_WB.xlsx")
	head := []any{"code", "name", "relationship"}
	// A workbook opens on its last visible sheet.
	mustWrite(t, suppliers, string(testkit.Workbook(t, 1,
		testkit.Sheet{Name: "Old", Hidden: true, Cells: testkit.Rows(head, []any{"OLD-1", "Old supplier", "Manufacturer"})},
		testkit.Sheet{Name: "Suppliers", Cells: testkit.WithFormat(testkit.Rows(head,
			[]any{42, "Bakker BV", "Manufacturer"},
			[]any{7, "Smit", "Manufacturer"}), "A2", "00000")})))
	due := 46357.3541666667 // 2026-12-01 08:30
	receptions := filepath.Join(src, "P_RECEPTIONS_WB.xlsx")
	mustWrite(t, receptions, string(testkit.Workbook(t, 0, testkit.Sheet{Name: "Receptions",
		Merges: []string{"A2:A4", "E6:F6"},
		Cells: testkit.Rows(
			[]any{"orderNumber", "warehouseLocation", "supplierCode", "dueAt", "sku", "quantity"},
			[]any{"R-100", 3, "00042", due, sku[0], 5},
			[]any{nil, 3, "00042", due, sku[1], 6},
			[]any{nil, 3, "00042", due, sku[2], 7},
			[]any{"R-101", 3, "00042", due, sku[0], 1},
			[]any{"R-101", 3, "00042", due, sku[1], 2},
			[]any{"R-102", 3, "00042", due, sku[0], 4},
		)})))

	for _, tc := range []struct {
		path, sheet        string
		created, invalid   int
		warnings           []string // columns warned about in both outputs
		wantKeys, notKeys  []string
		resource, keyField string
	}{
		{suppliers, "Suppliers", 2, 0, []string{"code"}, []string{"00042", "7"}, []string{"OLD-1", "42"}, "connections", "code"},
		{receptions, "Receptions", 2, 1, nil, []string{"R-100", "R-102"}, []string{"R-101"}, "purchase_orders", "orderNumber"},
	} {
		name := filepath.Base(tc.path)
		out, _ := runCmd(t, 60*time.Second, "validate", "--config", cfg, "--inbox", "erp", "--format", "json", tc.path)
		var v validateJSON
		// The JSON document, then (for an invalid file) a summary line.
		if err := json.NewDecoder(strings.NewReader(out)).Decode(&v); err != nil || len(v.Files) != 1 {
			t.Fatalf("validate %s: %v:\n%s", name, err, out)
		}
		vf := v.Files[0]
		var vWarn []string
		for _, is := range vf.Issues {
			if is.Warning {
				vWarn = append(vWarn, is.Column)
			}
		}
		if vf.Sheet != tc.sheet || vf.ValidDocuments != tc.created || vf.Invalid != tc.invalid || !slices.Equal(vWarn, tc.warnings) {
			t.Errorf("validate %s: sheet %q, %d valid, %d invalid, warnings on %q; want %q, %d, %d, %q:\n%s",
				name, vf.Sheet, vf.ValidDocuments, vf.Invalid, vWarn, tc.sheet, tc.created, tc.invalid, tc.warnings, out)
		}

		out = process(tc.path, min(tc.invalid, 1))
		if !strings.Contains(out, fmt.Sprintf(`"sheet":%q`, tc.sheet)) {
			t.Errorf("the log of process %s does not name the sheet %q:\n%s", name, tc.sheet, out)
		}
		rep := readReport(t, findFile(t, inbox, strings.TrimSuffix(name, ".xlsx")+".report.csv"))
		res := rep.results()
		if res["created"] != tc.created || res["invalid"] != tc.invalid {
			t.Errorf("report of %s: %v, want %d created and %d invalid, as validate said", name, res, tc.created, tc.invalid)
		}
		var rWarn []string
		sheetNoted := false
		for _, rec := range rep {
			if len(rec) < 5 {
				continue
			}
			sheetNoted = sheetNoted || rec[2] == "note" && strings.Contains(rec[4], fmt.Sprintf("%q", tc.sheet))
			for _, part := range strings.Split(rec[4], "; ") {
				if strings.HasPrefix(part, "warning: ") {
					if _, col, ok := strings.Cut(part, `column "`); ok {
						rWarn = append(rWarn, col[:strings.IndexByte(col, '"')])
					}
				}
			}
		}
		if !sheetNoted || !slices.Equal(rWarn, tc.warnings) {
			t.Errorf("report of %s names the sheet %q: %v; warnings on %q, want %q as validate:\n%q", name, tc.sheet, sheetNoted, rWarn, tc.warnings, rep)
		}
		keys := s.keyCounts(t, tc.resource, tc.keyField)
		for _, k := range tc.wantKeys {
			if keys[k] != 1 {
				t.Errorf("%s: the portal holds %s %q %d times, want once", name, tc.resource, k, keys[k])
			}
		}
		for _, k := range tc.notKeys {
			if keys[k] != 0 {
				t.Errorf("%s: the portal holds %s %q, which must not be created", name, tc.resource, k)
			}
		}
	}

	// The merged order number gives the reception its three lines.
	var body map[string]json.RawMessage
	s.getJSON(t, s.Base+"/purchase_orders?itemsPerPage=100", &body, true)
	raw, ok := body["hydra:member"]
	if !ok {
		raw = body["member"]
	}
	var members []map[string]any
	if err := json.Unmarshal(raw, &members); err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if m["orderNumber"] == "R-100" {
			if lines, _ := m["purchaseOrderLineItems"].([]any); len(lines) != 3 {
				t.Errorf("reception R-100 has %d lines, want the 3 rows of its merged order number: %v", len(lines), m)
			}
		}
	}
	if r := s.stats(t).RepeatedCreates; r != 0 {
		t.Errorf("%d create(s) were sent twice, want 0", r)
	}
}
