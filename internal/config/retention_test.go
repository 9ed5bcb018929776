package config

import (
	"testing"
	"time"
)

// TestRetention reads retention (processed/) and error_retention (error/)
// values.
func TestRetention(t *testing.T) {
	retention := func(s string) (time.Duration, error) {
		var r Retention
		err := r.UnmarshalText([]byte(s))
		return r.Dur(), err
	}
	keep := func(s string) (time.Duration, error) {
		var k Keep
		err := k.UnmarshalText([]byte(s))
		return k.Dur(), err
	}
	tests := []struct {
		parse   func(string) (time.Duration, error)
		in      string
		want    time.Duration
		wantErr bool
	}{
		{retention, "90d", 90 * 24 * time.Hour, false},
		{retention, "1d", 24 * time.Hour, false},
		{retention, "48h", 48 * time.Hour, false},
		{retention, "", 0, false},
		{retention, "0d", 0, true},
		{retention, "12h", 0, true},
		{retention, "-3d", 0, true},
		{retention, "ninety days", 0, true},
		{keep, "30d", 30 * 24 * time.Hour, false},
		{keep, "0s", 0, false},
		{keep, "0d", 0, false},
		{keep, "90s", 90 * time.Second, false},
		{keep, "", 0, true},
		{keep, "-1h", 0, true},
		{keep, "-3d", 0, true},
		{keep, "a month", 0, true},
	}
	for i, tt := range tests {
		got, err := tt.parse(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("case %d %q: %v, %v; want %v (error %v)", i, tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	if b, _ := Retention(90 * 24 * time.Hour).MarshalText(); string(b) != "90d" {
		t.Errorf("MarshalText = %s", b)
	}
	// Unset, resolved failures leave error/ after 30 days.
	c := decodeTestdata(t, "hold.good.toml")
	if got := c.Inbox("erp").ErrorRetention.Dur(); got != DefaultErrorRetention {
		t.Errorf("default error_retention = %s, want %s", got, time.Duration(DefaultErrorRetention))
	}
}
