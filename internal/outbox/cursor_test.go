package outbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/portal"
)

func TestCursorKeysRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		key string
		ts  time.Time
		enc string
	}{
		{"PO-1", at, "PO-1"},
		{"PO-1", at.Add(1500 * time.Millisecond), "PO-1@2026-11-21T09:00:01.5Z"},
		{"a@b", at, "a@b"},
		{"a@b", at.Add(time.Hour), "a@b@2026-11-21T10:00:00Z"},
	} {
		s := stampOf(tt.key, tt.ts)
		if got := encodeKey(s, at); got != tt.enc {
			t.Errorf("encodeKey(%s, %s) = %q, want %q", tt.key, tt.ts, got, tt.enc)
		}
		if got := decodeKey(tt.enc, at); got != s {
			t.Errorf("decodeKey(%q) = %+v, want %+v", tt.enc, got, s)
		}
	}
}

func TestWindowAdmit(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	w := newWindow(at, []string{"A", "B@2026-11-21T09:00:05Z"})
	for _, tt := range []struct {
		key  string
		ts   time.Time
		want bool
	}{
		{"OLD", at.Add(-time.Second), false},  // before the cursor
		{"A", at, false},                      // exported at the cursor's instant
		{"A", at.Add(2 * time.Second), true},  // changed since
		{"B", at.Add(5 * time.Second), false}, // exported, kept in the overlap
		{"C", at, true},                       // new at the cursor's instant
		{"C", at, false},                      // listed twice in one run (pages shifted)
	} {
		if got := w.admit(tt.key, tt.ts); got != tt.want {
			t.Errorf("admit(%s, %s) = %v, want %v", tt.key, tt.ts.Format(time.TimeOnly), got, tt.want)
		}
	}
	next, keys, changed := w.next(3 * time.Second)
	if !changed || !next.Equal(at.Add(2*time.Second)) || !slices.Equal(keys, []string{"A", "B@2026-11-21T09:00:05Z"}) {
		t.Errorf("next = %s %v %v", next, keys, changed)
	}
}

// TestCursorSharedInstantAcrossPages lists from the simulator with 3 items a
// page while its clock stands still: every stock movement carries the same
// createdAt, across page boundaries and across runs, and new movements keep
// arriving at that same instant between runs. Over all runs every movement
// is exported exactly once.
func TestCursorSharedInstantAcrossPages(t *testing.T) {
	frozen := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	for _, margin := range []time.Duration{-1, 0} {
		t.Run(fmt.Sprintf("overlap margin %v", margin), func(t *testing.T) {
			e := newSimEnv(t, model.EditionB, 40, 3, func() time.Time { return frozen })
			e.t = t
			e.runner.OverlapMargin = margin
			exported := map[string]int{}
			files := 0
			for range 6 {
				for range 12 {
					e.sim.Tick()
				}
				res, rows := e.export(model.ExportMovements)
				if res.File != "" {
					files++
				}
				for _, r := range rows {
					exported[movementRow(r)]++
				}
			}
			portalRows := map[string]int{}
			n := 0
			for m, err := range e.src.Client.Movements(t.Context(), portal.MovementFilter{}) {
				if err != nil {
					t.Fatal(err)
				}
				if !m.CreatedAt.Equal(frozen) {
					t.Fatalf("movement created at %s, want every one at the frozen %s", m.CreatedAt, frozen)
				}
				portalRows[movementRow(map[string]string{"movedAt": ts(m.MovedAt), "sku": m.SKU, "quantity": itoa(m.Quantity)})]++
				n++
			}
			if n < 10 || files < 3 {
				t.Fatalf("only %d movements in %d files: the test needs more", n, files)
			}
			for k, c := range portalRows {
				if exported[k] != c {
					t.Errorf("movement %s: exported %d times, the portal has %d", k, exported[k], c)
				}
			}
			if len(exported) != len(portalRows) {
				t.Errorf("exported %d distinct movements, the portal has %d", len(exported), len(portalRows))
			}
			c, _, _ := e.db.Cursor(t.Context(), "out", "movements")
			wantAt := frozen
			if margin == 0 { // the default: a minute and the run's duration before
				wantAt = c.At
				if c.At.After(frozen.Add(-time.Minute)) || c.At.Before(frozen.Add(-2*time.Minute)) {
					t.Errorf("cursor at %s, want a minute or so before %s", c.At, frozen)
				}
			}
			if !c.At.Equal(wantAt) || len(c.Keys) != n {
				t.Errorf("cursor at %s with %d keys, want %s with all %d", c.At, len(c.Keys), wantAt, n)
			}
		})
	}
}

func movementRow(r map[string]string) string {
	return strings.Join([]string{r["movedAt"], r["sku"], r["quantity"]}, "|")
}

// TestCursorReceiptsAcrossPages: receptions received in one tick share an
// updatedAt; listed 3 a page, then more arrive; no gap, no duplicate.
func TestCursorReceiptsAcrossPages(t *testing.T) {
	frozen := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	e := newSimEnv(t, model.EditionA, 8, 3, func() time.Time { return frozen })
	e.t = t
	e.runner.OverlapMargin = -1
	seen := map[string]int{}
	created := 0
	for round := range 4 {
		for i := range 7 {
			created++
			e.createReception(fmt.Sprintf("R%d-%d", round, i), createdLine{sku(1 + i%8), 4})
		}
		for range 2 {
			e.sim.Tick()
		}
		_, rows := e.export(model.ExportReceipts)
		if len(rows) != 7 {
			t.Errorf("round %d: %d rows, want the 7 new receptions", round, len(rows))
		}
		for _, r := range rows {
			seen[r["orderNumber"]]++
		}
	}
	if len(seen) != created {
		t.Errorf("%d receptions exported, %d created", len(seen), created)
	}
	for n, c := range seen {
		if c != 1 {
			t.Errorf("%s exported %d times", n, c)
		}
	}
}
