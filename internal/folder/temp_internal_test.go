package folder

import "testing"

// TestTempNameIsTemp: every name CreateAtomic writes to is one IsTemp
// recognises, so the clean-up at start finds what a kill left.
func TestTempNameIsTemp(t *testing.T) {
	for _, base := range []string{"a", "ORDERS.csv", "ORDERS.report.csv", ".hidden"} {
		if n := tempName(base); !IsTemp(n) {
			t.Errorf("IsTemp(%q) is false for the temporary name of %q", n, base)
		}
	}
}
