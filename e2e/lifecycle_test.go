package e2e

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// TestLifecycle checks, on one running daemon with a local inbox and a
// settle of 1.5s: a file written in pieces 250ms apart over ~2s is not
// picked up before it is complete (a margin of 6 for a loaded machine); the same content dropped again is reported as a
// duplicate and submits nothing; a different file under a name already in
// processed/ gets a suffix instead of overwriting.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	s, dir, inbox := simAndInbox(t, "A", "--preload", "20")
	listen := testkit.FreeAddr(t)
	const settle = 1500 * time.Millisecond
	cfg := runConfig(t, dir, s, listen, inboxSpec{name: "erp", url: inbox, extra: fmt.Sprintf("settle = %q", settle)})
	p := start(t, "run", "run", "--config", cfg)
	processed := filepath.Join(inbox, "processed")

	t.Run("settle", func(t *testing.T) {
		const name = "ORDERS_SLOW_20260321.csv"
		data := ordersFile("A", "SL-", 40, 2, 20)
		f, err := os.Create(filepath.Join(inbox, name))
		if err != nil {
			t.Fatal(err)
		}
		const pieces = 8
		step := len(data)/pieces + 1
		looks := 0 // pieces after which the daemon was seen looking at the inbox
		for i := 0; i < len(data); i += step {
			// Cut mid-line, as a slow writer would.
			if _, err := f.Write(data[i:min(i+step, len(data))]); err != nil {
				t.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			wrote := time.Now()
			// The daemon looks at the inbox after this piece (a round that
			// started after it), well within settle: it must not take the
			// file. A look later than that proves nothing about settle.
			if _, ok := lookedAfter(listen, "erp", wrote, settle/3); ok {
				looks++
			}
			if _, err := os.Stat(filepath.Join(inbox, name)); err != nil {
				t.Fatalf("the file was taken while still being written (after %d bytes of %d, %s after the last write): %v",
					i+step, len(data), time.Since(wrote).Round(time.Millisecond), err)
			}
			if n := len(s.keyCounts(t, "sales_orders", "orderNumber")); n > 0 {
				t.Fatalf("%d orders submitted while the file was still being written", n)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if looks < pieces/2 {
			t.Errorf("the daemon looked at the inbox after %d of %d pieces within settle/3: too few for the test to show anything", looks, pieces)
		}
		allIn(t, 30*time.Second, processed, []string{name})
		if got := len(s.keyCounts(t, "sales_orders", "orderNumber")); got != 40 {
			t.Errorf("%d orders on the portal, want 40", got)
		}
	})

	t.Run("duplicate", func(t *testing.T) {
		const name = "SUPPLIERS_20260302.csv"
		copySample(t, "A", "good", name, inbox, "")
		allIn(t, 30*time.Second, processed, []string{name})
		before := s.stats(t).Counts["connections"]
		copySample(t, "A", "good", name, inbox, "")
		copySample(t, "A", "good", name, inbox, "SUPPLIERS_AGAIN_20260302.csv")
		allIn(t, 30*time.Second, processed, []string{stem(name) + ".1.csv", "SUPPLIERS_AGAIN_20260302.csv"})
		if after := s.stats(t).Counts["connections"]; after != before {
			t.Errorf("the duplicates changed the portal's connections from %d to %d", before, after)
		}
		for _, r := range []string{stem(name) + ".1.report.csv", "SUPPLIERS_AGAIN_20260302.report.csv"} {
			if rep := readFile(t, findFile(t, processed, r)); !strings.Contains(strings.ToLower(rep), "duplicate") {
				t.Errorf("%s does not say duplicate:\n%s", r, rep)
			}
		}
	})

	t.Run("collision", func(t *testing.T) {
		const name = "SKU_COLLIDE_20260322.csv"
		v1, v2 := skuFile(t, "COL-1"), skuFile(t, "COL-2")
		writeAtomic(t, filepath.Join(inbox, name), []byte(v1))
		allIn(t, 30*time.Second, processed, []string{name})
		writeAtomic(t, filepath.Join(inbox, name), []byte(v2))
		allIn(t, 30*time.Second, processed, []string{stem(name) + ".1.csv"})
		if got := readFile(t, findFile(t, processed, name)); got != v1 {
			t.Errorf("processed/%s was overwritten:\n%s", name, got)
		}
		if got := readFile(t, findFile(t, processed, stem(name)+".1.csv")); got != v2 {
			t.Errorf("processed/%s.1.csv holds:\n%s", stem(name), got)
		}
		s.noRepeats(t)
		counts := s.keyCounts(t, "variants", "sku")
		if counts["COL-1"] != 1 || counts["COL-2"] != 1 {
			t.Errorf("variants COL-1 and COL-2 on the portal: %d and %d, want 1 each", counts["COL-1"], counts["COL-2"])
		}
	})

	p.stopOK(t, "run")
}

// skuFile is an Edition A SKU file of one valid SKU (a row of the good
// sample under a new code, supplied by the preloaded PRE-SUP-0001).
func skuFile(t testing.TB, sku string) string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader([]byte(readFile(t, filepath.Join(repoRoot, "samples", "A", "good", "SKU_20260302.csv"))))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	row := append([]string(nil), recs[2]...)
	for i, h := range recs[0] {
		switch h {
		case "sku":
			row[i] = sku
		case "supplierCode":
			row[i] = "PRE-SUP-0001"
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.WriteAll([][]string{recs[0], row})
	return b.String()
}
