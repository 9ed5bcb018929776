package main

import (
	"slices"
	"testing"
)

func TestDialable(t *testing.T) {
	for _, tc := range []struct{ listen, want string }{
		{"127.0.0.1:9464", "127.0.0.1:9464"},
		{"0.0.0.0:9464", "127.0.0.1:9464"},
		{":9464", "127.0.0.1:9464"},
		{"[::]:9464", "[::1]:9464"},
		{"[::1]:9464", "[::1]:9464"},
		{"filebridge.internal:80", "filebridge.internal:80"},
	} {
		if got := dialable(tc.listen); got != tc.want {
			t.Errorf("dialable(%q) = %q, want %q", tc.listen, got, tc.want)
		}
	}
}

func TestHealthTroubles(t *testing.T) {
	h := healthAnswer{
		Status:  "degraded",
		Journal: &healthPart{Status: "ok"},
		Portals: map[string]healthPart{"main": {Status: "paused", Reason: "the token was refused"}, "other": {Status: "ok"}},
		Inboxes: map[string]healthPart{"b": {Status: "degraded", Reason: "host key mismatch"}, "a": {}},
	}
	want := []string{"portal main: paused: the token was refused", "inbox b: degraded: host key mismatch"}
	if got := h.troubles(); !slices.Equal(got, want) {
		t.Errorf("troubles = %q, want %q", got, want)
	}
}
