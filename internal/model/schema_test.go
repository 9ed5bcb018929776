package model

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestSpecsGolden compares every derived field table, field by field, with
// testdata/specs.golden, written from the hand-written tables the
// declarations replaced.
func TestSpecsGolden(t *testing.T) {
	var b strings.Builder
	for _, e := range Editions {
		for _, dt := range DocTypes(e) {
			s, _ := SpecFor(e, dt.Kind)
			fmt.Fprintf(&b, "== %s %s key=%s\n", e, dt.Kind, s.Key)
			for _, f := range s.Fields {
				fmt.Fprintf(&b, "%s level=%d type=%s required=%t max=%d enum=%q undocumented=%q positive=%t doc=%q example=%q\n",
					f.Name, f.Level, f.Type, f.Required, f.MaxLen, f.Enum, f.Undocumented, f.Positive, f.Doc, f.Example)
			}
		}
	}
	path := filepath.Join("testdata", "specs.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file (go test -update): %v", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("line %d differs:\n got %s\nwant %s", i+1, g, w)
			}
		}
	}
}
