package config

import (
	"testing"
	"time"
)

func TestHoldMissingPerRoute(t *testing.T) {
	c := decodeTestdata(t, "hold.good.toml")
	in := c.Inbox("erp")
	tests := []struct {
		file string
		want time.Duration
	}{
		{"ORDERS_1.csv", 0},
		{"SKU_1.csv", 2 * time.Hour},
	}
	for _, tt := range tests {
		if got := in.Hold(in.Route(tt.file)); got != tt.want {
			t.Errorf("hold of %s: got %s, want %s", tt.file, got, tt.want)
		}
	}
	if !in.Excluded("scan.pdf") || in.Excluded("SKU_1.csv") {
		t.Errorf("exclude *.PDF: scan.pdf %v, SKU_1.csv %v; want true, false", in.Excluded("scan.pdf"), in.Excluded("SKU_1.csv"))
	}
}
