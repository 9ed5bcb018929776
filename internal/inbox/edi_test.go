package inbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portalsim"
)

// x12Testdata reads an interchange of the decoder's golden files.
func x12Testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "formats", "testdata", "x12", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// takeAck returns the one acknowledgement in the acks folder, whose name
// starts with prefix, and removes the folder for the next one.
func takeAck(t *testing.T, e *env, prefix string) string {
	t.Helper()
	acks := e.ls("acks")
	if len(acks) != 1 || !strings.HasPrefix(filepath.Base(acks[0]), prefix) {
		t.Fatalf("acks: %q, want one %s", acks, prefix)
	}
	ack := e.read(acks[0])
	if err := os.RemoveAll(filepath.Join(e.dir, "acks")); err != nil {
		t.Fatal(err)
	}
	return ack
}

// ackHas fails the test for each of wants the acknowledgement lacks.
func ackHas(t *testing.T, ack string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(ack, want) {
			t.Errorf("acknowledgement lacks %q:\n%s", want, ack)
		}
	}
}

// ordersEDIFACT is an ORDERS interchange of control reference ref with
// three orders (prefix 1..3) of the samples' SKUs; qty is the first line's
// quantity.
func ordersEDIFACT(ref, prefix, qty string) string {
	var b strings.Builder
	n := 0
	seg := func(s string) { b.WriteString(s + "'\n"); n++ }
	b.WriteString("UNA:+.? '\nUNB+UNOC:3+5412345000013:14+5798000000001:14+261126:2305+" + ref + "'\n")
	for i := 1; i <= 3; i++ {
		n = 0
		seg(fmt.Sprintf("UNH+%d+ORDERS:D:96A:UN:EAN008", i))
		seg(fmt.Sprintf("BGM+220+%s%d+9", prefix, i))
		seg("NAD+DP+5412345000020::9++Jeanne Martin+12 rue des Lilas+Lyon++69003+FR")
		seg("LIN+1")
		seg("PIA+5+CHR-OAK-DIN:SA")
		seg("QTY+21:" + qty)
		seg("LIN+2")
		seg("PIA+5+TBL-OAK180-TOP:SA")
		seg("QTY+21:1")
		seg(fmt.Sprintf("UNT+%d+%d", n+1, i))
	}
	b.WriteString("UNZ+3+" + ref + "'\n")
	return b.String()
}

// TestEDIInbound: an X12 940 or an EDIFACT ORDERS interchange of three
// orders dropped in the inbox creates them once on the portal and gets an
// acknowledgement (997, CONTRL) accepting it; the same interchange again
// under another name (the same bytes, or other content with the same
// sender and control number) is a duplicate: nothing submitted, an
// acknowledgement rejecting it (TA1 025, UCI 26); an interchange with an
// empty quantity is refused with an acknowledgement naming the set or
// message, segment and element (AK3/AK4, UCM/UCS/UCD), nothing created;
// a malformed EDIFACT envelope is rejected whole.
func TestEDIInbound(t *testing.T) {
	type step struct {
		file, data string
		dup        bool // a duplicate interchange (else: state and ok)
		state      journal.FileState
		ok         int
		created    []string // orders created once
		absent     string   // an order never created
		wants      []string // in the acknowledgement
	}
	x12Bad := strings.Replace(x12Testdata(t, "940.x12"), "000000101", "000000102", 2)
	x12Bad = strings.Replace(x12Bad, "W01*5*EA**VN*CHR-OAK-DIN", "W01**EA**VN*CHR-OAK-DIN", 1)
	x12Bad = strings.ReplaceAll(x12Bad, "ORD-100", "ORD-200")
	edifactDup := []string{"UCI+IC101+5412345000013:14+5798000000001:14+4+26+UNB+5'"}
	for _, tc := range []struct {
		name, route, ack, dupMsg string
		steps                    []step
	}{
		{name: "X12", route: route("*.x12", "", `format = "x12"`), ack: "997_",
			dupMsg: "X12 interchange 000000101 of ZZ:SHOPERP was received before",
			steps: []step{
				{file: "ORDERS_1.x12", data: x12Testdata(t, "940.x12"), state: journal.FileDone, ok: 3, created: []string{"ORD-1001", "ORD-1002", "ORD-1003"},
					wants: []string{"GS*FA*WAREHOUSE*SHOPERP*", "AK1*OW*101~", "AK2*940*0001~\nAK5*A~", "AK9*A*3*3*3~"}},
				{file: "ORDERS_2.x12", data: strings.Replace(x12Testdata(t, "940.x12"), "ORD-1003", "ORD-1004", 1), dup: true, absent: "ORD-1004",
					wants: []string{"TA1*000000101*261126*2300*R*025~"}},
				{file: "ORDERS_1_AGAIN.x12", data: x12Testdata(t, "940.x12"), dup: true, wants: []string{"TA1*000000101*261126*2300*R*025~"}},
				// A bad value: the 997 names set 0002, segment 8 W01, element 01.
				{file: "ORDERS_3.x12", data: x12Bad, state: journal.FileFailed,
					wants: []string{"AK2*940*0002~\nAK3*W01*8**8~\nAK4*1**1~\nAK5*R*5~", "AK9*R*3*3*0~"}},
			}},
		{name: "EDIFACT", route: route("*.edi", "", `format = "edifact"`, "[inboxes.routes.defaults]\nwarehouseLocation = 3"), ack: "CONTRL_5412345000013_",
			dupMsg: "EDIFACT interchange IC101 of 14:5412345000013 was received before",
			steps: []step{
				{file: "ORDERS_1.edi", data: ordersEDIFACT("IC101", "EDI-10", "2"), state: journal.FileDone, ok: 3, created: []string{"EDI-101", "EDI-102", "EDI-103"},
					wants: []string{"UNB+UNOC:3+5798000000001:14+5412345000013:14+", "UNH+1+CONTRL:D:3:UN'", "UCI+IC101+5412345000013:14+5798000000001:14+7'",
						"UCM+1+ORDERS:D:96A:UN:EAN008+7'\nUCM+2+ORDERS:D:96A:UN:EAN008+7'\nUCM+3+ORDERS:D:96A:UN:EAN008+7'"}},
				{file: "ORDERS_1_again.edi", data: ordersEDIFACT("IC101", "EDI-10", "2"), dup: true, wants: edifactDup},
				{file: "ORDERS_2.edi", data: ordersEDIFACT("IC101", "EDI-20", "2"), dup: true, absent: "EDI-201", wants: edifactDup},
				// An empty quantity: message 1 rejected at segment 6 QTY,
				// element 01 component 2 (13: missing), the file refused.
				{file: "ORDERS_3.edi", data: ordersEDIFACT("IC102", "EDI-30", ""), state: journal.FileFailed,
					wants: []string{"UCI+IC102+5412345000013:14+5798000000001:14+7'", "UCM+1+ORDERS:D:96A:UN:EAN008+4'\nUCS+6'\nUCD+13+1:2'"}},
				// A wrong UNT count: rejected whole, nothing created.
				{file: "ORDERS_4.edi", data: strings.Replace(ordersEDIFACT("IC103", "EDI-40", "2"), "UNT+10+2", "UNT+9+2", 1), state: journal.FileFailed, absent: "EDI-401",
					wants: []string{"UCI+IC103+5412345000013:14+5798000000001:14+4'", "UCM+2+ORDERS:D:96A:UN:EAN008+4+29+UNT+1'"}},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOpts{edition: model.EditionA, routes: tc.route + route("*.csv", "")})
			e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
			e.runOnce()
			e.dropSample("A/good/SKU_20260302.csv", "")
			e.runOnce()
			if acks := e.ls("acks"); len(acks) != 0 {
				t.Fatalf("acks before any %s file: %q", tc.name, acks)
			}
			for _, s := range tc.steps {
				e.drop(s.file, s.data)
				res := result(t, e.runOnce(), s.file)
				switch {
				case s.dup && (!res.Duplicate || !strings.Contains(res.Message, tc.dupMsg)):
					t.Errorf("%s, a duplicate interchange: %+v", s.file, res)
				case !s.dup && (res.State != s.state || res.DocsOK != s.ok):
					t.Errorf("%s: %+v, want %s with %d document(s) in the portal", s.file, res, s.state, s.ok)
				}
				for _, o := range s.created {
					if n := e.sim.Count(portalsim.SalesOrders, o); n != 1 {
						t.Errorf("order %s created %d times", o, n)
					}
				}
				if s.absent != "" && e.sim.Count(portalsim.SalesOrders, s.absent) != 0 {
					t.Errorf("%s created %s", s.file, s.absent)
				}
				ackHas(t, takeAck(t, e, tc.ack), s.wants...)
			}
			if n := e.sim.RepeatedCreates(); n != 0 {
				t.Errorf("repeatedCreates %d", n)
			}
		})
	}
}

// TestEDIReplay: an interchange partly through (policy partial, no hold,
// one order's SKU not on the portal yet) is recorded as received, and its
// acknowledgement rejects the order's set or message alone; once the SKU
// exists, its replay goes through as a replay, not as a duplicate
// interchange, and creates the missing order alone, once.
func TestEDIReplay(t *testing.T) {
	edifactMissing := ordersEDIFACT("IC201", "EDI-R", "2")
	i := strings.LastIndex(edifactMissing, "PIA+5+TBL-OAK180-TOP:SA")
	edifactMissing = edifactMissing[:i] + "PIA+5+THROW-WOOL-GRN:SA" + edifactMissing[i+len("PIA+5+TBL-OAK180-TOP:SA"):]
	for _, tc := range []struct {
		name, file, route, data, ack, missing string
		wants                                 []string
	}{
		{name: "X12", file: "ORDERS_1.x12", route: route("*.x12", "", `format = "x12"`, `policy = "partial"`),
			data: strings.Replace(x12Testdata(t, "940.x12"), "SK*CHR-BIRCH-STK", "SK*THROW-WOOL-GRN", 1), ack: "997_", missing: "ORD-1003",
			wants: []string{"AK2*940*0001~\nAK5*A~", "AK2*940*0002~\nAK5*A~", "AK2*940*0003~\nAK5*R*5~"}},
		{name: "EDIFACT", file: "ORDERS_1.edi", route: route("*.edi", "", `format = "edifact"`, `policy = "partial"`, "[inboxes.routes.defaults]\nwarehouseLocation = 3"),
			data: edifactMissing, ack: "CONTRL_", missing: "EDI-R3",
			wants: []string{"UCI+IC201+5412345000013:14+5798000000001:14+7'", "UCM+1+ORDERS:D:96A:UN:EAN008+7'\nUCM+2+ORDERS:D:96A:UN:EAN008+7'\nUCM+3+ORDERS:D:96A:UN:EAN008+4'\nUCS+"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOpts{edition: model.EditionA, inbox: `hold_missing = "0s"`, routes: tc.route + route("*.csv", "") + route("*.xlsx", "")})
			e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
			e.runOnce()
			e.dropSample("A/good/SKU_20260302.csv", "")
			e.runOnce()
			e.drop(tc.file, tc.data)
			res := result(t, e.runOnce(), tc.file)
			if res.State != journal.FileFailed || res.DocsOK != 2 {
				t.Fatalf("an interchange with a SKU missing: %+v", res)
			}
			ackHas(t, takeAck(t, e, tc.ack), tc.wants...)
			e.dropSample("A/good/SKU_20260310.xlsx", "")
			e.runOnce()
			orig := e.fileNamed(tc.file)
			f, err := e.in.Folder(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := inbox.Requeue(t.Context(), e.j, f, &e.cfg.Inboxes[0], orig, false, "cli"); err != nil {
				t.Fatal(err)
			}
			res = result(t, e.runOnce(), tc.file)
			if res.Duplicate || res.State != journal.FileDone {
				t.Fatalf("the replay: %+v", res)
			}
			if n := e.sim.Count(portalsim.SalesOrders, tc.missing); n != 1 {
				t.Errorf("%s created %d times by the replay", tc.missing, n)
			}
			if n := e.sim.RepeatedCreates(); n != 0 {
				t.Errorf("repeatedCreates %d", n)
			}
		})
	}
}

// TestX12PortalRefusal: a set whose order the portal refuses (an unknown
// warehouse) is rejected in the 997 (AK5 R), the others accepted, with
// policy partial.
func TestX12PortalRefusal(t *testing.T) {
	e := newEnv(t, envOpts{edition: model.EditionA,
		routes: route("*.x12", "", `format = "x12"`, `policy = "partial"`) + route("*.csv", "")})
	e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
	e.runOnce()
	e.dropSample("A/good/SKU_20260302.csv", "")
	e.runOnce()
	data := x12Testdata(t, "940.x12")
	i := strings.Index(data, "ST*940*0002")
	data = data[:i] + strings.Replace(data[i:], "N1*WH*Main warehouse*9*3~", "N1*WH*Main warehouse*9*999~", 1)
	e.drop("ORDERS_1.x12", data)
	res := result(t, e.runOnce(), "ORDERS_1.x12")
	if res.DocsOK != 2 || res.Invalid != 1 {
		t.Fatalf("940 with an unknown warehouse in set 0002: %+v", res)
	}
	ackHas(t, takeAck(t, e, "997_"), "AK2*940*0001~\nAK5*A~", "AK2*940*0002~\nAK5*R*5~", "AK2*940*0003~\nAK5*A~", "AK9*P*3*3*2~")
}
