package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/edi/edifact"
	"filebridge/internal/folder/sftptest"
)

// edifactOrders writes an ORDERS interchange (control reference ref) of n
// orders prefix+5 digits, one message each, with linesPer lines on the
// preloaded SKUs PRE-000001... (the simulator's --preload, at least skus).
func edifactOrders(prefix, ref string, n, linesPer, skus int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "UNA:+.? '\nUNB+UNOC:3+5412345000013:14+5798000000001:14+261126:2300+%s'\n", ref)
	line := 0
	for i := 1; i <= n; i++ {
		num := fmt.Sprintf("%s%05d", prefix, i)
		segs := []string{fmt.Sprintf("UNH+%d+ORDERS:D:96A:UN:EAN008", i), "BGM+220+" + num + "+9", "DTM+137:20261126:102",
			// A consignee of its own per order: Edition B orders embedding
			// one consignee code, submitted at once, may both create it
			// (the second refused as already used, then looked up).
			fmt.Sprintf("NAD+DP+54123450%05d::9++Jeanne Martin+12 rue des Lilas+Lyon++69003+FR", i)}
		for p := 1; p <= linesPer; p++ {
			line++
			segs = append(segs, fmt.Sprintf("LIN+%d", p), fmt.Sprintf("PIA+5+PRE-%06d:SA", (line-1)%skus+1), fmt.Sprintf("QTY+21:%d", 1+i%5))
		}
		segs = append(segs, fmt.Sprintf("UNT+%d+%d", len(segs)+1, i))
		for _, s := range segs {
			b.WriteString(s + "'\n")
		}
	}
	fmt.Fprintf(&b, "UNZ+%d+%s'\n", n, ref)
	return b.Bytes()
}

// edifactASN writes a DESADV interchange announcing one delivery of lines
// lines on the preloaded SKUs, from the preloaded supplier.
func edifactASN(order, ref string, lines int) []byte {
	segs := []string{"UNH+1+DESADV:D:96A:UN:EAN005", "BGM+351+" + order + "+9", "DTM+132:202612010800:203", "RFF+ON:PO-88123", "NAD+SU+PRE-SUP-0001::92"}
	for p := 1; p <= lines; p++ {
		segs = append(segs, fmt.Sprintf("LIN+%d", p), fmt.Sprintf("PIA+5+PRE-%06d:SA", p), fmt.Sprintf("QTY+12:%d", 10*p))
	}
	segs = append(segs, fmt.Sprintf("UNT+%d+1", len(segs)+1))
	return []byte("UNB+UNOC:3+5412345000013:14+5798000000001:14+261126:2310+" + ref + "'\n" + strings.Join(segs, "'\n") + "'\nUNZ+1+" + ref + "'\n")
}

// edifactItems writes a PRICAT interchange of two new SKUs of the
// preloaded supplier, with every column Edition A requires.
func edifactItems(ref string) []byte {
	segs := []string{"UNH+1+PRICAT:D:96A:UN:EAN008", "BGM+9+CAT-1+9", "NAD+SU+PRE-SUP-0001::92"}
	for i, ean := range []string{"4006381333931", "4006381333948"} {
		segs = append(segs, fmt.Sprintf("LIN+%d++%s:EN", i+1, ean), fmt.Sprintf("PIA+5+EDI-ITEM-%d:SA", i+1), fmt.Sprintf("IMD+F++:::Item %d", i+1),
			"MEA+PD+LN+CMT:45", "MEA+PD+WD+CMT:50", "MEA+PD+HT+CMT:90", "MEA+PD+AAB+KGM:6.5", "MEA+PD+G+KGM:6.5", "QTY+52:1", "PRI+AAA:89.90")
	}
	segs = append(segs, fmt.Sprintf("UNT+%d+1", len(segs)+1))
	return []byte("UNB+UNOC:3+5412345000013:14+5798000000001:14+261126:2250+" + ref + "'\n" + strings.Join(segs, "'\n") + "'\nUNZ+1+" + ref + "'\n")
}

// edifactConfig is the config of an inbox on sshd reading *.edi files
// (warehouse 3 by the route's defaults), their CONTRLs in in/acks, and an
// outbox on that folder writing shipments as DESADV and receipts as RECADV.
func edifactConfig(t *testing.T, s *sim, sshd *sftptest.SSHD, dir, inbox string) string {
	t.Helper()
	key := filepath.Join(dir, "id_ed25519")
	mustWrite(t, key, string(sshd.ClientKey))
	login := fmt.Sprintf("private_key_file = %q\nknown_hosts = %q\n", key, sshd.KnownHostsFile)
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "edi", url: sshd.URL(inbox), extra: login + `settle = "100ms"`})
	var b strings.Builder
	b.WriteString(readFile(t, cfg))
	b.WriteString("\n  [[inboxes.routes]]\n  match = \"*.edi\"\n  format = \"edifact\"\n  ack_dir = \"acks\"\n    [inboxes.routes.defaults]\n    warehouseLocation = 3\n")
	fmt.Fprintf(&b, "\n[[outboxes]]\nname = \"partner\"\nportal = \"main\"\nurl = %q\n%s", sshd.URL(inbox+"/acks"), login)
	for _, e := range []struct{ typ, msg string }{{"shipments", "DESADV"}, {"receipts", "RECADV"}, {"stock", "STOCK"}, {"movements", "MOVES"}} {
		fmt.Fprintf(&b, "\n  [[outboxes.exports]]\n  type = %q\n  schedule = \"0 0 1 1 *\"\n  filename = \"%s_{seq}.edi\"\n"+
			"    [outboxes.exports.edifact]\n    sender = \"5798000000001:14\"\n    receiver = \"5412345000013:14\"\n", e.typ, e.msg)
	}
	mustWrite(t, cfg, b.String())
	return cfg
}

// edifactLines lists "document sku quantity" of every line of the
// messages of an interchange: the document in RFF+ON (or BGM when refBGM),
// the SKU in PIA+5, the quantity in QTY with qualifier qty.
func edifactLines(t *testing.T, data []byte, refBGM bool, qty string) []string {
	t.Helper()
	var out []string
	ic, err := edifact.Read(bytes.NewReader(data), func(m *edifact.Message) error {
		doc, sku := "", ""
		for _, s := range m.Segments {
			switch {
			case s.Tag == "BGM" && refBGM, s.Tag == "RFF" && s.Elem(1, 1) == "ON" && !refBGM:
				if refBGM {
					doc = s.Elem(2, 1)
				} else {
					doc = s.Elem(1, 2)
				}
			case s.Tag == "PIA" && s.Elem(1, 1) == "5":
				sku = s.Elem(2, 1)
			case s.Tag == "QTY" && s.Elem(1, 1) == qty:
				out = append(out, doc+" "+sku+" "+s.Elem(1, 2))
			}
		}
		return nil
	})
	if err != nil || ic.Rejected() {
		t.Fatalf("interchange does not read: %v %v\n%s", err, ic.Errors, data)
	}
	slices.Sort(out)
	return out
}

// TestEDIFACTEndToEnd: an ORDERS of three orders and a DESADV (inbound
// ASN) dropped on OpenSSH sshd become three orders and a reception on the
// simulator, each once; the partner's folder gets a CONTRL accepting
// each; once the simulator ships and receives, the exports write a DESADV
// whose lines are the ORDERS' and a RECADV whose lines are the ASN's.
func TestEDIFACTEndToEnd(t *testing.T) {
	for _, edition := range []string{"A", "B"} {
		t.Run(edition, func(t *testing.T) {
			t.Parallel()
			edifactEndToEnd(t, edition)
		})
	}
}

func edifactEndToEnd(t *testing.T, edition string) {
	s := startSim(t, edition, "--preload", "50")
	dir := t.TempDir()
	root := filepath.Join(dir, "srv")
	inbox := mkdir(t, root, "in")
	acks := mkdir(t, inbox, "acks")
	sshd := sftptest.StartSSHD(t, root)
	cfg := edifactConfig(t, s, sshd, dir, inbox)

	orders := edifactOrders("EDI-", "IC501", 3, 2, 50)
	asn := edifactASN("PO-EDI-1", "IC502", 3)
	writeAtomic(t, filepath.Join(inbox, "cat500.edi"), edifactItems("IC500"))
	writeAtomic(t, filepath.Join(inbox, "ord501.edi"), orders)
	writeAtomic(t, filepath.Join(inbox, "asn502.edi"), asn)
	p := start(t, "run", "run", "--config", cfg)
	waitFor(t, 60*time.Second, "both interchanges filed", func() bool {
		n := 0
		for _, f := range append(files(t, filepath.Join(inbox, "processed")), files(t, filepath.Join(inbox, "error"))...) {
			if b := filepath.Base(f); b == "ord501.edi" || b == "asn502.edi" || b == "cat500.edi" {
				n++
			}
		}
		return n == 3
	})
	p.stopOK(t, "run")
	for _, f := range files(t, filepath.Join(inbox, "error")) {
		t.Errorf("%s failed:\n%s", f, readFile(t, filepath.Join(inbox, "error", f)))
	}
	allIn(t, time.Second, filepath.Join(inbox, "processed"), []string{"ord501.edi", "asn502.edi", "cat500.edi"})

	got := files(t, acks)
	if len(got) != 3 {
		t.Fatalf("acks: %q, want three CONTRLs", got)
	}
	for _, a := range got {
		body := readFile(t, filepath.Join(acks, a))
		if !strings.HasPrefix(a, "CONTRL_5412345000013_") || !strings.Contains(body, "UNH+1+CONTRL:D:3:UN'") || !strings.Contains(body, "+7'\nUCM+1+") || strings.Contains(body, "+4'") {
			t.Errorf("%s does not accept its interchange:\n%s", a, body)
		}
	}
	s.ordersOnce(t, 3)
	if n := s.onceEach(t, "purchase_orders", "orderNumber"); len(n) != 1 {
		t.Errorf("receptions: %v", n)
	}

	if n := s.onceEach(t, "variants", "sku"); n["EDI-ITEM-1"] != 1 || n["EDI-ITEM-2"] != 1 {
		t.Errorf("the PRICAT's SKUs on the portal: %v", n)
	}

	out4, moves := s.shipAndExport(t, cfg, acks, "DESADV_", "RECADV_", "STOCK_", "MOVES_")
	desadv, recadv, stock, movements := out4[0], out4[1], out4[2], out4[3]
	// The stock INVRPT lists every SKU of the portal: the 50 preloaded and
	// the PRICAT's 2; the movements INVRPT one line per movement.
	if got := len(edifactLines(t, []byte(readFile(t, stock)), true, "145")); got != 52 {
		t.Errorf("the stock INVRPT lists %d SKUs, want 52", got)
	}
	if got := len(edifactLines(t, []byte(readFile(t, movements)), true, "199")); got != moves {
		t.Errorf("the movements INVRPT holds %d movements, want the simulator's %d:\n%s", got, moves, readFile(t, movements))
	}
	out, err := os.ReadFile(desadv)
	if err != nil {
		t.Fatal(err)
	}
	want := edifactLines(t, orders, true, "21")
	if got := edifactLines(t, out, false, "12"); !slices.Equal(got, want) {
		t.Errorf("DESADV lines %q, want the ORDERS' %q\n%s", got, want, out)
	}
	if !strings.Contains(string(out), "RFF+CN:") {
		t.Errorf("the DESADV carries no tracking number (RFF+CN):\n%s", out)
	}
	if out, err = os.ReadFile(recadv); err != nil {
		t.Fatal(err)
	}
	// The announced quantities (QTY+21) are the ASN's; the simulator may
	// receive less (QTY+48).
	want = edifactLines(t, asn, true, "12")
	if got := edifactLines(t, out, true, "21"); !slices.Equal(got, want) {
		t.Errorf("RECADV lines %q, want the ASN's %q\n%s", got, want, out)
	}
	s.noRepeats(t)
}

// edifactRoute is a route reading *.edi files as EDIFACT, warehouse 3.
const edifactRoute = "\n  [[inboxes.routes]]\n  match = \"*.edi\"\n  format = \"edifact\"\n    [inboxes.routes.defaults]\n    warehouseLocation = 3\n"

// TestEDIFACTCrashResume kills `filebridge run` with SIGKILL at random
// (seeded) moments while it submits one ORDERS of 300 orders to a slowed
// simulator, 5 times, then lets a last run finish it: every order exists
// once, no create was sent twice, and exactly one CONTRL accepts the
// interchange with its 300 messages.
func TestEDIFACTCrashResume(t *testing.T) {
	t.Parallel()
	const n = 300
	s, dir, inbox := simAndInbox(t, "A", "--preload", "50", "--latency", "40ms")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `settle = "100ms"`})
	mustWrite(t, cfg, readFile(t, cfg)+edifactRoute)
	writeAtomic(t, filepath.Join(inbox, "ord_crash.edi"), edifactOrders("EC-", "IC777", n, 1, 50))
	killRuns(t, cfg, 5, rand.New(rand.NewPCG(20261127, 27)), 300*time.Millisecond, 900*time.Millisecond, nil)
	finalRun(t, cfg, filepath.Join(inbox, "processed"), []string{"ord_crash.edi"})
	s.ordersOnce(t, n)
	acks := files(t, filepath.Join(inbox, "acks"))
	if len(acks) != 1 {
		t.Fatalf("acks %q, want one CONTRL", acks)
	}
	body := readFile(t, filepath.Join(inbox, "acks", acks[0]))
	if !strings.Contains(body, "UCI+IC777+5412345000013:14+5798000000001:14+7'") || strings.Count(body, ":EAN008+7'") != n {
		t.Errorf("the CONTRL does not accept the %d messages:\n%s", n, tail(body, 400))
	}
}

// TestEDIFACTLargeInterchange measures one ORDERS of
// FILEBRIDGE_EDIFACT_ORDERS orders (10,000 for the figures) of 3 lines
// through `run`: the time from the drop to processed/ and the peak RSS.
func TestEDIFACTLargeInterchange(t *testing.T) {
	n := drillSize(t, "FILEBRIDGE_EDIFACT_ORDERS", "10000", "one large ORDERS")
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("SKIPPED: no /proc to read the peak RSS from")
	}
	s, dir, inbox := simAndInbox(t, "A", "--preload", "50")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `max_file_size = "1GB"`})
	mustWrite(t, cfg, readFile(t, cfg)+edifactRoute)
	name := "ord_big.edi"
	tmp := filepath.Join(dir, name)
	data := edifactOrders("EB-", "IC900", n, 3, 50)
	mustWrite(t, tmp, string(data))
	p := start(t, "run", "run", "--config", cfg)
	waitFor(t, 30*time.Second, "the daemon running", func() bool { return strings.Contains(p.out.String(), "filebridge running") })
	begin := time.Now()
	if err := os.Rename(tmp, filepath.Join(inbox, name)); err != nil {
		t.Fatal(err)
	}
	allIn(t, 30*time.Minute, filepath.Join(inbox, "processed"), []string{name})
	took := time.Since(begin)
	peak := procStatus(t, p.cmd.Process.Pid, "VmHWM")
	p.stopOK(t, "run")
	s.ordersOnce(t, n)
	t.Logf("one ORDERS of %d orders (%d lines, %.1f MB): took %s, peak RSS %.0f MiB", n, 3*n, float64(len(data))/1e6, took.Round(100*time.Millisecond), peak)
	fmt.Printf("edifact ORDERS orders=%d seconds=%.1f peak_rss_mib=%.0f\n", n, took.Seconds(), peak)
}
