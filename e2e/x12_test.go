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

	"filebridge/internal/edi/x12"
	"filebridge/internal/folder/sftptest"
)

// x12Orders writes a 940 interchange (control number ctl) of n orders
// prefix+5 digits, one set each, with linesPer lines on the preloaded SKUs
// PRE-000001... (the simulator's --preload, at least skus).
func x12Orders(prefix string, ctl, n, linesPer, skus int) []byte {
	var b bytes.Buffer
	b.Grow(n * (200 + 40*linesPer))
	fmt.Fprintf(&b, "ISA*00*          *00*          *ZZ*SHOPERP        *ZZ*WAREHOUSE      *261126*2300*U*00401*%09d*0*P*>~\n", ctl)
	fmt.Fprintf(&b, "GS*OW*SHOPERP*WAREHOUSE*20261126*2300*%d*X*004010~\n", ctl)
	line := 0
	for i := 1; i <= n; i++ {
		num := fmt.Sprintf("%s%05d", prefix, i)
		start := b.Len()
		fmt.Fprintf(&b, "ST*940*%04d~\nW05*N*%s*EXT-%s~\nN1*WH*Lyon*9*3~\nN1*ST*Jeanne Martin~\nN3*12 rue des Lilas~\nN4*Lyon**69003*FR~\n", i, num, num)
		for p := 1; p <= linesPer; p++ {
			line++
			fmt.Fprintf(&b, "LX*%d~\nW01*%d*EA**VN*PRE-%06d~\n", p, 1+i%5, (line-1)%skus+1)
		}
		segs := bytes.Count(b.Bytes()[start:], []byte("~")) + 1
		fmt.Fprintf(&b, "SE*%d*%04d~\n", segs, i)
	}
	fmt.Fprintf(&b, "GE*%d*%d~\nIEA*1*%09d~\n", n, ctl, ctl)
	return b.Bytes()
}

// x12Receptions writes a 943 interchange of one stock transfer of lines
// lines on the preloaded SKUs, from the preloaded supplier.
func x12Receptions(order string, ctl, lines int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "ISA*00*          *00*          *ZZ*SHOPERP        *ZZ*WAREHOUSE      *261126*2310*U*00401*%09d*1*P*>~\n", ctl)
	fmt.Fprintf(&b, "GS*AR*SHOPERP*WAREHOUSE*20261126*2310*%d*X*004010~\n", ctl)
	start := b.Len()
	fmt.Fprintf(&b, "ST*943*0001~\nW06*N*%s*20261126*ASN-1~\nN1*SF*Preloaded supplier 1*92*PRE-SUP-0001~\nN1*ST*Lyon*9*3~\nG62*17*20261201~\n", order)
	for p := 1; p <= lines; p++ {
		fmt.Fprintf(&b, "LX*%d~\nW04*%d*EA**VN*PRE-%06d~\n", p, 10*p, p)
	}
	segs := bytes.Count(b.Bytes()[start:], []byte("~")) + 1
	fmt.Fprintf(&b, "SE*%d*0001~\nGE*1*%d~\nIEA*1*%09d~\n", segs, ctl, ctl)
	return b.Bytes()
}

// x12Items writes an 832 interchange of two new SKUs of the preloaded
// supplier, with every column Edition A requires.
func x12Items(ctl int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "ISA*00*          *00*          *ZZ*SHOPERP        *ZZ*WAREHOUSE      *261126*2250*U*00401*%09d*0*P*>~\n", ctl)
	fmt.Fprintf(&b, "GS*SC*SHOPERP*WAREHOUSE*20261126*2250*%d*X*004010~\n", ctl)
	start := b.Len()
	b.WriteString("ST*832*0001~\nBCT*PC*CAT-1~\nN1*VN*Preloaded supplier 1*92*PRE-SUP-0001~\n")
	for i, ean := range []string{"4006381333931", "4006381333948"} {
		fmt.Fprintf(&b, "LIN*%d*SK*X12-ITEM-%d*EN*%s~\nPID*F*08***Item %d~\nMEA*PD*LN*45*CM~\nMEA*PD*WD*50*CM~\nMEA*PD*HT*90*CM~\nMEA*PD*G*6.5*KG~\nPO4*1*****6.5~\nCTP**RES*89.90~\n",
			i+1, i+1, ean, i+1)
	}
	segs := bytes.Count(b.Bytes()[start:], []byte("~")) + 1
	fmt.Fprintf(&b, "SE*%d*0001~\nGE*1*%d~\nIEA*1*%09d~\n", segs, ctl, ctl)
	return b.Bytes()
}

// x12Config is the config of an inbox on sshd reading *.x12 files, its
// acknowledgements in in/acks, and an outbox on the same folder writing
// shipments as 945 and receipts as 944.
func x12Config(t *testing.T, s *sim, sshd *sftptest.SSHD, dir, inbox string) string {
	t.Helper()
	key := filepath.Join(dir, "id_ed25519")
	mustWrite(t, key, string(sshd.ClientKey))
	login := fmt.Sprintf("private_key_file = %q\nknown_hosts = %q\n", key, sshd.KnownHostsFile)
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "edi", url: sshd.URL(inbox), extra: login + `settle = "100ms"`})
	var b strings.Builder
	b.WriteString(readFile(t, cfg))
	b.WriteString("\n  [[inboxes.routes]]\n  match = \"*.x12\"\n  format = \"x12\"\n  ack_dir = \"acks\"\n")
	fmt.Fprintf(&b, "\n[[outboxes]]\nname = \"partner\"\nportal = \"main\"\nurl = %q\n%s", sshd.URL(inbox+"/acks"), login)
	for _, e := range []struct{ typ, set string }{{"shipments", "945"}, {"receipts", "944"}, {"stock", "846"}, {"movements", "947"}} {
		fmt.Fprintf(&b, "\n  [[outboxes.exports]]\n  type = %q\n  schedule = \"0 0 1 1 *\"\n  filename = \"%s_{seq}.x12\"\n"+
			"    [outboxes.exports.x12]\n    sender = \"ZZ:WAREHOUSE\"\n    receiver = \"ZZ:SHOPERP\"\n", e.typ, e.set)
	}
	mustWrite(t, cfg, b.String())
	return cfg
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

// lines lists "order sku quantity" of every line of the sets of ic, read
// from the segments named (order in head element hElem, line segment
// lTag with its quantity and product elements).
func x12Lines(ic *x12.Interchange, head string, hElem int, lTag string, qElem, pElem int) []string {
	var out []string
	for _, g := range ic.Groups {
		for _, s := range g.Sets {
			order := ""
			for _, seg := range s.Body() {
				switch seg.Tag {
				case head:
					order = seg.Value(hElem)
				case lTag:
					out = append(out, order+" "+seg.Value(pElem)+" "+seg.Value(qElem))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestX12EndToEnd: a 940 of three orders and a 943 dropped on OpenSSH
// sshd become three orders and a reception on the simulator, each once;
// the partner's folder gets a 997 accepting each; once the simulator
// ships and receives, the exports write a 945 whose lines are the 940's
// and a 944 whose lines are the 943's.
func TestX12EndToEnd(t *testing.T) {
	for _, edition := range []string{"A", "B"} {
		t.Run(edition, func(t *testing.T) {
			t.Parallel()
			x12EndToEnd(t, edition)
		})
	}
}

func x12EndToEnd(t *testing.T, edition string) {
	s := startSim(t, edition, "--preload", "50")
	dir := t.TempDir()
	root := filepath.Join(dir, "srv")
	inbox := mkdir(t, root, "in")
	acks := mkdir(t, inbox, "acks")
	sshd := sftptest.StartSSHD(t, root)
	cfg := x12Config(t, s, sshd, dir, inbox)

	orders := x12Orders("X12-", 501, 3, 2, 50)
	writeAtomic(t, filepath.Join(inbox, "940_501.x12"), orders)
	writeAtomic(t, filepath.Join(inbox, "943_502.x12"), x12Receptions("PO-X12-1", 502, 3))
	writeAtomic(t, filepath.Join(inbox, "832_500.x12"), x12Items(500))
	p := start(t, "run", "run", "--config", cfg)
	allIn(t, 60*time.Second, filepath.Join(inbox, "processed"), []string{"940_501.x12", "943_502.x12", "832_500.x12"})
	p.stopOK(t, "run")

	got := files(t, acks)
	if len(got) != 3 {
		t.Fatalf("acks: %q, want three 997s", got)
	}
	for _, a := range got {
		body := readFile(t, filepath.Join(acks, a))
		ic := parseX12(t, filepath.Join(acks, a))
		if ic.Groups[0].FuncID != "FA" || !strings.Contains(body, "AK9*A*") {
			t.Errorf("%s does not accept its group:\n%s", a, body)
		}
		if strings.Contains(body, "AK1*AR*502~") && !strings.Contains(body, "TA1*000000502*") {
			t.Errorf("%s: the 943 asked for a TA1 (ISA14 = 1):\n%s", a, body)
		}
	}
	s.ordersOnce(t, 3)
	if n := s.onceEach(t, "purchase_orders", "orderNumber"); len(n) != 1 {
		t.Errorf("receptions: %v", n)
	}
	if n := s.onceEach(t, "variants", "sku"); n["X12-ITEM-1"] != 1 || n["X12-ITEM-2"] != 1 {
		t.Errorf("the 832's SKUs on the portal: %v", n)
	}

	out4, moves := s.shipAndExport(t, cfg, acks, "945_", "944_", "846_", "947_")
	f945, f944, f846, f947 := out4[0], out4[1], out4[2], out4[3]
	if got := len(x12Lines(parseX12(t, f947), "W15", 2, "W19", 2, 6)); got != moves {
		t.Errorf("the 947 holds %d adjustments, want the simulator's %d movements:\n%s", got, moves, readFile(t, f947))
	}
	// The 846 lists every SKU of the portal: the 50 preloaded and the 832's 2.
	if got := strings.Count(readFile(t, f846), "\nLIN**SK*"); got != 52 {
		t.Errorf("the 846 lists %d SKUs, want 52", got)
	}
	in940, _, err := x12.Parse(orders)
	if err != nil {
		t.Fatal(err)
	}
	want := x12Lines(in940, "W05", 2, "W01", 1, 5)
	if got := x12Lines(parseX12(t, f945), "W06", 2, "W12", 3, 8); !slices.Equal(got, want) {
		t.Errorf("945 lines %q, want the 940's %q\n%s", got, want, readFile(t, f945))
	}
	in943, _, err := x12.Parse(x12Receptions("PO-X12-1", 502, 3))
	if err != nil {
		t.Fatal(err)
	}
	want = x12Lines(in943, "W06", 2, "W04", 1, 5)
	if got := x12Lines(parseX12(t, f944), "W17", 4, "W07", 1, 5); !slices.Equal(got, want) {
		t.Errorf("944 lines %q, want the 943's %q\n%s", got, want, readFile(t, f944))
	}
	s.noRepeats(t)
}

// TestX12CrashResume kills `filebridge run` with SIGKILL at random (seeded)
// moments while it submits one 940 of 600 orders to a slowed simulator,
// 5 times, then lets a last run finish it: every order exists once, no
// create was sent twice, and exactly one 997 accepts the interchange.
func TestX12CrashResume(t *testing.T) {
	t.Parallel()
	const n = 600
	s, dir, inbox := simAndInbox(t, "A", "--preload", "50", "--latency", "60ms")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `settle = "100ms"`})
	mustWrite(t, cfg, readFile(t, cfg)+"\n  [[inboxes.routes]]\n  match = \"*.x12\"\n")
	writeAtomic(t, filepath.Join(inbox, "940_CRASH.x12"), x12Orders("XC-", 777, n, 1, 50))
	killRuns(t, cfg, 5, rand.New(rand.NewPCG(20261127, 12)), 300*time.Millisecond, 900*time.Millisecond, nil)
	// The kills landed inside the interchange: part of it is on the portal.
	if got := len(s.keyCounts(t, "sales_orders", "orderNumber")); got == 0 || got == n {
		t.Errorf("%d of %d orders on the portal after the kills, want some: no kill landed mid-interchange", got, n)
	} else {
		t.Logf("%d of %d orders on the portal after 5 kills", got, n)
	}
	processed := filepath.Join(inbox, "processed")
	finalRun(t, cfg, processed, []string{"940_CRASH.x12"})
	s.ordersOnce(t, n)
	acks := files(t, filepath.Join(inbox, "acks"))
	if len(acks) != 1 {
		t.Fatalf("acks %q, want one 997", acks)
	}
	if body := readFile(t, filepath.Join(inbox, "acks", acks[0])); !strings.Contains(body, fmt.Sprintf("AK9*A*%d*%d*%d~", n, n, n)) {
		t.Errorf("the 997 does not accept the %d sets:\n%s", n, tail(body, 400))
	}
}

// TestX12LargeInterchange measures one 940 of FILEBRIDGE_X12_ORDERS orders
// (10,000 for the figures) of 3 lines through `run`: the time
// from the drop to processed/ and the peak RSS.
func TestX12LargeInterchange(t *testing.T) {
	n := drillSize(t, "FILEBRIDGE_X12_ORDERS", "10000", "one large 940")
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("SKIPPED: no /proc to read the peak RSS from")
	}
	s, dir, inbox := simAndInbox(t, "A", "--preload", "50")
	cfg := runConfig(t, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: `max_file_size = "1GB"`})
	mustWrite(t, cfg, readFile(t, cfg)+"\n  [[inboxes.routes]]\n  match = \"*.x12\"\n")
	name := "940_BIG.x12"
	tmp := filepath.Join(dir, name)
	data := x12Orders("XB-", 900, n, 3, 50)
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
	t.Logf("one 940 of %d orders (%d lines, %.1f MB): took %s, peak RSS %.0f MiB", n, 3*n, float64(len(data))/1e6, took.Round(100*time.Millisecond), peak)
	fmt.Printf("x12 940 orders=%d seconds=%.1f peak_rss_mib=%.0f\n", n, took.Seconds(), peak)
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
