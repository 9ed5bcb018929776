package inbox_test

import (
	"fmt"
	"strings"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portalsim"
)

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

// TestEDIFACTInbound: an ORDERS interchange of three orders dropped in the
// inbox creates them once on the portal and gets a CONTRL accepting it;
// the same interchange again under another name (other bytes, same sender
// and control reference) is a duplicate: nothing submitted, a CONTRL
// rejecting it (26); an interchange with an empty quantity is refused with
// a CONTRL naming the message, segment and element (UCM, UCS, UCD),
// nothing created; a malformed envelope is rejected whole.
func TestEDIFACTInbound(t *testing.T) {
	e := newEnv(t, envOpts{edition: model.EditionA, routes: route("*.edi", "", `format = "edifact"`, "[inboxes.routes.defaults]\nwarehouseLocation = 3") + route("*.csv", "")})
	e.dropSample("A/good/SUPPLIERS_20260302.csv", "")
	e.runOnce()
	e.dropSample("A/good/SKU_20260302.csv", "")
	e.runOnce()
	if acks := e.ls("acks"); len(acks) != 0 {
		t.Fatalf("acks before any EDIFACT file: %q", acks)
	}

	e.drop("ORDERS_1.edi", ordersEDIFACT("IC101", "EDI-10", "2"))
	res := result(t, e.runOnce(), "ORDERS_1.edi")
	if res.State != journal.FileDone || res.DocsOK != 3 {
		t.Fatalf("ORDERS: %+v", res)
	}
	for _, o := range []string{"EDI-101", "EDI-102", "EDI-103"} {
		if n := e.sim.Count(portalsim.SalesOrders, o); n != 1 {
			t.Errorf("order %s created %d times", o, n)
		}
	}
	ackHas(t, takeAck(t, e, "CONTRL_5412345000013_"), "UNB+UNOC:3+5798000000001:14+5412345000013:14+", "UNH+1+CONTRL:D:3:UN'", "UCI+IC101+5412345000013:14+5798000000001:14+7'",
		"UCM+1+ORDERS:D:96A:UN:EAN008+7'\nUCM+2+ORDERS:D:96A:UN:EAN008+7'\nUCM+3+ORDERS:D:96A:UN:EAN008+7'")

	// The same bytes again, then the same sender and control reference
	// with other content: duplicates found by their interchange, so the
	// partner gets a CONTRL rejecting each.
	for _, dup := range []struct{ name, data string }{
		{"ORDERS_1_again.edi", ordersEDIFACT("IC101", "EDI-10", "2")},
		{"ORDERS_2.edi", ordersEDIFACT("IC101", "EDI-20", "2")},
	} {
		e.drop(dup.name, dup.data)
		res = result(t, e.runOnce(), dup.name)
		if !res.Duplicate || !strings.Contains(res.Message, "EDIFACT interchange IC101 of 14:5412345000013 was received before") {
			t.Errorf("%s: %+v", dup.name, res)
		}
		ackHas(t, takeAck(t, e, "CONTRL_5412345000013_"), "UCI+IC101+5412345000013:14+5798000000001:14+4+26+UNB+5'")
	}
	if n := e.sim.Count(portalsim.SalesOrders, "EDI-201"); n != 0 {
		t.Errorf("the duplicate interchange created EDI-201")
	}

	// An empty quantity: message 1 rejected at segment 6 QTY, element 01
	// component 2 (13: missing), the file refused.
	e.drop("ORDERS_3.edi", ordersEDIFACT("IC102", "EDI-30", ""))
	res = result(t, e.runOnce(), "ORDERS_3.edi")
	if res.State != journal.FileFailed || res.DocsOK != 0 {
		t.Errorf("an interchange with an empty quantity: %+v", res)
	}
	ackHas(t, takeAck(t, e, "CONTRL_5412345000013_"), "UCI+IC102+5412345000013:14+5798000000001:14+7'", "UCM+1+ORDERS:D:96A:UN:EAN008+4'\nUCS+6'\nUCD+13+1:2'")

	// A wrong UNT count: rejected whole, nothing created.
	bad := strings.Replace(ordersEDIFACT("IC103", "EDI-40", "2"), "UNT+10+2", "UNT+9+2", 1)
	e.drop("ORDERS_4.edi", bad)
	res = result(t, e.runOnce(), "ORDERS_4.edi")
	if res.State != journal.FileFailed || res.DocsOK != 0 {
		t.Errorf("a malformed interchange: %+v", res)
	}
	if n := e.sim.Count(portalsim.SalesOrders, "EDI-401"); n != 0 {
		t.Errorf("the malformed interchange created EDI-401")
	}
	ackHas(t, takeAck(t, e, "CONTRL_5412345000013_"), "UCI+IC103+5412345000013:14+5798000000001:14+4'", "UCM+2+ORDERS:D:96A:UN:EAN008+4+29+UNT+1'")
	if n := e.sim.RepeatedCreates(); n != 0 {
		t.Errorf("repeatedCreates %d", n)
	}
}
