package config

import (
	"testing"
	"time"
)

func TestRetention(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"90d", 90 * 24 * time.Hour, false},
		{"1d", 24 * time.Hour, false},
		{"48h", 48 * time.Hour, false},
		{"", 0, false},
		{"0d", 0, true},
		{"12h", 0, true},
		{"-3d", 0, true},
		{"ninety days", 0, true},
	}
	for _, tt := range tests {
		var r Retention
		err := r.UnmarshalText([]byte(tt.in))
		if (err != nil) != tt.wantErr || (!tt.wantErr && r.Dur() != tt.want) {
			t.Errorf("%q: %v, %v; want %v (error %v)", tt.in, r.Dur(), err, tt.want, tt.wantErr)
		}
	}
	if b, _ := Retention(90 * 24 * time.Hour).MarshalText(); string(b) != "90d" {
		t.Errorf("MarshalText = %s", b)
	}
}

func TestErrorRetention(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"30d", 30 * 24 * time.Hour, false},
		{"0s", 0, false},
		{"0d", 0, false},
		{"90s", 90 * time.Second, false},
		{"", 0, true},
		{"-1h", 0, true},
		{"-3d", 0, true},
		{"a month", 0, true},
	}
	for _, tt := range tests {
		var k Keep
		err := k.UnmarshalText([]byte(tt.in))
		if (err != nil) != tt.wantErr || (!tt.wantErr && k.Dur() != tt.want) {
			t.Errorf("%q: %v, %v; want %v (error %v)", tt.in, k.Dur(), err, tt.want, tt.wantErr)
		}
	}
	// Unset, resolved failures leave error/ after 30 days.
	c := decodeTestdata(t, "hold.good.toml")
	if got := c.Inbox("erp").ErrorRetention.Dur(); got != DefaultErrorRetention {
		t.Errorf("default error_retention = %s, want %s", got, time.Duration(DefaultErrorRetention))
	}
}
