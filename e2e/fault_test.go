package e2e

import (
	"path/filepath"
	"testing"
	"time"
)

// TestFaults runs the good samples of each edition and a 200-order file
// against a simulator that answers 10% of the API requests with 5xx, 10%
// with 429 and Retry-After, and drops 5% of the connections (some after
// creating the document): every file ends in processed/ and every document
// exists exactly once.
func TestFaults(t *testing.T) {
	for _, ed := range []string{"A", "B"} {
		t.Run(ed, func(t *testing.T) {
			t.Parallel()
			s, dir, inbox := simAndInbox(t, ed, "--preload", "20", "--fail-rate", "0.1", "--throttle", "0.1", "--drop-rate", "0.05")
			cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox})
			p := start(t, "run "+ed, "run", "--config", cfg)
			processed := filepath.Join(inbox, "processed")

			good := sampleNames(t, ed, "good")
			dropSamples(t, ed, "good", inbox, good)
			bulk := "ORDERS_BULK_20260320.csv"
			if ed == "B" {
				bulk = "SALES_ORDERS_BULK_20260320.csv"
			}
			writeAtomic(t, filepath.Join(inbox, bulk), ordersFile(ed, "FT-", 200, 2, 20))
			all := append(good, bulk)
			allIn(t, 120*time.Second, processed, all)
			p.stopOK(t, "run")
			if got := files(t, filepath.Join(inbox, "error")); len(got) > 0 {
				t.Errorf("files went to error/ under faults: %q", got)
			}

			st := s.stats(t)
			t.Logf("faults injected: %d failed, %d throttled, %d dropped (%d after the create) of %d requests; %d repeated creates",
				st.Faults.Failed, st.Faults.Throttled, st.Faults.Dropped, st.Faults.DroppedAfterDoc, st.Requests, st.RepeatedCreates)
			// The simulator refuses a key it holds, so counting keys below
			// cannot show a document sent twice: the refused repeats can.
			if st.RepeatedCreates != 0 {
				t.Errorf("%d create(s) were sent again and refused as already used, want 0", st.RepeatedCreates)
			}
			if st.Faults.Failed+st.Faults.Throttled+st.Faults.Dropped == 0 {
				t.Errorf("no fault was injected: %+v", st.Faults)
			}
			s.setFaults(t, 0, 0, 0)
			keys := map[string]string{"sales_orders": "orderNumber", "purchase_orders": "orderNumber", "variants": "sku", "connections": "code"}
			for res, field := range keys {
				s.onceEach(t, res, field)
			}
			orders := s.keyCounts(t, "sales_orders", "orderNumber")
			for _, n := range all {
				for _, k := range readReport(t, findFile(t, processed, stem(n)+".report.csv")).keys("created") {
					if _, isOrder := orders[k]; isOrder && orders[k] != 1 {
						t.Errorf("order %s of %s exists %d times", k, n, orders[k])
					}
				}
			}
			n := 0
			for k := range orders {
				if len(k) > 3 && k[:3] == "FT-" {
					n++
				}
			}
			if n != 200 {
				t.Errorf("%d of the 200 bulk orders are on the portal", n)
			}
		})
	}
}
