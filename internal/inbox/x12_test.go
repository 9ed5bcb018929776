package inbox_test

import (
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

// TestX12Inbound: a 940 of three orders dropped in the inbox creates them
// once on the portal and gets a 997 accepting its group; the same
// interchange again under another name (other bytes, same sender and
// control number) is a duplicate: nothing submitted, a TA1 rejecting it
// (025); an interchange with an empty quantity is refused with a 997
// naming the set, segment and element (AK3/AK4), nothing created.
func TestX12Inbound(t *testing.T) {
	e := newEnv(t, envOpts{edition: model.EditionA, routes: route("*.x12", "", `format = "x12"`) + route("*.csv", "")})
	e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
	e.runOnce()
	e.dropSample("A/good/SKU_20260302.csv", "")
	e.runOnce()
	if acks := e.ls("acks"); len(acks) != 0 {
		t.Fatalf("acks before any X12 file: %q", acks)
	}

	e.drop("ORDERS_1.x12", x12Testdata(t, "940.x12"))
	res := result(t, e.runOnce(), "ORDERS_1.x12")
	if res.State != journal.FileDone || res.DocsOK != 3 {
		t.Fatalf("940: %+v", res)
	}
	for _, o := range []string{"ORD-1001", "ORD-1002", "ORD-1003"} {
		if n := e.sim.Count(portalsim.SalesOrders, o); n != 1 {
			t.Errorf("order %s created %d times", o, n)
		}
	}
	ackHas(t, takeAck(t, e, "997_"), "GS*FA*WAREHOUSE*SHOPERP*", "AK1*OW*101~", "AK2*940*0001~\nAK5*A~", "AK9*A*3*3*3~")

	// Same sender and control number, other content, then the very same
	// file again: duplicates of the first, acknowledged too.
	for _, dup := range []struct{ name, data string }{
		{"ORDERS_2.x12", strings.Replace(x12Testdata(t, "940.x12"), "ORD-1003", "ORD-1004", 1)},
		{"ORDERS_1_AGAIN.x12", x12Testdata(t, "940.x12")},
	} {
		e.drop(dup.name, dup.data)
		res = result(t, e.runOnce(), dup.name)
		if !res.Duplicate || !strings.Contains(res.Message, "X12 interchange 000000101 of ZZ:SHOPERP was received before") {
			t.Errorf("%s: %+v", dup.name, res)
		}
		ackHas(t, takeAck(t, e, "997_"), "TA1*000000101*261126*2300*R*025~")
	}
	if n := e.sim.Count(portalsim.SalesOrders, "ORD-1004"); n != 0 {
		t.Errorf("the duplicate interchange created ORD-1004")
	}

	// A bad value: the 997 names set 0002, segment 8 W01, element 01.
	bad := strings.Replace(x12Testdata(t, "940.x12"), "000000101", "000000102", 2)
	bad = strings.Replace(bad, "W01*5*EA**VN*CHR-OAK-DIN", "W01**EA**VN*CHR-OAK-DIN", 1)
	bad = strings.ReplaceAll(bad, "ORD-100", "ORD-200")
	e.drop("ORDERS_3.x12", bad)
	res = result(t, e.runOnce(), "ORDERS_3.x12")
	if res.State != journal.FileFailed || res.DocsOK != 0 {
		t.Errorf("an interchange with an empty quantity: %+v", res)
	}
	ackHas(t, takeAck(t, e, "997_"), "AK2*940*0002~\nAK3*W01*8**8~\nAK4*1**1~\nAK5*R*5~", "AK9*R*3*3*0~")
	if n := e.sim.RepeatedCreates(); n != 0 {
		t.Errorf("repeatedCreates %d", n)
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
