package inbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/formats"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// TestDecodeOnce: a file is decoded once, however it goes: submission, the
// report and the rejected rows come from the journal (and a raw reading
// of the rows to reject); a held file looked at again, even after a
// restart, is not decoded again (nor written again while it waits for the
// same codes), nor is it when its master data arrives;
// a replay is one new run, decoded once.
func TestDecodeOnce(t *testing.T) {
	// decodes runs a round and returns it with the decodings it did.
	decodes := func(e *env) (inbox.RoundResult, int64) {
		before := formats.Decodes()
		rr := e.runOnce()
		return rr, formats.Decodes() - before
	}
	masterData := []string{"A/good/SUPPLIERS_20260302.csv", "A/good/SKU_20260302.csv", "A/good/SKU_20260310.xlsx", "A/good/RECEPTIONS_20260304.csv"}

	t.Run("clean", func(t *testing.T) {
		e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers")})
		e.drop("SUPPLIERS_ONCE.csv", suppliersFile("SUP-O", 300)) // more than one batch
		rr, n := decodes(e)
		if res := result(t, rr, "SUPPLIERS_ONCE.csv"); res.State != journal.FileDone || res.DocsOK != 300 {
			t.Fatalf("state %s, %d in the portal (%s); want done, 300", res.State, res.DocsOK, res.Message)
		}
		if n != 1 {
			t.Errorf("%d decodings of a clean file, want 1", n)
		}
		e.onceEach(portal.Connections, "SUP-O", 300)
	})

	t.Run("rejected rows", func(t *testing.T) {
		e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers", `policy = "partial"`)})
		e.drop("SUPPLIERS_BAD.csv", suppliersFile("SUP-B", 3)+"SUP-B9,,Manufacturer\n")
		rr, n := decodes(e)
		res := result(t, rr, "SUPPLIERS_BAD.csv")
		if res.State != journal.FileFailed || res.DocsOK != 3 || res.RejectedPath == "" {
			t.Fatalf("state %s, %d in the portal, rejected %q (%s); want failed, 3, a rejected file", res.State, res.DocsOK, res.RejectedPath, res.Message)
		}
		if n != 1 {
			t.Errorf("%d decodings of a file with a rejected row, want 1", n)
		}
		rej := e.read(res.RejectedPath)
		if !strings.Contains(rej, "SUP-B9,,Manufacturer,") || strings.Count(rej, "\n") != 2 {
			t.Errorf("rejected rows:\n%s\nwant the header and the row of SUP-B9 with its error", rej)
		}
		if rep := e.read(res.ReportPath); !strings.Contains(rep, "5,SUP-B9 (line 5),invalid") && !strings.Contains(rep, "5,SUP-B9,invalid") {
			t.Errorf("the report lacks the invalid row 5:\n%s", rep)
		}
	})

	t.Run("held", func(t *testing.T) {
		e := newEnv(t, envOpts{})
		c := &clock{t: fixedNow}
		e.withClock(c)
		e.dropSample(ordersSample, "")
		for i, restart := range []bool{false, false, true} {
			if restart {
				e.withClock(c)
			}
			before := e.j.WriteStats().Writes
			rr, n := decodes(e)
			if res := result(t, rr, "ORDERS_20260316.csv"); !res.Held {
				t.Fatalf("round %d: %s %s; want held", i+1, res.State, res.Message)
			}
			if w := e.j.WriteStats().Writes - before; i > 0 && w != 0 {
				t.Errorf("round %d of a held file waiting for the same codes: %d journal writes, want none", i+1, w)
			}
			want := int64(0)
			if i == 0 {
				want = 1
			}
			if n != want {
				t.Errorf("round %d of a held file (restart %v): %d decodings, want %d", i+1, restart, n, want)
			}
			c.Add(time.Minute)
		}
		for _, s := range masterData {
			e.dropSample(s, "")
		}
		rr, n := decodes(e)
		if res := result(t, rr, "ORDERS_20260316.csv"); res.State != journal.FileDone {
			t.Fatalf("once the master data arrived: %s %s; want done", res.State, res.Message)
		}
		if n != int64(len(masterData)) {
			t.Errorf("the round the master data arrived: %d decodings, want %d (one per master data file, none for the held file)", n, len(masterData))
		}
		if c := e.sim.RepeatedCreates(); c != 0 || e.sim.Len(portalsim.SalesOrders) == 0 {
			t.Errorf("%d orders, %d repeated creates; want orders, none repeated", e.sim.Len(portalsim.SalesOrders), c)
		}
	})

	t.Run("replay", func(t *testing.T) {
		e := newEnv(t, envOpts{inbox: `hold_missing = "0s"`})
		ctx := t.Context()
		e.dropSample(ordersSample, "")
		if res := result(t, e.runOnce(), "ORDERS_20260316.csv"); res.State != journal.FileFailed {
			t.Fatalf("orders without their SKUs: %s %s; want failed", res.State, res.Message)
		}
		for _, s := range masterData {
			e.dropSample(s, "")
		}
		e.runOnce()
		f, err := e.in.Folder(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := inbox.Requeue(ctx, e.j, f, &e.cfg.Inboxes[0], e.fileNamed("ORDERS_20260316.csv"), false, "cli"); err != nil {
			t.Fatal(err)
		}
		rr, n := decodes(e)
		if res := result(t, rr, "ORDERS_20260316.csv"); res.State != journal.FileDone {
			t.Fatalf("replay: %s %s; want done", res.State, res.Message)
		}
		if n != 1 {
			t.Errorf("%d decodings of a replay, want 1", n)
		}
		if c := e.sim.RepeatedCreates(); c != 0 {
			t.Errorf("%d repeated creates, want 0", c)
		}
	})
}

// TestRejectedInterleaved: the rows of orders that are not together in the
// file come back in the rejected rows in file order, each with its own
// message, from the journal's documents in order of their first rows.
func TestRejectedInterleaved(t *testing.T) {
	e := newEnv(t, envOpts{edition: model.EditionB})
	b, err := os.ReadFile(filepath.Join("..", "..", "samples", "B", "good", "SALES_ORDERS_20260316.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	second := strings.Replace(lines[2], ",2,SOFA-VELVET-GREEN,1,", ",2,SOFA-VELVET-GREEN,0,", 1)
	e.drop("SALES_ORDERS_MIXED.csv", lines[0]+lines[1]+lines[3]+second)
	res := result(t, e.runOnce(), "SALES_ORDERS_MIXED.csv")
	if res.State != journal.FileFailed || res.RejectedPath == "" {
		t.Fatalf("state %s, rejected %q (%s); want failed with rejected rows", res.State, res.RejectedPath, res.Message)
	}
	rows := strings.Split(strings.TrimSpace(strings.TrimPrefix(e.read(res.RejectedPath), "\uFEFF")), "\n")
	if len(rows) != 4 {
		t.Fatalf("rejected rows:\n%s\nwant the header and 3 rows", strings.Join(rows, "\n"))
	}
	for i, want := range []string{"SO-2026-20001,WEB-771203", "SO-2026-20002,", "SO-2026-20001,WEB-771203"} {
		if !strings.HasPrefix(rows[i+1], want) {
			t.Errorf("rejected row %d: %q, want it to start with %q", i+1, rows[i+1], want)
		}
	}
	for i, want := range []string{"this row is fine, but its order failed", "not submitted", `line 4, column ""quantity""`} {
		if !strings.Contains(rows[i+1], want) {
			t.Errorf("rejected row %d: %q, want its message to say %q", i+1, rows[i+1], want)
		}
	}
}
