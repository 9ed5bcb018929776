package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary documents to Decode: it may refuse them but
// must never panic, and a refusal must be a readable error.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.toml")
	files = append(files, "../../config.toml.example")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data, dir)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if c == nil {
			t.Fatal("nil config without error")
		}
	})
}
