package inbox_test

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
)

// TestReportCapAndInjection processes a supplier file of 1,500 rows with
// the same problem and one row whose code is a formula: the report lists
// the first 1,000 of the repeated problem and counts the rest in one line,
// NAME.rejected.csv holds every failed row, and formula cells are
// neutralised in both files (ReadReport restores them).
func TestReportCapAndInjection(t *testing.T) {
	e := newEnv(t, envOpts{})
	var b strings.Builder
	b.WriteString("code,name,relationship\n")
	for i := range 1500 {
		fmt.Fprintf(&b, "SUP-%04d,,Manufacturer\n", i)
	}
	b.WriteString("=cmd|' /C calc'!A0,@evil,Customer\n")
	e.drop("SUPPLIERS_MANY.csv", b.String())
	res := result(t, e.runOnce(), "SUPPLIERS_MANY.csv")
	if res.State != journal.FileFailed || res.RejectedPath == "" {
		t.Fatalf("state %s, rejected %q: %s", res.State, res.RejectedPath, res.Message)
	}

	raw := e.read(res.ReportPath)
	var lines []inbox.ReportLine
	if err := inbox.ReadReport(strings.NewReader(raw), func(l inbox.ReportLine) error { lines = append(lines, l); return nil }); err != nil {
		t.Fatal(err)
	}
	results := map[string]int{}
	var omitted, formula []inbox.ReportLine
	for _, l := range lines {
		results[l.Result]++
		switch {
		case l.Result == "omitted":
			omitted = append(omitted, l)
		case strings.HasPrefix(l.Key, "="):
			formula = append(formula, l)
		}
	}
	if results["invalid"] != 1001 || len(omitted) != 1 {
		t.Fatalf("report results %v, want 1001 invalid (1000 of the repeated problem and the formula row) and 1 omitted", results)
	}
	if want := `500 more invalid line(s) with the same problem are not listed (column "name": is empty: a value is required); SUPPLIERS_MANY.rejected.csv holds every failed row`; omitted[0].Message != want {
		t.Errorf("omitted line %q, want %q", omitted[0].Message, want)
	}
	if len(formula) != 1 || formula[0].Key != "=cmd|' /C calc'!A0" {
		t.Errorf("formula row read back as %+v", formula)
	}
	if !strings.Contains(raw, `'=cmd|`) || strings.Contains(raw, `,=cmd|`) {
		t.Errorf("the report does not neutralise the formula key:\n%s", raw[len(raw)-600:])
	}

	rej := strings.TrimPrefix(e.read(res.RejectedPath), "\uFEFF")
	recs, err := csv.NewReader(strings.NewReader(rej)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1502 {
		t.Fatalf("rejected file has %d records, want header + 1501 rows", len(recs))
	}
	last := recs[len(recs)-1]
	if last[0] != "'=cmd|' /C calc'!A0" || last[1] != "'@evil" || !strings.HasPrefix(last[3], "line 1502") {
		t.Errorf("last rejected row %q: want neutralised cells and its message", last)
	}
	if recs[1][3] != `line 2, column "name": is empty: a value is required` {
		t.Errorf("first rejected row's error %q", recs[1][3])
	}
}

// TestReportOfWideHeader: a file whose header names 100,000 columns no
// type has gets a report of a few kilobytes: the first 50 such warnings,
// then one line counting the others; its SKU is created.
func TestReportOfWideHeader(t *testing.T) {
	e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers") + route("SKU*", "skus")})
	e.drop("SUPPLIERS.csv", suppliersA)
	e.runOnce()
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(skuHeader, "\n"))
	for i := range 100_000 {
		fmt.Fprintf(&b, ",extra%06d", i)
	}
	b.WriteString("\n" + strings.TrimSuffix(skuRow(1, "SUP-A"), "\n") + strings.Repeat(",", 100_000) + "\n")
	e.drop("SKU_WIDE.csv", b.String())
	res := result(t, e.runOnce(), "SKU_WIDE.csv")
	if res.State != journal.FileDone {
		t.Fatalf("state %s: %s", res.State, res.Message)
	}
	report := e.read(processed + "/SKU_WIDE.report.csv")
	if len(report) > 16<<10 {
		t.Errorf("report of %d bytes, want at most 16 KiB", len(report))
	}
	if c := strings.Count(report, "is not a column of skus"); c != 51 {
		t.Errorf("%d lines name an unknown column, want 50 and the count of the others", c)
	}
	if !strings.Contains(report, `"and 99950 more warning line(s) like the ones above (column ""…"" is not a column of skus (edition A) and is ignored) are not listed"`) {
		t.Errorf("the report does not count the omitted warnings:\n%s", report[max(0, len(report)-2000):])
	}
	if c := e.sim.Count(portalsim.Variants, "SKU-1"); c != 1 {
		t.Errorf("SKU-1 exists %d times, want 1", c)
	}
}
