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
	since := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		if got := in.Hold(in.Route(tt.file)); got != tt.want {
			t.Errorf("hold of %s: got %s, want %s", tt.file, got, tt.want)
		}
		want := time.Time{}
		if tt.want > 0 {
			want = since.Add(tt.want)
		}
		if got := c.HoldUntil("erp", tt.file, since); !got.Equal(want) {
			t.Errorf("HoldUntil of %s: got %s, want %s", tt.file, got, want)
		}
	}
	if got := c.HoldUntil("gone", "SKU_1.csv", since); !got.IsZero() {
		t.Errorf("HoldUntil of an inbox not configured: got %s, want zero", got)
	}
	if !in.Excluded("scan.pdf") || in.Excluded("SKU_1.csv") {
		t.Errorf("exclude *.PDF: scan.pdf %v, SKU_1.csv %v; want true, false", in.Excluded("scan.pdf"), in.Excluded("SKU_1.csv"))
	}
}
