package formats

import (
	"math/rand/v2"
	"slices"
	"testing"

	"filebridge/internal/model"
)

// TestCheckEANRandom checks the EAN check of a cell against the
// definition: 8, 12, 13 or 14 digits, the last one the check digit of the
// others.
func TestCheckEANRandom(t *testing.T) {
	cases := []string{"", "4006381333931", "4006381333932", "40063813", "96385074", "012345678905",
		"00012345600012", "4006381333931x", "400638133393/", "400638133393:", "4006381333a31", "123"}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 20000; n++ {
		b := make([]byte, []int{7, 8, 12, 13, 14, 15}[r.IntN(6)])
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
			if r.IntN(50) == 0 {
				b[i] = "/:a \xff"[r.IntN(5)]
			}
		}
		cases = append(cases, string(b))
	}
	var p parser
	for _, s := range cases {
		want := slices.Contains([]int{8, 12, 13, 14}, len(s)) && isDigits(s) && s[len(s)-1] == model.EANCheckDigit(s[:len(s)-1])
		if got := p.checkEAN(s); (got == "") != want {
			t.Fatalf("checkEAN(%q) = %q, want valid=%v", s, got, want)
		}
	}
}

func TestGreaterThanOne(t *testing.T) {
	for _, tc := range []struct {
		d    model.Decimal
		want bool
	}{
		{"0", false}, {"1", false}, {"2", true}, {"9", true}, {"0.5", false}, {"1.5", true},
		{"10", true}, {"-3", false}, {"", false}, {"1.0001", true},
	} {
		t.Run(string(tc.d), func(t *testing.T) {
			if got := greaterThanOne(tc.d); got != tc.want {
				t.Errorf("greaterThanOne(%q) = %v, want %v", tc.d, got, tc.want)
			}
		})
	}
}
