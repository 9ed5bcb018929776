package inbox_test

import (
	"errors"
	"testing"

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
	if nilH.Pause("x", nil) || !nilH.Healthy() {
		t.Error("a nil Health must be inert")
	}
}
