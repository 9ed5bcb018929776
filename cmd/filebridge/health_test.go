package main

import (
	"slices"
	"testing"

	"filebridge/internal/server"
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
	h := server.Health{
		Status:   "degraded",
		Journal:  &server.JournalHealth{Status: "degraded", Reason: "disk full"},
		Portals:  map[string]server.PortalHealth{"main": {Status: "paused", Reason: "the token was refused"}, "other": {Status: "ok"}},
		Inboxes:  map[string]server.InboxHealth{"b": {Status: "degraded", Reason: "host key mismatch"}, "a": {}},
		Outboxes: map[string]server.OutboxHealth{"out": {Status: "degraded"}},
	}
	want := []string{"journal: degraded: disk full", "portal main: paused: the token was refused", "inbox b: degraded: host key mismatch", "outbox out: degraded"}
	if got := troubles(h); !slices.Equal(got, want) {
		t.Errorf("troubles = %q, want %q", got, want)
	}
}
