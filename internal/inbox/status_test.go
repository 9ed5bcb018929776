package inbox_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"filebridge/internal/inbox"
)

// TestStatus: Status reports the last round (when it ran, the files it
// finished and failed), the queue, the files left for a retry with the
// time of the next one, and the last error.
func TestStatus(t *testing.T) {
	t.Run("before any round", func(t *testing.T) {
		e := newEnv(t, envOpts{})
		if st := e.in.Status(); !reflect.DeepEqual(st, inbox.Status{}) {
			t.Errorf("status %+v, want zero", st)
		}
	})

	t.Run("processed and failed", func(t *testing.T) {
		e := newEnv(t, envOpts{})
		e.drop("SUPPLIERS.csv", suppliersA)
		e.drop("SUPPLIERS_BAD.csv", "code,name,relationship\n,No code,Manufacturer\n")
		before := e.clock.Now()
		e.runOnce()
		st := e.in.Status()
		r := st.LastRound
		if r.Processed != 1 || r.Failed != 1 || r.Retrying != 0 || r.Error != "" {
			t.Errorf("last round %+v, want 1 processed, 1 failed", r)
		}
		if r.Start.Before(before) || r.End.Before(r.Start) || r.End.After(e.clock.Now()) {
			t.Errorf("last round from %s to %s, want within the test's round begun at %s", r.Start, r.End, before)
		}
		if st.Queue != 0 || st.Retrying != 0 || !st.NextRetry.IsZero() || st.LastError != "" || !st.RoundSince.IsZero() {
			t.Errorf("status %+v, want an empty queue and no error", st)
		}
	})

	t.Run("retrying", func(t *testing.T) {
		e := newEnv(t, envOpts{token: "wrong-token"})
		e.drop("SUPPLIERS.csv", suppliersA)
		if _, err := e.in.RunOnce(context.Background()); !inbox.IsRetry(err) {
			t.Fatalf("RunOnce: %v, want a retry error", err)
		}
		st := e.in.Status()
		if st.Retrying != 1 || st.LastRound.Retrying != 1 || st.Queue != 1 {
			t.Errorf("status %+v, want 1 file retrying and queued", st)
		}
		if st.NextRetry.IsZero() {
			t.Errorf("no next retry time: %+v", st)
		}
		if !strings.Contains(st.LastError, "401") || st.LastErrorAt.IsZero() || st.LastRound.Error != st.LastError {
			t.Errorf("last error %q at %s, last round error %q: want the refused token", st.LastError, st.LastErrorAt, st.LastRound.Error)
		}
	})
}
