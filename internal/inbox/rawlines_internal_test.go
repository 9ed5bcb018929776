package inbox

import "testing"

// TestNeutralizeRaw: the raw lines of a broken record get the apostrophe
// before each value that would start a formula, as a spreadsheet splits
// them, and nothing else changes.
func TestNeutralizeRaw(t *testing.T) {
	tests := []struct {
		raw   string
		delim rune
		want  string
	}{
		{`SUP-B,"Monitor 24"",Manufacturer`, ',', `SUP-B,"Monitor 24"",Manufacturer`},
		{`=cmd|x,"@SUM(1)",-3,a-b`, ',', `'=cmd|x,"'@SUM(1)",'-3,a-b`},
		{"a;\"x;=y\"\n+31;b", ';', "a;\"x;=y\"\n'+31;b"},
		{"a\t=b\t\tc", '\t', "a\t'=b\t\tc"},
		{"\"open\n=still inside", ',', "\"open\n=still inside"},
		{`"",=x`, ',', `"",'=x`},
	}
	for _, tt := range tests {
		if got := neutralizeRaw(tt.raw, tt.delim); got != tt.want {
			t.Errorf("neutralizeRaw(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
