package inbox_test

import (
	"os"
	"path/filepath"
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
		full := filepath.Join(e.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
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
