package folder_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
	"filebridge/internal/folderurl"
)

func openLocal(t *testing.T, dir string) folder.Folder {
	t.Helper()
	f, err := folder.Open(t.Context(), folder.Options{Location: folderurl.Local(dir), Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func TestLocalConformance(t *testing.T) {
	foldertest.RunConformance(t, func(t *testing.T) folder.Folder {
		return openLocal(t, t.TempDir())
	})
}

func TestLocalFileURL(t *testing.T) {
	dir := t.TempDir()
	f := openLocal(t, dir)
	if got, want := f.String(), "file://"+filepath.ToSlash(dir); got != want {
		t.Errorf("String: got %q, want %q", got, want)
	}
	foldertest.Write(t, t.Context(), f, "a.csv", "x")
	if _, err := os.Stat(filepath.Join(dir, "a.csv")); err != nil {
		t.Errorf("file not written to %s: %v", dir, err)
	}
}

// TestOpenRefuses: Open needs a location, and an SFTP folder a way to
// check the host key (the url itself is checked by folderurl.Parse).
func TestOpenRefuses(t *testing.T) {
	sftpLoc := folderurl.URL{Scheme: folderurl.SchemeSFTP, User: "u", Host: "127.0.0.1", Port: 1, Path: "x"}
	tests := []struct {
		name string
		loc  folderurl.URL
		want string
	}{
		{"no location", folderurl.URL{}, "no location"},
		{"no user", folderurl.URL{Scheme: folderurl.SchemeSFTP, Host: "127.0.0.1", Port: 1, Path: "x"}, "needs a user"},
		{"no host key check", sftpLoc, "no insecure default"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := folder.Open(t.Context(), folder.Options{Location: tc.loc, Password: "hunter2"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error leaks the password: %v", err)
			}
		})
	}
}

func TestLocalMissingRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later", "inbox")
	f := openLocal(t, dir)
	if _, err := f.Stat(t.Context(), "."); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat of a missing root: got %v, want not exist", err)
	}
	if err := f.MkdirAll(t.Context(), "processing"); err != nil {
		t.Fatalf("MkdirAll: %v", err)
	}
	if got := foldertest.Names(t, t.Context(), f, "."); !slices.Equal(got, []string{"processing"}) {
		t.Errorf("got %q", got)
	}
}

func TestLocalSymlinksStayInside(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"escape":     outside,
		"escape.csv": filepath.Join(outside, "secret"),
		"rel-escape": "../" + filepath.Base(outside) + "/secret",
		"inside.csv": "a.csv",
		"dangling":   "nothing-here",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	f := openLocal(t, dir)
	ctx := t.Context()
	es, err := f.List(ctx, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
		if e.Name == "inside.csv" && e.Size != 3 {
			t.Errorf("inside.csv: got size %d, want the target's 3", e.Size)
		}
	}
	if want := []string{"a.csv", "inside.csv"}; !slices.Equal(names, want) {
		t.Errorf("List: got %q, want %q", names, want)
	}
	for _, name := range []string{"escape.csv", "escape/secret", "rel-escape"} {
		if _, err := f.Open(ctx, name); err == nil {
			t.Errorf("Open(%s) followed a link out of the root", name)
		}
		if _, err := f.Stat(ctx, name); err == nil {
			t.Errorf("Stat(%s) followed a link out of the root", name)
		}
	}
	// A link out of the root is a name in use, not an error.
	for _, name := range []string{"escape.csv", "rel-escape"} {
		if _, err := f.Stat(ctx, name); !errors.Is(err, folder.ErrLink) || !errors.Is(err, fs.ErrPermission) {
			t.Errorf("Stat(%s): got %v, want folder.ErrLink and a permission error", name, err)
		}
	}
	if got, err := folder.UniqueName(ctx, f, ".", "escape.csv"); err != nil || got != "escape.1.csv" {
		t.Errorf("UniqueName beside a link out of the root: got %q, %v; want escape.1.csv", got, err)
	}
	if err := f.CreateAtomic(ctx, "escape/new", func(w io.Writer) error { return nil }); err == nil {
		t.Errorf("CreateAtomic wrote through a link out of the root")
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Errorf("file created outside the root")
	}
	if got := foldertest.Read(t, ctx, f, "inside.csv"); got != "abc" {
		t.Errorf("inside link: got %q", got)
	}
}

func TestLocalListSkipsUnsafeNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"ok.csv", "new\nline.csv", "back\\slash.csv", "bell\a"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := openLocal(t, dir)
	if got := foldertest.Names(t, t.Context(), f, "."); !slices.Equal(got, []string{"ok.csv"}) {
		t.Errorf("got %q, want only ok.csv", got)
	}
}

// TestLocalDayFolderChangedBetweenOperations: a day folder removed,
// renamed away or swapped for a link out of the folder between two
// operations is looked up again by name: the file never lands in the old
// directory nor outside the folder, and is not lost.
func TestLocalDayFolderChangedBetweenOperations(t *testing.T) {
	day := "processed/2026/11/27"
	tests := []struct {
		name   string
		change func(dir, outside string) error // what a user does between two operations
		ok     bool                            // the move into the day folder succeeds
	}{
		{"removed", func(dir, _ string) error {
			return os.RemoveAll(filepath.Join(dir, "processed"))
		}, false},
		{"removed and made again", func(dir, _ string) error {
			return errors.Join(os.RemoveAll(filepath.Join(dir, "processed")), os.MkdirAll(filepath.Join(dir, day), 0o700))
		}, true},
		{"renamed away, a new one made", func(dir, _ string) error {
			return errors.Join(os.Rename(filepath.Join(dir, "processed"), filepath.Join(dir, "processed.old")), os.MkdirAll(filepath.Join(dir, day), 0o700))
		}, true},
		// The walk follows a link that stays inside the folder.
		{"moved inside, a link to it left", func(dir, _ string) error {
			return errors.Join(os.Rename(filepath.Join(dir, "processed"), filepath.Join(dir, "archive")), os.Symlink("archive", filepath.Join(dir, "processed")))
		}, true},
		{"moved out, a link to it left", func(dir, outside string) error {
			return errors.Join(os.Rename(filepath.Join(dir, "processed"), filepath.Join(outside, "processed")), os.Symlink(filepath.Join(outside, "processed"), filepath.Join(dir, "processed")))
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			f := openLocal(t, dir)
			ctx := t.Context()
			for _, d := range []string{"processing", day} {
				if err := f.MkdirAll(ctx, d); err != nil {
					t.Fatal(err)
				}
			}
			foldertest.Write(t, ctx, f, day+"/first.csv", "1")
			foldertest.Write(t, ctx, f, "processing/a.csv", "a")

			if err := tc.change(dir, outside); err != nil {
				t.Fatal(err)
			}

			errReport := f.CreateAtomic(ctx, day+"/a.report.csv", func(w io.Writer) error { _, err := io.WriteString(w, "r"); return err })
			errMove := f.Rename(ctx, "processing/a.csv", day+"/a.csv")
			if tc.ok != (errReport == nil) || tc.ok != (errMove == nil) {
				t.Fatalf("report: %v; move: %v; want success %v", errReport, errMove, tc.ok)
			}
			if tc.ok {
				if got := foldertest.Read(t, ctx, f, day+"/a.csv"); got != "a" {
					t.Errorf("moved file: got %q", got)
				}
				if got := foldertest.Read(t, ctx, f, day+"/a.report.csv"); got != "r" {
					t.Errorf("report: got %q", got)
				}
			} else if got := foldertest.Read(t, ctx, f, "processing/a.csv"); got != "a" {
				t.Errorf("file left in processing/: got %q", got)
			}
			for _, stray := range []string{
				filepath.Join(dir, "processed.old", "2026/11/27/a.csv"),
				filepath.Join(outside, "processed/2026/11/27/a.csv"),
				filepath.Join(outside, "processed/2026/11/27/a.report.csv"),
			} {
				if _, err := os.Lstat(stray); err == nil {
					t.Errorf("%s written", stray)
				}
			}
		})
	}
}
