package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoRerun runs `demo --once --edition B` twice in the same folder:
// the rerun command it prints keeps the edition, and the second run goes
// through the good files again instead of calling them duplicates.
func TestDemoRerun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	fl := demoFlags{dir: dir, edition: "B", listen: "127.0.0.1:0", once: true}
	for run := 1; run <= 2; run++ {
		var out bytes.Buffer
		if err := runDemo(t.Context(), fl, &out); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out.String())
		}
		got := out.String()
		for _, want := range []string{
			"filebridge demo --dir " + dir + " --edition B --once",
			"(its token is in " + filepath.Join(dir, "token") + ")",
			"documents created",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run, want, got)
			}
		}
		if strings.Contains(got, "duplicate") {
			t.Errorf("run %d reports duplicates against a fresh simulator:\n%s", run, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "var", "previous", "filebridge.db")); err != nil {
		t.Errorf("the first run's journal was not set aside: %v", err)
	}
}
