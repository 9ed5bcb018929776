package folder

import "testing"

// TestIsTemp: IsTemp recognises the names CreateAtomic writes to, so the
// clean-up at start finds what a kill left, and no other name.
func TestIsTemp(t *testing.T) {
	cases := map[string]bool{
		".ORDERS.report.csv.0123456789ab.part": true,
		".a.ffffffffffff.part":                 true,
		"ORDERS.csv":                           false,
		"ORDERS.csv.part":                      false,
		".ORDERS.csv.0123456789ab":             false,
		".ORDERS.csv.0123456789xz.part":        false,
		"x.ORDERS.csv.0123456789ab.part":       false,
		".0123456789ab.part":                   false,
	}
	for _, base := range []string{"a", "ORDERS.csv", "ORDERS.report.csv", ".hidden"} {
		cases[tempName(base)] = true
	}
	for name, want := range cases {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, got, want)
		}
	}
}
