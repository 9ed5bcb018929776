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
