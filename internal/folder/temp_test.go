package folder_test

import (
	"testing"

	"filebridge/internal/folder"
)

func TestIsTemp(t *testing.T) {
	cases := []struct {
		name string
		want bool
	}{
		{".ORDERS.report.csv.0123456789ab.part", true},
		{".a.ffffffffffff.part", true},
		{"ORDERS.csv", false},
		{"ORDERS.csv.part", false},
		{".ORDERS.csv.0123456789ab", false},
		{".ORDERS.csv.0123456789xz.part", false},
		{"x.ORDERS.csv.0123456789ab.part", false},
		{".0123456789ab.part", false},
	}
	for _, c := range cases {
		if got := folder.IsTemp(c.name); got != c.want {
			t.Errorf("IsTemp(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
