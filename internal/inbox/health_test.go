package inbox_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"filebridge/internal/inbox"
)

func TestHealth(t *testing.T) {
	var h inbox.Health // the zero value works
	if !h.Healthy() || len(h.Snapshot()) != 0 {
		t.Fatal("a new Health is not healthy")
	}
	if !h.Pause("main", errors.New("401 Unauthorized")) {
		t.Error("first pause not reported as new")
	}
	if h.Pause("main", errors.New("403 Forbidden")) {
		t.Error("second pause reported as new: it would be logged twice")
	}
	if paused, reason := h.Paused("main"); !paused || reason != "403 Forbidden" {
		t.Errorf("Paused = %v %q", paused, reason)
	}
	if paused, _ := h.Paused("other"); paused {
		t.Error("another portal is paused")
	}
	if s := h.Snapshot(); len(s) != 1 || s[0].Portal != "main" || !s[0].Paused || s[0].Since.IsZero() {
		t.Errorf("Snapshot = %+v", s)
	}
	if !h.Resume("main") || h.Resume("main") || !h.Healthy() {
		t.Error("resume did not clear the pause exactly once")
	}
	var nilH *inbox.Health
	if nilH.Pause("x", nil) || nilH.Unreachable("x", nil) || nilH.JournalDown(errors.New("x")) ||
		nilH.InboxTrouble("x", "x") || nilH.Resume("x") || !nilH.Healthy() || nilH.Snapshot() != nil {
		t.Error("a nil Health must be inert")
	}
}

// TestHealthTroubles walks each kind of trouble through set, repeat and
// clear: a repeat is not new (an inbox's new reason is) and keeps the
// first Since; a paused portal shows once in Snapshot, as paused; the
// daemon is healthy only when every trouble is cleared.
func TestHealthTroubles(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	now := t0
	h := inbox.NewHealth(func() time.Time { return now })
	steps := []struct {
		name string
		do   func() bool
		want bool
	}{
		{"unreachable", func() bool { return h.Unreachable("b", errors.New("dial tcp: refused")) }, true},
		{"unreachable again", func() bool { return h.Unreachable("b", errors.New("timeout")) }, false},
		{"pause a", func() bool { return h.Pause("a", nil) }, true},
		{"unreachable a", func() bool { return h.Unreachable("a", nil) }, true},
		{"journal down", func() bool { return h.JournalDown(errors.New("disk full")) }, true},
		{"journal down again", func() bool { return h.JournalDown(errors.New("read-only")) }, false},
		{"inbox trouble", func() bool { return h.InboxTrouble("erp", "host key mismatch") }, true},
		{"inbox same reason", func() bool { return h.InboxTrouble("erp", "host key mismatch") }, false},
		{"inbox new reason", func() bool { return h.InboxTrouble("erp", "permission denied") }, true},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Errorf("%s: got %v, want %v", s.name, got, s.want)
		}
		now = now.Add(time.Minute)
	}
	want := []inbox.PortalHealth{
		{Portal: "a", Paused: true, Reason: "paused", Since: t0.Add(2 * time.Minute)},
		{Portal: "b", Unreachable: true, Reason: "unreachable: timeout", Since: t0},
	}
	if got := h.Snapshot(); !reflect.DeepEqual(got, want) {
		t.Errorf("Snapshot\n got %+v\nwant %+v", got, want)
	}
	if got, want := h.Journal(), (inbox.Trouble{Reason: "read-only", Since: t0.Add(4 * time.Minute)}); got != want {
		t.Errorf("Journal = %+v, want %+v", got, want)
	}
	if got, want := h.Inbox("erp"), (inbox.Trouble{Reason: "permission denied", Since: t0.Add(6 * time.Minute)}); got != want {
		t.Errorf("Inbox = %+v, want %+v", got, want)
	}
	if h.Inbox("other") != (inbox.Trouble{}) {
		t.Error("an inbox without trouble has one")
	}
	clears := []struct {
		name string
		do   func() bool
	}{
		{"resume a", func() bool { return h.Resume("a") }},
		{"reachable a", func() bool { return h.Reachable("a") }},
		{"reachable b", func() bool { return h.Reachable("b") }},
		{"journal up", h.JournalUp},
		{"inbox fine", func() bool { return h.InboxFine("erp") }},
	}
	for _, c := range clears {
		if h.Healthy() {
			t.Fatalf("healthy before %s", c.name)
		}
		if !c.do() || c.do() {
			t.Errorf("%s did not clear its trouble exactly once", c.name)
		}
	}
	if !h.Healthy() || len(h.Snapshot()) != 0 || h.Journal() != (inbox.Trouble{}) {
		t.Error("not healthy once every trouble is cleared")
	}
}
