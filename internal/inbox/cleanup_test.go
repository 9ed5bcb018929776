package inbox_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestTempsRemoved: the temporary files a kill left are removed at the
// start: in the inbox, processing/ and error/; and the temporary reports in
// today's and yesterday's processed/YYYY/MM/DD/ of files no open journal
// row names any more (another instance, or a later run, finished them).
// The files beside them stay.
func TestTempsRemoved(t *testing.T) {
	for _, tc := range []struct {
		name        string
		opts        envOpts
		stale, keep []string
	}{
		{"inbox, processing and error", envOpts{},
			[]string{".ORDERS.csv.0123456789ab.part", "processing/.X.csv.aaaaaaaaaaaa.part", "error/.X.report.csv.bbbbbbbbbbbb.part"},
			[]string{"error/X.csv", "error/.notes", "processing/.Y.csv.part"}},
		{"processed", envOpts{stopped: true},
			[]string{processed + "/.A.report.csv.cccccccccccc.part", "processed/2026/03/15/.B.report.csv.dddddddddddd.part"},
			[]string{processed + "/A.csv", processed + "/A.report.csv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.opts)
			for _, p := range append(slices.Clone(tc.stale), tc.keep...) {
				e.drop(p, "")
			}
			e.runOnce()
			for _, p := range tc.stale {
				if e.exists(p) {
					t.Errorf("%s is still there", p)
				}
			}
			for _, p := range tc.keep {
				if !e.exists(p) {
					t.Errorf("%s was removed", p)
				}
			}
		})
	}
}

// TestTempsRemovedLaterOnSharedJournal: on a shared journal a temporary
// report too fresh to tell from another instance's is left at the start,
// and removed by the running inbox once it is staleTemp old.
func TestTempsRemovedLaterOnSharedJournal(t *testing.T) {
	e := newEnv(t, envOpts{inbox: `poll = "100ms"`})
	inst := e.sharedInstances(1, e.clock, time.Minute)[0]
	const part = processed + "/.A.report.csv.eeeeeeeeeeee.part"
	e.drop(part, "")
	p := filepath.Join(e.dir, filepath.FromSlash(part))
	if err := os.Chtimes(p, e.clock.Now(), e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inst.in.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	// The inbox opened its folder and ran a round: the file was too fresh.
	if err := inst.in.Look(ctx); err != nil {
		t.Fatal(err)
	}
	if !e.exists(part) {
		t.Fatal("a fresh temporary file was removed on a shared journal")
	}
	e.clock.Add(6 * time.Minute)
	deadline := time.Now().Add(30 * time.Second)
	for e.exists(part) {
		if time.Now().After(deadline) {
			t.Fatal("the stale temporary file is still there after 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
