package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManAndCompletion generates the man pages and completions of the
// whole command tree, as make man does.
func TestManAndCompletion(t *testing.T) {
	dir := t.TempDir()
	if err := writeManAndCompletion(rootCmd, dir); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"man1/filebridge.1":          ".TH \"FILEBRIDGE\" \"1\"",
		"man1/filebridge-replay.1":   "only with --force",
		"man1/filebridge-run.1":      ".TH \"FILEBRIDGE-RUN\" \"1\"",
		"man1/filebridge-files.1":    "newest first",
		"completion/filebridge.bash": "__start_filebridge",
		"completion/filebridge.zsh":  "#compdef filebridge",
		"completion/filebridge.fish": "complete -c filebridge",
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Error(err)
			continue
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q", file, want)
		}
	}
}
