package inbox

import (
	"os"
	"path/filepath"
	"testing"

	"filebridge/internal/folder"
	"filebridge/internal/folderurl"
)

// TestFreeNames: the first candidate whose name and report name are free
// wins, and its rejected-rows name too when the file failed; a file that
// succeeded writes no rejected rows, so that name is not asked for.
func TestFreeNames(t *testing.T) {
	tests := []struct {
		name         string
		existing     []string
		withRejected bool
		final        string
	}{
		{"empty folder", nil, true, "A.csv"},
		{"file taken", []string{"A.csv"}, false, "A.1.csv"},
		{"report taken", []string{"A.report.csv"}, false, "A.1.csv"},
		{"rejected taken, failed file", []string{"A.rejected.csv"}, true, "A.1.csv"},
		{"rejected taken, file that succeeded", []string{"A.rejected.csv"}, false, "A.csv"},
		{"two taken", []string{"A.csv", "A.report.csv", "A.1.report.csv"}, true, "A.2.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.existing {
				if err := os.WriteFile(filepath.Join(dir, "out", n), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := localFolder(t, dir)
			final, report, err := freeNames(t.Context(), f, "out", "A.csv", tt.withRejected)
			if err != nil {
				t.Fatal(err)
			}
			rep, _ := reportNames(filepath.Base(tt.final))
			if final != "out/"+tt.final || report != "out/"+rep {
				t.Errorf("got %s and %s, want out/%s and out/%s", final, report, tt.final, rep)
			}
		})
	}
}

// localFolder opens dir as a local folder, closed when the test ends.
func localFolder(t *testing.T, dir string) folder.Folder {
	t.Helper()
	loc, err := folderurl.Parse(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := folder.Open(t.Context(), folder.Options{Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}
