package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
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
				listen := testkit.FreeAddr(t)
				cfg := runConfig(t, dir, s, listen, specs...)
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
				p.waitRunning(t, 15*time.Second)

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
						// The orders file is seen (and settles) before its
						// master data: the daemon looked at its inbox since.
						inbox := "erp"
						if target(n) == shop {
							inbox = "shop"
						}
						roundsAfter(t, listen, inbox, time.Now(), 1)
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

// TestHoldForMasterData checks issue 8 points 2 and 3 for both editions.
// "held": an orders file dropped alone waits in processing/ while /healthz
// and /metrics name the SKUs it waits for; once the master data files are
// dropped, it goes through with every order created. "reject": with
// hold_missing = "1s", a file of two orders, one of them with a SKU not on
// the portal, fails after the hold with nothing created and a report line
// for each order.
func TestHoldForMasterData(t *testing.T) {
	t.Parallel()
	for _, ed := range []string{"A", "B"} {
		t.Run(ed, func(t *testing.T) {
			t.Parallel()
			s := startSim(t, ed)
			dir := t.TempDir()
			held, strict := mkdir(t, dir, "held"), mkdir(t, dir, "strict")
			listen := testkit.FreeAddr(t)
			cfg := runConfig(t, dir, s, listen,
				inboxSpec{name: "held", url: held},
				inboxSpec{name: "strict", url: strict, extra: `hold_missing = "1s"`})
			p := start(t, "run", "run", "--config", cfg)
			orders := ordersSample[ed]
			parent := t // the daemon restarted in a subtest outlives it

			t.Run("held", func(t *testing.T) {
				copySample(t, ed, "good", orders, held, "")
				var health string
				waitFor(t, 30*time.Second, "/healthz to list the held file", func() bool {
					_, health = healthz(listen)
					return strings.Contains(health, `"held"`) && strings.Contains(health, `SKU \"CHR-OAK-DIN\"`)
				})
				_, metrics, _ := get("http://" + listen + "/metrics")
				if !strings.Contains(metrics, `filebridge_inbox_held_file_missing_codes{file="`+orders+`",inbox="held"`) {
					t.Errorf("/metrics does not list the held file:\n%s", grepLines(metrics, "held"))
				}
				if !has(files(t, filepath.Join(held, "processing")), orders) {
					t.Errorf("the held file is not in processing/: %q", files(t, held))
				}
				if !strings.Contains(p.out.String(), "file held: master data not on the portal yet") {
					t.Errorf("the log does not say the file is held")
				}
				if n := len(s.keyCounts(t, "sales_orders", "orderNumber")); n != 0 {
					t.Errorf("%d orders created while held", n)
				}
				// Restart-safe: after a restart the file is still held,
				// since the same time.
				since := heldSince(health)
				p.stopOK(t, "run")
				p = start(parent, "run (again)", "run", "--config", cfg)
				waitFor(t, 30*time.Second, "/healthz to list the held file after the restart", func() bool {
					_, health = healthz(listen)
					return heldSince(health) != ""
				})
				if again := heldSince(health); since == "" || again != since {
					t.Errorf("held since %q before the restart, %q after", since, again)
				}
				var master []string
				for _, n := range sampleNames(t, ed, "good") {
					if n != orders {
						master = append(master, n)
					}
				}
				dropSamples(t, ed, "good", held, master)
				allIn(t, 60*time.Second, filepath.Join(held, "processed"), append(master, orders))
				rep := readReport(t, findFile(t, filepath.Join(held, "processed"), stem(orders)+".report.csv"))
				if res := rep.results(); res["created"] == 0 || len(res) != 1 {
					t.Errorf("report of the released orders file: %v, want only created", res)
				}
				if got := files(t, filepath.Join(held, "error")); len(got) > 0 {
					t.Errorf("files went to error/: %q", got)
				}
			})

			t.Run("reject", func(t *testing.T) {
				lines := strings.SplitN(readFile(t, filepath.Join(repoRoot, "samples", ed, "good", orders)), "\n", 3)
				first := strings.Split(lines[1], ",")[0]
				one := strings.Replace(lines[1], first, "SO-MIX-1", 1)
				two := strings.Replace(strings.Replace(lines[1], first, "SO-MIX-2", 1), "CHR-OAK-DIN", "NOT-ON-PORTAL", 1)
				name := strings.Replace(orders, "_2026", "_MIX_2026", 1)
				before := s.keyCounts(t, "sales_orders", "orderNumber")
				writeAtomic(t, filepath.Join(strict, name), []byte(lines[0]+"\n"+one+"\n"+two+"\n"))
				allIn(t, 30*time.Second, filepath.Join(strict, "error"), []string{name})
				after := s.keyCounts(t, "sales_orders", "orderNumber")
				if after["SO-MIX-1"]+after["SO-MIX-2"] != 0 || len(after) != len(before) {
					t.Errorf("orders created under policy reject: SO-MIX-1 %d, SO-MIX-2 %d", after["SO-MIX-1"], after["SO-MIX-2"])
				}
				rep := readReport(t, findFile(t, filepath.Join(strict, "error"), stem(name)+".report.csv"))
				msgs := map[string]string{}
				for _, rec := range rep {
					if len(rec) > 4 {
						msgs[rec[1]] = rec[2] + ": " + rec[4]
					}
				}
				if m := msgs["SO-MIX-2"]; !strings.Contains(m, `SKU "NOT-ON-PORTAL" is not on the portal`) || !strings.Contains(m, "waited") {
					t.Errorf("report of SO-MIX-2: %q, want the missing SKU and the wait", m)
				}
				if m := msgs["SO-MIX-1"]; !strings.Contains(m, "nothing was created") {
					t.Errorf("report of SO-MIX-1: %q, want it to say nothing was created", m)
				}
			})

			p.stopOK(t, "run")
		})
	}
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// heldSince is the "since" of the first file held in inbox "held", as
// /healthz reports it ("" when none).
func heldSince(health string) string {
	var h struct {
		Inboxes map[string]struct {
			Held []struct {
				Since string `json:"since"`
			} `json:"held"`
		} `json:"inboxes"`
	}
	if err := json.Unmarshal([]byte(health), &h); err != nil || len(h.Inboxes["held"].Held) == 0 {
		return ""
	}
	return h.Inboxes["held"].Held[0].Since
}
