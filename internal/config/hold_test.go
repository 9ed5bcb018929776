package config

import (
	"testing"
	"time"
)

func TestHoldMissingPerRoute(t *testing.T) {
	data := []byte(`
[portals.main]
edition = "A"
base_url = "https://portal.example.com/api"
company = 42
token_env = "FILEBRIDGE_TOKEN"

[[inboxes]]
name = "erp"
portal = "main"
url = "/srv/edi/in"
hold_missing = "2h"
exclude = ["*.PDF"]

  [[inboxes.routes]]
  match = "ORDERS_*"
  type = "orders"
  hold_missing = "0s"

  [[inboxes.routes]]
  match = "SKU_*"
  type = "skus"
`)
	c, err := Decode(data, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
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
