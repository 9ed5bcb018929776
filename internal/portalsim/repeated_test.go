package portalsim

import "testing"

// TestRepeatedCreates: a create refused because its unique key is already
// used counts as a repeat (in RepeatedCreates and /_sim/stats); other
// refusals and creates do not.
func TestRepeatedCreates(t *testing.T) {
	c := start(t, edA())
	c.post("/connections", supplierA("S1"))
	c.post("/variants", skuA("K1", 1))
	c.post("/sales_orders", orderA("O1", 1, 1))
	if n := c.sim.RepeatedCreates(); n != 0 {
		t.Fatalf("%d repeats after three new documents", n)
	}
	c.mustDo(422, "POST", "/api/sales_orders", orderA("O1", 1, 1))
	c.mustDo(422, "POST", "/api/connections", supplierA("S1"))
	c.mustDo(422, "POST", "/api/sales_orders", orderA("O9", 99, 1)) // unknown variant: not a repeat
	if n := c.sim.RepeatedCreates(); n != 2 {
		t.Errorf("RepeatedCreates = %d, want 2", n)
	}
	if st := c.sim.Stats(); st.RepeatedCreates != 2 {
		t.Errorf("stats repeatedCreates = %d, want 2", st.RepeatedCreates)
	}
}
