package inbox_test

import (
	"slices"
	"testing"
)

// TestTempsRemovedAtStart: temporary files a kill or a grace timeout left
// in the inbox root, processing/ and error/ are removed when the inbox
// first opens its folder; other files, dotted or not, stay.
func TestTempsRemovedAtStart(t *testing.T) {
	e := newEnv(t, envOpts{})
	stale := []string{".ORDERS.csv.0123456789ab.part", "processing/.X.csv.aaaaaaaaaaaa.part", "error/.X.report.csv.bbbbbbbbbbbb.part"}
	keep := []string{"error/X.csv", "error/.notes", "processing/.Y.csv.part"}
	for _, p := range append(slices.Clone(stale), keep...) {
		e.drop(p, "")
	}
	e.runOnce()
	for _, p := range stale {
		if e.exists(p) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range keep {
		if !e.exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
}

// TestTempsRemovedFromProcessed: the temporary reports a kill left in
// today's and yesterday's processed/YYYY/MM/DD/, of files no open journal
// row names any more (another instance, or a later run, finished them),
// are removed at the start; the reports there stay.
func TestTempsRemovedFromProcessed(t *testing.T) {
	e := newEnv(t, envOpts{stopped: true})
	stale := []string{processed + "/.A.report.csv.cccccccccccc.part", "processed/2026/03/15/.B.report.csv.dddddddddddd.part"}
	keep := []string{processed + "/A.csv", processed + "/A.report.csv"}
	for _, p := range append(slices.Clone(stale), keep...) {
		e.drop(p, "")
	}
	e.runOnce()
	for _, p := range stale {
		if e.exists(p) {
			t.Errorf("%s is still there", p)
		}
	}
	for _, p := range keep {
		if !e.exists(p) {
			t.Errorf("%s was removed", p)
		}
	}
}
