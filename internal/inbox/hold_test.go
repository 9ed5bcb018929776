package inbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
)

// withClock gives the env a settable clock and a fresh inbox (and portal
// client: an empty code cache, as after a restart) that uses it.
func (e *env) withClock(c *clock) {
	e.t.Helper()
	client, err := app.NewPortal(e.cfg.Portal("main"), app.PortalOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(client.Close)
	e.options.Now = c.Now
	e.in = e.newInbox(client, nil)
}

const ordersSample = "A/good/ORDERS_20260316.csv"

// TestHoldMissing: an orders file whose SKUs are not on the portal is held
// in processing/ (status and journal name the codes), survives a restart
// with its start time, and goes on as soon as its master data arrives;
// after hold_missing it fails with every order reported; hold_missing 0
// fails at once.
func TestHoldMissing(t *testing.T) {
	t.Run("released when the master data arrives", func(t *testing.T) {
		e := newEnv(t, envOpts{})
		c := &clock{t: fixedNow}
		e.withClock(c)
		e.dropSample(ordersSample, "")
		res := result(t, e.runOnce(), "ORDERS_20260316.csv")
		if !res.Held || res.State.Open() == false || !strings.Contains(res.Message, `SKU "CHR-OAK-DIN"`) {
			t.Fatalf("first round: held %v, state %s, message %q; want held, waiting for SKU CHR-OAK-DIN", res.Held, res.State, res.Message)
		}
		if !e.exists("processing/ORDERS_20260316.csv") {
			t.Fatalf("the held file is not in processing/: %v", e.ls(""))
		}
		st := e.in.Status()
		if len(st.Held) != 1 || !strings.Contains(strings.Join(st.Held[0].WaitingFor, " "), "CHR-OAK-DIN") || !st.Held[0].Since.Equal(fixedNow) {
			t.Fatalf("status held %+v, want the file waiting for CHR-OAK-DIN since %v", st.Held, fixedNow)
		}
		if n := e.sim.Len(portalsim.SalesOrders); n != 0 {
			t.Fatalf("%d orders created while held", n)
		}

		// A restart 10 minutes later: still held, since the first hold.
		c.Add(10 * time.Minute)
		e.withClock(c)
		res = result(t, e.runOnce(), "ORDERS_20260316.csv")
		if st := e.in.Status(); !res.Held || len(st.Held) != 1 || !st.Held[0].Since.Equal(fixedNow) {
			t.Fatalf("after a restart: held %v, status %+v; want held since %v", res.Held, st.Held, fixedNow)
		}

		for _, s := range []string{"A/good/SUPPLIERS_20260302.csv", "A/good/SKU_20260302.csv", "A/good/SKU_20260310.xlsx", "A/good/RECEPTIONS_20260304.csv"} {
			e.dropSample(s, "")
		}
		res = result(t, e.runOnce(), "ORDERS_20260316.csv")
		if res.Held || res.State != journal.FileDone {
			t.Fatalf("once the master data arrived: held %v, state %s: %s", res.Held, res.State, res.Message)
		}
		if len(e.in.Status().Held) != 0 {
			t.Errorf("status still lists held files: %+v", e.in.Status().Held)
		}
	})

	t.Run("fails after hold_missing", func(t *testing.T) {
		e := newEnv(t, envOpts{inbox: `hold_missing = "30m"`})
		c := &clock{t: fixedNow}
		e.withClock(c)
		e.dropSample(ordersSample, "")
		if res := result(t, e.runOnce(), "ORDERS_20260316.csv"); !res.Held {
			t.Fatalf("not held: %s %s", res.State, res.Message)
		}
		c.Add(29 * time.Minute)
		if res := result(t, e.runOnce(), "ORDERS_20260316.csv"); !res.Held {
			t.Fatalf("not held after 29m: %s %s", res.State, res.Message)
		}
		c.Add(time.Minute)
		res := result(t, e.runOnce(), "ORDERS_20260316.csv")
		if res.Held || res.State != journal.FileFailed {
			t.Fatalf("after 30m: held %v, state %s; want failed", res.Held, res.State)
		}
		checkAllRejected(t, e, res, "waited 30m0s")
	})

	t.Run("hold_missing 0 fails at once", func(t *testing.T) {
		e := newEnv(t, envOpts{inbox: `hold_missing = "0s"`})
		e.dropSample(ordersSample, "")
		res := result(t, e.runOnce(), "ORDERS_20260316.csv")
		if res.Held || res.State != journal.FileFailed {
			t.Fatalf("held %v, state %s; want failed at once", res.Held, res.State)
		}
		checkAllRejected(t, e, res, "")
	})
}

// checkAllRejected: nothing created, and the report has a line for every
// order, each invalid (naming the missing SKU) or skipped.
func checkAllRejected(t *testing.T, e *env, res inbox.FileResult, note string) {
	t.Helper()
	if n := e.sim.Len(portalsim.SalesOrders); n != 0 {
		t.Errorf("%d orders created, want none (policy reject)", n)
	}
	rep := e.read(res.ReportPath)
	for _, want := range []string{"SO-2026-10001", `SKU ""CHR-OAK-DIN"" is not on the portal`, note} {
		if !strings.Contains(rep, want) {
			t.Errorf("the report lacks %q:\n%s", want, rep)
		}
	}
	if strings.Contains(rep, ",created,") {
		t.Errorf("the report says a document was created:\n%s", rep)
	}
}

// TestRejectAllOrNothing: under policy reject, one order whose SKU is not
// on the portal keeps every order of the file from being created; the
// report says so for each. Under partial the others are created.
func TestRejectAllOrNothing(t *testing.T) {
	for _, policy := range []string{"reject", "partial"} {
		t.Run(policy, func(t *testing.T) {
			routes := route("ORDERS_*", "orders", `policy = "`+policy+`"`) + route("SUPPLIERS_*", "suppliers") + route("SKU_*", "skus")
			e := newEnv(t, envOpts{inbox: `hold_missing = "0s"`, routes: routes})
			e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
			e.dropSample("A/good/SKU_20260302.csv", "")
			e.runOnce()
			// Two orders from the sample's first line: the first's SKU is on
			// the portal, the second's is not.
			lines := strings.SplitN(readSample(t, ordersSample), "\n", 3)
			one := strings.Replace(lines[1], "SO-2026-10001", "SO-MIX-1", 1)
			two := strings.Replace(strings.Replace(lines[1], "SO-2026-10001", "SO-MIX-2", 1), "CHR-OAK-DIN", "NOT-ON-PORTAL", 1)
			e.drop("ORDERS_MIX.csv", lines[0]+"\n"+one+"\n"+two+"\n")
			res := result(t, e.runOnce(), "ORDERS_MIX.csv")
			if res.State != journal.FileFailed {
				t.Fatalf("state %s, want failed: %s", res.State, res.Message)
			}
			rep := e.read(res.ReportPath)
			want := 0
			if policy == "partial" {
				want = 1
			}
			if n := e.sim.Len(portalsim.SalesOrders); n != want {
				t.Errorf("%d orders created, want %d:\n%s", n, want, rep)
			}
			for _, line := range strings.Split(strings.TrimSpace(rep), "\n")[1:] {
				switch {
				case strings.Contains(line, "SO-MIX-2") && !strings.Contains(line, `SKU ""NOT-ON-PORTAL"" is not on the portal`):
					t.Errorf("SO-MIX-2 does not name its missing SKU: %s", line)
				case policy == "reject" && strings.Contains(line, "SO-MIX-1") && !strings.Contains(line, "nothing was created"):
					t.Errorf("SO-MIX-1 does not say why it was not created: %s", line)
				}
			}
		})
	}
}

func readSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "samples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
