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
	"filebridge/internal/edi/x12"
	"filebridge/internal/folder/sftptest"
)

// ediStandard is one EDI standard as the end-to-end tests drive it: the
// interchanges they drop, the config reading and writing them, and the
// checks of what comes back.
type ediStandard struct {
	name    string // the subtest's name; FILEBRIDGE_<name>_ORDERS sizes the large drill
	message string // the orders message, as the drill's figures name it
	// route reads the standard's files (warehouse 3 where the standard
	// carries none); ackRoute does too, its acknowledgements in acks.
	route, ackRoute string
	// outbox is the export section of the partner outbox; exports names
	// the shipments, receipts, stock and movements files, in that order.
	outbox  string
	exports []string
	ext     string
	// orders writes an interchange (control number ctl) of n orders
	// prefix+5 digits, one message each, with linesPer lines on the
	// preloaded SKUs PRE-000001... (the simulator's --preload, at least skus).
	orders func(prefix string, ctl, n, linesPer, skus int) []byte
	// drops are the end-to-end test's interchanges, in the order written:
	// the catalogue of two SKUs itemPrefix1 and 2, orders of 3 orders of
	// 2 lines, and one reception of 3 lines.
	drops       func(orders []byte) []ediDrop
	orderPrefix string // the end-to-end orders'; its initial, then C- and B-, the drills'
	itemPrefix  string
	catalogue   string // the catalogue message, as the messages name it
	ack         string // the acknowledgement message
	// ackOK checks one acknowledgement of the end-to-end test.
	ackOK func(t *testing.T, path, body string)
	// exported checks the four exported files against the dropped
	// interchanges and the simulator's movements.
	exported func(t *testing.T, drops []ediDrop, out []string, moves int)
	// crash is the crash drill: its orders, the simulator's latency, the
	// rng's second seed, whether the kills must land mid-interchange and
	// the check of its one acknowledgement.
	crash ediCrash
}

type ediDrop struct {
	name string
	data []byte
}

type ediCrash struct {
	orders  int
	latency string
	seed    uint64
	midway  bool
	ackOK   func(t *testing.T, n int, body string)
}

// ediStandards are EDIFACT (ORDERS, DESADV as an inbound ASN, PRICAT;
// CONTRL back; DESADV, RECADV and INVRPT out) and X12 (940, 943, 832;
// 997 back; 945, 944, 846, 947 out).
var ediStandards = []ediStandard{
	{
		name:     "EDIFACT",
		message:  "ORDERS",
		route:    edifactRoute,
		ackRoute: "\n  [[inboxes.routes]]\n  match = \"*.edi\"\n  format = \"edifact\"\n  ack_dir = \"acks\"\n    [inboxes.routes.defaults]\n    warehouseLocation = 3\n",
		outbox:   "    [outboxes.exports.edifact]\n    sender = \"5798000000001:14\"\n    receiver = \"5412345000013:14\"\n",
		exports:  []string{"DESADV", "RECADV", "STOCK", "MOVES"},
		ext:      "edi",
		orders:   edifactOrders,
		drops: func(orders []byte) []ediDrop {
			return []ediDrop{{"cat500.edi", edifactItems("IC500")}, {"ord501.edi", orders}, {"asn502.edi", edifactASN("PO-EDI-1", "IC502", 3)}}
		},
		orderPrefix: "EDI-",
		itemPrefix:  "EDI-ITEM-",
		catalogue:   "PRICAT",
		ack:         "CONTRL",
		ackOK: func(t *testing.T, path, body string) {
			if !strings.HasPrefix(filepath.Base(path), "CONTRL_5412345000013_") || !strings.Contains(body, "UNH+1+CONTRL:D:3:UN'") || !strings.Contains(body, "+7'\nUCM+1+") || strings.Contains(body, "+4'") {
				t.Errorf("%s does not accept its interchange:\n%s", filepath.Base(path), body)
			}
		},
		exported: edifactExported,
		crash: ediCrash{orders: 300, latency: "40ms", seed: 27, ackOK: func(t *testing.T, n int, body string) {
			if !strings.Contains(body, "UCI+IC777+5412345000013:14+5798000000001:14+7'") || strings.Count(body, ":EAN008+7'") != n {
				t.Errorf("the CONTRL does not accept the %d messages:\n%s", n, tail(body, 400))
			}
		}},
	},
	{
		name:     "X12",
		message:  "940",
		route:    "\n  [[inboxes.routes]]\n  match = \"*.x12\"\n",
		ackRoute: "\n  [[inboxes.routes]]\n  match = \"*.x12\"\n  format = \"x12\"\n  ack_dir = \"acks\"\n",
		outbox:   "    [outboxes.exports.x12]\n    sender = \"ZZ:WAREHOUSE\"\n    receiver = \"ZZ:SHOPERP\"\n",
		exports:  []string{"945", "944", "846", "947"},
		ext:      "x12",
		orders:   x12Orders,
		drops: func(orders []byte) []ediDrop {
			return []ediDrop{{"940_501.x12", orders}, {"943_502.x12", x12Receptions("PO-X12-1", 502, 3)}, {"832_500.x12", x12Items(500)}}
		},
		orderPrefix: "X12-",
		itemPrefix:  "X12-ITEM-",
		catalogue:   "832",
		ack:         "997",
		ackOK: func(t *testing.T, path, body string) {
			a := filepath.Base(path)
			if ic := parseX12(t, path); ic.Groups[0].FuncID != "FA" || !strings.Contains(body, "AK9*A*") {
				t.Errorf("%s does not accept its group:\n%s", a, body)
			}
			if strings.Contains(body, "AK1*AR*502~") && !strings.Contains(body, "TA1*000000502*") {
				t.Errorf("%s: the 943 asked for a TA1 (ISA14 = 1):\n%s", a, body)
			}
		},
		exported: x12Exported,
		crash: ediCrash{orders: 600, latency: "60ms", seed: 12, midway: true, ackOK: func(t *testing.T, n int, body string) {
			if !strings.Contains(body, fmt.Sprintf("AK9*A*%d*%d*%d~", n, n, n)) {
				t.Errorf("the 997 does not accept the %d sets:\n%s", n, tail(body, 400))
			}
		}},
	},
}

// edifactRoute is a route reading *.edi files as EDIFACT, warehouse 3.
const edifactRoute = "\n  [[inboxes.routes]]\n  match = \"*.edi\"\n  format = \"edifact\"\n    [inboxes.routes.defaults]\n    warehouseLocation = 3\n"

// ediConfig is the config of an inbox on sshd reading the standard's files
// (its acknowledgements in in/acks), and an outbox on that folder writing
// the shipments, receipts, stock and movements exports in the standard.
func ediConfig(t *testing.T, e ediStandard, s *sim, sshd *sftptest.SSHD, dir, inbox string) string {
	t.Helper()
	key := filepath.Join(dir, "id_ed25519")
	mustWrite(t, key, string(sshd.ClientKey))
	login := fmt.Sprintf("private_key_file = %q\nknown_hosts = %q\n", key, sshd.KnownHostsFile)
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "edi", url: sshd.URL(inbox), extra: login + `settle = "100ms"`})
	var b strings.Builder
	b.WriteString(readFile(t, cfg))
	b.WriteString(e.ackRoute)
	fmt.Fprintf(&b, "\n[[outboxes]]\nname = \"partner\"\nportal = \"main\"\nurl = %q\n%s", sshd.URL(inbox+"/acks"), login)
	for i, typ := range []string{"shipments", "receipts", "stock", "movements"} {
		fmt.Fprintf(&b, "\n  [[outboxes.exports]]\n  type = %q\n  schedule = \"0 0 1 1 *\"\n  filename = \"%s_{seq}.%s\"\n%s", typ, e.exports[i], e.ext, e.outbox)
	}
	mustWrite(t, cfg, b.String())
	return cfg
}

// TestEDIEndToEnd: a catalogue of two SKUs, orders of three orders and an
// inbound ASN dropped on OpenSSH sshd become the SKUs, three orders and a
// reception on the simulator, each once; the partner's folder gets an
// acknowledgement accepting each; once the simulator ships and receives,
// the exports write shipments whose lines are the orders', receipts whose
// lines are the ASN's, the stock and the movements.
func TestEDIEndToEnd(t *testing.T) {
	for _, e := range ediStandards {
		for _, edition := range []string{"A", "B"} {
			t.Run(e.name+"/"+edition, func(t *testing.T) {
				t.Parallel()
				ediEndToEnd(t, e, edition)
			})
		}
	}
}

func ediEndToEnd(t *testing.T, e ediStandard, edition string) {
	s := startSim(t, edition, "--preload", "50")
	dir := t.TempDir()
	root := filepath.Join(dir, "srv")
	inbox := mkdir(t, root, "in")
	acks := mkdir(t, inbox, "acks")
	sshd := sftptest.StartSSHD(t, root)
	cfg := ediConfig(t, e, s, sshd, dir, inbox)

	drops := e.drops(e.orders(e.orderPrefix, 501, 3, 2, 50))
	var names []string
	for _, d := range drops {
		writeAtomic(t, filepath.Join(inbox, d.name), d.data)
		names = append(names, d.name)
	}
	p := start(t, "run", "run", "--config", cfg)
	waitFor(t, 60*time.Second, "the interchanges filed", func() bool {
		n := 0
		for _, f := range append(files(t, filepath.Join(inbox, "processed")), files(t, filepath.Join(inbox, "error"))...) {
			if slices.Contains(names, filepath.Base(f)) {
				n++
			}
		}
		return n == len(names)
	})
	p.stopOK(t, "run")
	for _, f := range files(t, filepath.Join(inbox, "error")) {
		t.Errorf("%s failed:\n%s", f, readFile(t, filepath.Join(inbox, "error", f)))
	}
	allIn(t, time.Second, filepath.Join(inbox, "processed"), names)

	got := files(t, acks)
	if len(got) != 3 {
		t.Fatalf("acks: %q, want three %ss", got, e.ack)
	}
	for _, a := range got {
		e.ackOK(t, filepath.Join(acks, a), readFile(t, filepath.Join(acks, a)))
	}
	s.ordersOnce(t, 3)
	if n := s.onceEach(t, "purchase_orders", "orderNumber"); len(n) != 1 {
		t.Errorf("receptions: %v", n)
	}
	if n := s.onceEach(t, "variants", "sku"); n[e.itemPrefix+"1"] != 1 || n[e.itemPrefix+"2"] != 1 {
		t.Errorf("the %s's SKUs on the portal: %v", e.catalogue, n)
	}

	prefixes := make([]string, len(e.exports))
	for i, x := range e.exports {
		prefixes[i] = x + "_"
	}
	out, moves := s.shipAndExport(t, cfg, acks, prefixes...)
	e.exported(t, drops, out, moves)
	s.noRepeats(t)
}

// TestEDICrashResume kills `filebridge run` with SIGKILL at random
// (seeded) moments while it submits one interchange of hundreds of orders
// to a slowed simulator, 5 times, then lets a last run finish it: every
// order exists once, no create was sent twice, and exactly one
// acknowledgement accepts the interchange with all its messages.
func TestEDICrashResume(t *testing.T) {
	for _, e := range ediStandards {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			n := e.crash.orders
			s, dir, inbox := simAndInbox(t, "A", "--preload", "50", "--latency", e.crash.latency)
			cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `settle = "100ms"`})
			mustWrite(t, cfg, readFile(t, cfg)+e.route)
			name := "crash." + e.ext
			writeAtomic(t, filepath.Join(inbox, name), e.orders(e.orderPrefix[:1]+"C-", 777, n, 1, 50))
			killRuns(t, cfg, 5, rand.New(rand.NewPCG(20261127, e.crash.seed)), 300*time.Millisecond, 900*time.Millisecond, nil)
			if e.crash.midway {
				// The kills landed inside the interchange: part of it is on the portal.
				if got := len(s.keyCounts(t, "sales_orders", "orderNumber")); got == 0 || got == n {
					t.Errorf("%d of %d orders on the portal after the kills, want some: no kill landed mid-interchange", got, n)
				} else {
					t.Logf("%d of %d orders on the portal after 5 kills", got, n)
				}
			}
			finalRun(t, cfg, filepath.Join(inbox, "processed"), []string{name})
			s.ordersOnce(t, n)
			acks := files(t, filepath.Join(inbox, "acks"))
			if len(acks) != 1 {
				t.Fatalf("acks %q, want one %s", acks, e.ack)
			}
			e.crash.ackOK(t, n, readFile(t, filepath.Join(inbox, "acks", acks[0])))
		})
	}
}

// TestEDILargeInterchange measures one interchange of
// FILEBRIDGE_<standard>_ORDERS orders (10,000 for the figures) of 3 lines
// through `run`: the time from the drop to processed/ and the peak RSS.
func TestEDILargeInterchange(t *testing.T) {
	for _, e := range ediStandards {
		t.Run(e.name, func(t *testing.T) {
			n := drillSize(t, "FILEBRIDGE_"+e.name+"_ORDERS", "10000", "one large "+e.message)
			if _, err := os.Stat("/proc/self/status"); err != nil {
				t.Skip("SKIPPED: no /proc to read the peak RSS from")
			}
			s, dir, inbox := simAndInbox(t, "A", "--preload", "50")
			cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `max_file_size = "1GB"`})
			mustWrite(t, cfg, readFile(t, cfg)+e.route)
			name := "big." + e.ext
			tmp := filepath.Join(dir, name)
			data := e.orders(e.orderPrefix[:1]+"B-", 900, n, 3, 50)
			mustWrite(t, tmp, string(data))
			p := start(t, "run", "run", "--config", cfg)
			p.waitRunning(t, 30*time.Second)
			begin := time.Now()
			if err := os.Rename(tmp, filepath.Join(inbox, name)); err != nil {
				t.Fatal(err)
			}
			allIn(t, 30*time.Minute, filepath.Join(inbox, "processed"), []string{name})
			took := time.Since(begin)
			peak := procStatus(t, p.cmd.Process.Pid, "VmHWM")
			p.stopOK(t, "run")
			s.ordersOnce(t, n)
			t.Logf("one %s of %d orders (%d lines, %.1f MB): took %s, peak RSS %.0f MiB", e.message, n, 3*n, float64(len(data))/1e6, took.Round(100*time.Millisecond), peak)
			fmt.Printf("%s %s orders=%d seconds=%.1f peak_rss_mib=%.0f\n", strings.ToLower(e.name), e.message, n, took.Seconds(), peak)
		})
	}
}

// shipAndExport lets the simulator ship and receive what the test sent
// (and move some stock), runs the partner outbox's shipments, receipts,
// stock and movements exports, and returns the file each wrote into dir,
// found by its name's prefix in that order, with the movements counted.
func (s *sim) shipAndExport(t *testing.T, cfg, dir string, prefixes ...string) ([]string, int) {
	t.Helper()
	for range 3 {
		s.tick(t) // in WMS, then shipped and received
	}
	// The simulator damages stock now and then (a movement to locked).
	for i := 0; i < 60 && s.stats(t).Counts["stock_movements"] == 0; i++ {
		s.tick(t)
	}
	moves := s.stats(t).Counts["stock_movements"]
	if moves == 0 {
		t.Fatal("no stock movement after 60 ticks of the simulator")
	}
	for _, typ := range []string{"shipments", "receipts", "stock", "movements"} {
		if out, code := runCmd(t, 60*time.Second, "export", "--config", cfg, "--outbox", "partner", typ); code != 0 {
			t.Fatalf("export %s: exit %d:\n%s", typ, code, out)
		}
	}
	out := make([]string, len(prefixes))
	for _, f := range files(t, dir) {
		for i, p := range prefixes {
			if strings.HasPrefix(f, p) {
				out[i] = filepath.Join(dir, f)
			}
		}
	}
	if slices.Contains(out, "") {
		t.Fatalf("the partner's folder holds %q, want a file of each of %q", files(t, dir), prefixes)
	}
	return out, moves
}

// edifactOrders writes an ORDERS interchange (control reference IC+ctl).
func edifactOrders(prefix string, ctl, n, linesPer, skus int) []byte {
	var b bytes.Buffer
	ref := fmt.Sprintf("IC%d", ctl)
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

// edifactExported: the stock INVRPT lists every SKU of the portal (the 50
// preloaded and the PRICAT's 2), the movements INVRPT one line per
// movement; the DESADV's lines are the ORDERS' and carry a tracking
// number; the RECADV's are the ASN's.
func edifactExported(t *testing.T, drops []ediDrop, out []string, moves int) {
	desadv, recadv, stock, movements := out[0], out[1], out[2], out[3]
	if got := len(edifactLines(t, []byte(readFile(t, stock)), true, "145")); got != 52 {
		t.Errorf("the stock INVRPT lists %d SKUs, want 52", got)
	}
	if got := len(edifactLines(t, []byte(readFile(t, movements)), true, "199")); got != moves {
		t.Errorf("the movements INVRPT holds %d movements, want the simulator's %d:\n%s", got, moves, readFile(t, movements))
	}
	data := []byte(readFile(t, desadv))
	want := edifactLines(t, drops[1].data, true, "21")
	if got := edifactLines(t, data, false, "12"); !slices.Equal(got, want) {
		t.Errorf("DESADV lines %q, want the ORDERS' %q\n%s", got, want, data)
	}
	if !bytes.Contains(data, []byte("RFF+CN:")) {
		t.Errorf("the DESADV carries no tracking number (RFF+CN):\n%s", data)
	}
	data = []byte(readFile(t, recadv))
	// The announced quantities (QTY+21) are the ASN's; the simulator may
	// receive less (QTY+48).
	want = edifactLines(t, drops[2].data, true, "12")
	if got := edifactLines(t, data, true, "21"); !slices.Equal(got, want) {
		t.Errorf("RECADV lines %q, want the ASN's %q\n%s", got, want, data)
	}
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

// x12Orders writes a 940 interchange (control number ctl).
func x12Orders(prefix string, ctl, n, linesPer, skus int) []byte {
	var b bytes.Buffer
	b.Grow(n * (200 + 40*linesPer))
	x12Open(&b, "OW", 2300, 0, ctl)
	line := 0
	for i := 1; i <= n; i++ {
		num := fmt.Sprintf("%s%05d", prefix, i)
		start := b.Len()
		fmt.Fprintf(&b, "ST*940*%04d~\nW05*N*%s*EXT-%s~\nN1*WH*Lyon*9*3~\nN1*ST*Jeanne Martin~\nN3*12 rue des Lilas~\nN4*Lyon**69003*FR~\n", i, num, num)
		for p := 1; p <= linesPer; p++ {
			line++
			fmt.Fprintf(&b, "LX*%d~\nW01*%d*EA**VN*PRE-%06d~\n", p, 1+i%5, (line-1)%skus+1)
		}
		fmt.Fprintf(&b, "SE*%d*%04d~\n", x12Segments(&b, start), i)
	}
	fmt.Fprintf(&b, "GE*%d*%d~\nIEA*1*%09d~\n", n, ctl, ctl)
	return b.Bytes()
}

// x12Receptions writes a 943 interchange of one stock transfer of lines
// lines on the preloaded SKUs, from the preloaded supplier.
func x12Receptions(order string, ctl, lines int) []byte {
	var b bytes.Buffer
	start := x12Open(&b, "AR", 2310, 1, ctl)
	fmt.Fprintf(&b, "ST*943*0001~\nW06*N*%s*20261126*ASN-1~\nN1*SF*Preloaded supplier 1*92*PRE-SUP-0001~\nN1*ST*Lyon*9*3~\nG62*17*20261201~\n", order)
	for p := 1; p <= lines; p++ {
		fmt.Fprintf(&b, "LX*%d~\nW04*%d*EA**VN*PRE-%06d~\n", p, 10*p, p)
	}
	x12Close(&b, start, ctl)
	return b.Bytes()
}

// x12Items writes an 832 interchange of two new SKUs of the preloaded
// supplier, with every column Edition A requires.
func x12Items(ctl int) []byte {
	var b bytes.Buffer
	start := x12Open(&b, "SC", 2250, 0, ctl)
	b.WriteString("ST*832*0001~\nBCT*PC*CAT-1~\nN1*VN*Preloaded supplier 1*92*PRE-SUP-0001~\n")
	for i, ean := range []string{"4006381333931", "4006381333948"} {
		fmt.Fprintf(&b, "LIN*%d*SK*X12-ITEM-%d*EN*%s~\nPID*F*08***Item %d~\nMEA*PD*LN*45*CM~\nMEA*PD*WD*50*CM~\nMEA*PD*HT*90*CM~\nMEA*PD*G*6.5*KG~\nPO4*1*****6.5~\nCTP**RES*89.90~\n",
			i+1, i+1, ean, i+1)
	}
	x12Close(&b, start, ctl)
	return b.Bytes()
}

// x12Open writes the ISA (ack asking for a TA1 when 1) and GS of a group
// of functional identifier fn, at hhmm, and returns where its first set
// starts.
func x12Open(b *bytes.Buffer, fn string, hhmm, ack, ctl int) int {
	fmt.Fprintf(b, "ISA*00*          *00*          *ZZ*SHOPERP        *ZZ*WAREHOUSE      *261126*%04d*U*00401*%09d*%d*P*>~\n", hhmm, ctl, ack)
	fmt.Fprintf(b, "GS*%s*SHOPERP*WAREHOUSE*20261126*%04d*%d*X*004010~\n", fn, hhmm, ctl)
	return b.Len()
}

// x12Segments counts the segments of the set begun at start, its SE
// included.
func x12Segments(b *bytes.Buffer, start int) int {
	return bytes.Count(b.Bytes()[start:], []byte("~")) + 1
}

// x12Close ends the one set begun at start, its group and the interchange.
func x12Close(b *bytes.Buffer, start, ctl int) {
	fmt.Fprintf(b, "SE*%d*0001~\nGE*1*%d~\nIEA*1*%09d~\n", x12Segments(b, start), ctl, ctl)
}

// x12Exported: the 947 holds one adjustment per movement, the 846 lists
// every SKU of the portal (the 50 preloaded and the 832's 2), the 945's
// lines are the 940's and the 944's the 943's.
func x12Exported(t *testing.T, drops []ediDrop, out []string, moves int) {
	f945, f944, f846, f947 := out[0], out[1], out[2], out[3]
	if got := len(x12Lines(parseX12(t, f947), x12Cols{"W15", 2, "W19", 2, 6})); got != moves {
		t.Errorf("the 947 holds %d adjustments, want the simulator's %d movements:\n%s", got, moves, readFile(t, f947))
	}
	if got := strings.Count(readFile(t, f846), "\nLIN**SK*"); got != 52 {
		t.Errorf("the 846 lists %d SKUs, want 52", got)
	}
	for _, c := range []struct {
		out, what, inWhat string
		cols, inCols      x12Cols
		in                []byte
	}{
		{f945, "945", "940", x12Cols{"W06", 2, "W12", 3, 8}, x12Cols{"W05", 2, "W01", 1, 5}, drops[0].data},
		{f944, "944", "943", x12Cols{"W17", 4, "W07", 1, 5}, x12Cols{"W06", 2, "W04", 1, 5}, drops[1].data},
	} {
		in, _, err := x12.Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		want := x12Lines(in, c.inCols)
		if got := x12Lines(parseX12(t, c.out), c.cols); !slices.Equal(got, want) {
			t.Errorf("%s lines %q, want the %s's %q\n%s", c.what, got, c.inWhat, want, readFile(t, c.out))
		}
	}
}

// parseX12 reads an interchange the test expects to be well formed.
func parseX12(t *testing.T, path string) *x12.Interchange {
	t.Helper()
	ic, _, err := x12.Parse([]byte(readFile(t, path)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ic
}

// x12Cols names where a set's lines are: the order in element hElem of
// segment head, each line a segment line with its quantity and product
// elements.
type x12Cols struct {
	head         string
	hElem        int
	line         string
	qElem, pElem int
}

// x12Lines lists "order sku quantity" of every line of the sets of ic.
func x12Lines(ic *x12.Interchange, c x12Cols) []string {
	var out []string
	for _, g := range ic.Groups {
		for _, s := range g.Sets {
			order := ""
			for _, seg := range s.Body() {
				switch seg.Tag {
				case c.head:
					order = seg.Value(c.hElem)
				case c.line:
					out = append(out, order+" "+seg.Value(c.pElem)+" "+seg.Value(c.qElem))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
