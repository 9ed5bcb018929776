package journal

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// finishTest records a file of the portal with its documents' results
// and its end state.
func finishTest(t *testing.T, d *DB, name, portal string, state FileState, final string, results map[string]Result) File {
	t.Helper()
	ctx := t.Context()
	id := claimFile(t, d, File{Inbox: "erp", Name: name, DocType: "sales_orders", Portal: portal})
	var docs []Document
	for k, r := range results {
		docs = append(docs, Document{Key: k, Result: r})
	}
	if err := d.AddDocuments(ctx, id, docs); err != nil {
		t.Fatal(err)
	}
	f, err := d.File(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	f.State, f.FinalPath = state, final
	if err := d.UpdateFile(ctx, f); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestResolveFailures(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
		d, clock := openAt(t, t0)
		ctx := t.Context()
		resolveBy := func(f File) []int64 {
			t.Helper()
			ids, err := d.ResolveBy(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}

		failed := finishTest(t, d, "A.csv", "P", FileFailed, "error/A.csv",
			map[string]Result{"1": ResultCreated, "2 (line 3)": ResultInvalid, "3": ResultConflict})
		// Another portal's file creating the missing documents resolves nothing.
		other := finishTest(t, d, "B.csv", "Q", FileDone, "processed/B.csv",
			map[string]Result{"2": ResultCreated, "3": ResultCreated})
		if ids := resolveBy(other); len(ids) != 0 {
			t.Fatalf("a file of another portal resolved %v", ids)
		}
		// A re-drop with one of the two missing documents: still open.
		part := finishTest(t, d, "A-fixed.csv", "P", FileFailed, "error/A-fixed.csv",
			map[string]Result{"2": ResultCreated, "3": ResultConflict})
		if ids := resolveBy(part); len(ids) != 0 {
			t.Fatalf("a file with one of two missing documents resolved %v", ids)
		}
		// The last one: document 3 found existing. Both failures go (the
		// first through the two re-drops, the second through this one).
		clock.set(t0.Add(time.Minute))
		last := finishTest(t, d, "A-3.csv", "P", FileDone, "processed/A-3.csv",
			map[string]Result{"3": ResultExists})
		if ids := resolveBy(last); !slices.Equal(ids, []int64{failed.ID, part.ID}) {
			t.Fatalf("ResolveBy(last) = %v, want [%d %d]", ids, failed.ID, part.ID)
		}
		got, err := d.File(ctx, failed.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := Resolution{Kind: ResolvedByFile, FileID: last.ID, At: t0.Add(time.Minute)}
		if got.Resolved != want || got.OpenFailure() || got.Replayable() {
			t.Errorf("resolution = %+v, want %+v", got.Resolved, want)
		}
		if s := got.Resolved.String(); s != "file #4 at 2026-05-01T12:01:00Z" {
			t.Errorf("String() = %q", s)
		}

		// A replay that succeeds resolves its original, even one without
		// documents (file errors).
		broken := finishTest(t, d, "C.csv", "P", FileFailed, "error/C.csv", nil)
		if _, err := d.RequestReplay(ctx, Replay{Inbox: "erp", Name: "C.csv", OriginalID: broken.ID, By: "cli"}); err != nil {
			t.Fatal(err)
		}
		// Its first replay fails too (no documents either) and is replayed
		// in turn: the replay that succeeds resolves both.
		again := finishTest(t, d, "C.csv", "P", FileFailed, "error/C.1.csv", nil)
		if _, _, err := d.LinkReplay(ctx, again); err != nil {
			t.Fatal(err)
		}
		if ids := resolveBy(again); len(ids) != 0 {
			t.Fatalf("a failed replay resolved %v", ids)
		}
		if _, err := d.RequestReplay(ctx, Replay{Inbox: "erp", Name: "C.csv", OriginalID: again.ID, By: "console"}); err != nil {
			t.Fatal(err)
		}
		replay := finishTest(t, d, "C.csv", "P", FileDone, "processed/C.csv", map[string]Result{"9": ResultCreated})
		if _, _, err := d.LinkReplay(ctx, replay); err != nil {
			t.Fatal(err)
		}
		if ids := resolveBy(replay); !slices.Equal(ids, []int64{again.ID, broken.ID}) {
			t.Fatalf("ResolveBy(replay) = %v, want [%d %d]", ids, again.ID, broken.ID)
		}
		if got, _ := d.File(ctx, again.ID); got.Resolved.What() != fmt.Sprintf("replay #%d", replay.ID) || got.Resolved.By != "console" {
			t.Errorf("the failed replay's resolution = %+v", got.Resolved)
		}
		if got, _ := d.File(ctx, broken.ID); got.Resolved.What() != fmt.Sprintf("replay #%d", replay.ID) || got.Resolved.By != "cli" {
			t.Errorf("replayed file's resolution = %+v", got.Resolved)
		}

		// By hand.
		open := finishTest(t, d, "D.csv", "P", FileFailed, "error/resolved/2026/04/D.csv", map[string]Result{"7": ResultFailed})
		acked, err := d.Acknowledge(ctx, open.ID, "ana", "  entered by phone ")
		if err != nil {
			t.Fatal(err)
		}
		if r := acked.Resolved; r.Kind != Acknowledged || r.By != "ana" || r.Note != "entered by phone" || r.At.IsZero() {
			t.Errorf("acknowledged = %+v", r)
		}
		for _, tc := range []struct {
			id   int64
			want error
		}{{open.ID, ErrResolved}, {last.ID, ErrNotFailed}, {999, ErrNotFound}} {
			if _, err := d.Acknowledge(ctx, tc.id, "ana", ""); !errors.Is(err, tc.want) {
				t.Errorf("Acknowledge(%d) = %v, want %v", tc.id, err, tc.want)
			}
		}

		// The work queue: the failures still open.
		stillOpen := finishTest(t, d, "E.csv", "P", FileFailed, "error/E.csv", map[string]Result{"8": ResultInvalid})
		fs, err := d.Files(ctx, FileFilter{States: []FileState{FileFailed}, Unresolved: true})
		if err != nil || len(fs) != 1 || fs[0].ID != stillOpen.ID {
			t.Errorf("open failures = %v, %v; want only #%d", fs, err, stillOpen.ID)
		}
		if n, err := d.CountFiles(ctx, FileFilter{States: []FileState{FileFailed}}); err != nil || n != 6 {
			t.Errorf("all failures = %d, %v; want 6", n, err)
		}
		day, err := d.InboxDay(ctx, t0.Add(-time.Hour))
		if err != nil || day["erp"][FileFailed] != 1 {
			t.Errorf("InboxDay = %v, %v; want 1 failed (the open one)", day, err)
		}

		// Retention: resolved failures directly in error/, resolved before the cutoff.
		rf, err := d.ResolvedFailures(ctx, "erp", "error", t0.Add(2*time.Minute))
		var ids []int64
		for _, f := range rf {
			ids = append(ids, f.ID)
		}
		if err != nil || !slices.Equal(ids, []int64{failed.ID, part.ID, broken.ID, again.ID}) {
			t.Errorf("ResolvedFailures = %v, %v; want [%d %d %d %d]", ids, err, failed.ID, part.ID, broken.ID, again.ID)
		}
		if rf, err := d.ResolvedFailures(ctx, "erp", "error", t0); err != nil || len(rf) != 0 {
			t.Errorf("ResolvedFailures before any resolution = %v, %v", rf, err)
		}
	})
}
