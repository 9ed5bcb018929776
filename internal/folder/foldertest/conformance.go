// Package foldertest holds the conformance suite every folder.Folder
// backend must pass, so that local and SFTP folders behave the same.
package foldertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"

	"filebridge/internal/folder"
)

// RunConformance runs the suite. newFolder returns a fresh, empty folder
// for each subtest; the suite closes it.
func RunConformance(t *testing.T, newFolder func(t *testing.T) folder.Folder) {
	tests := []struct {
		name string
		run  func(t *testing.T, ctx context.Context, f folder.Folder)
	}{
		{"CreateAtomicListStatOpen", testCreateListStatOpen},
		{"NoPartialFileUnderFinalName", testNoPartial},
		{"FailedWriteLeavesNothing", testFailedWrite},
		{"CreateAtomicOntoExisting", testCreateOntoExisting},
		{"RenameOntoExisting", testRenameOntoExisting},
		{"RenameAcrossDirs", testRenameAcrossDirs},
		{"Replace", testReplace},
		{"NotFound", testNotFound},
		{"MkdirAll", testMkdirAll},
		{"UniqueName", testUniqueName},
		{"RenameUnique", testRenameUnique},
		{"Remove", testRemove},
		{"BadNames", testBadNames},
		{"NestedDirs", testNested},
		{"LargeFile", testLargeFile},
		{"Concurrent", testConcurrent},
		{"CancelledContext", testCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFolder(t)
			t.Cleanup(func() { _ = f.Close() })
			tc.run(t, t.Context(), f)
		})
	}
}

// Write creates name with content through CreateAtomic or fails the test.
func Write(t testing.TB, ctx context.Context, f folder.Folder, name, content string) {
	t.Helper()
	err := f.CreateAtomic(ctx, name, func(w io.Writer) error {
		_, err := io.WriteString(w, content)
		return err
	})
	if err != nil {
		t.Fatalf("CreateAtomic(%q): %v", name, err)
	}
}

// Read returns the content of name or fails the test.
func Read(t testing.TB, ctx context.Context, f folder.Folder, name string) string {
	t.Helper()
	r, err := f.Open(ctx, name)
	if err != nil {
		t.Fatalf("Open(%q): %v", name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading %q: %v", name, err)
	}
	// The reader describes the file it read (Folder.Open).
	st, ok := r.(interface{ Stat() (fs.FileInfo, error) })
	if !ok {
		t.Fatalf("the reader of %q has no Stat method", name)
	}
	if info, err := st.Stat(); err != nil || info.Size() != int64(len(b)) || !info.Mode().IsRegular() {
		t.Fatalf("Stat of the reader of %q = %v, %v; want a regular file of %d bytes", name, info, err, len(b))
	}
	return string(b)
}

// Names lists dir and returns the entry names, or fails the test.
func Names(t testing.TB, ctx context.Context, f folder.Folder, dir string) []string {
	t.Helper()
	es, err := f.List(ctx, dir)
	if err != nil {
		t.Fatalf("List(%q): %v", dir, err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name)
	}
	return names
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", what, err, target)
	}
}

func testCreateListStatOpen(t *testing.T, ctx context.Context, f folder.Folder) {
	Write(t, ctx, f, "ORDERS.csv", "a;b\n1;2\n")
	es, err := f.List(ctx, "")
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(es) != 1 || es[0].Name != "ORDERS.csv" || es[0].Size != 8 || es[0].IsDir {
		t.Fatalf("List: got %+v, want one 8-byte file ORDERS.csv", es)
	}
	if es[0].ModTime.IsZero() {
		t.Errorf("List: zero ModTime")
	}
	st, err := f.Stat(ctx, "ORDERS.csv")
	if err != nil || st.Name != "ORDERS.csv" || st.Size != 8 || st.IsDir {
		t.Fatalf("Stat: got %+v, %v", st, err)
	}
	root, err := f.Stat(ctx, ".")
	if err != nil || !root.IsDir {
		t.Fatalf("Stat(.): got %+v, %v; want a directory", root, err)
	}
	if got := Read(t, ctx, f, "ORDERS.csv"); got != "a;b\n1;2\n" {
		t.Errorf("content: got %q", got)
	}
	if got := Read(t, ctx, f, "./ORDERS.csv"); got != "a;b\n1;2\n" {
		t.Errorf("content via ./: got %q", got)
	}
}

func testNoPartial(t *testing.T, ctx context.Context, f folder.Folder) {
	err := f.CreateAtomic(ctx, "out.csv", func(w io.Writer) error {
		if _, err := io.WriteString(w, strings.Repeat("x", 100<<10)); err != nil {
			return err
		}
		// Half written: the final name must not exist yet.
		if _, err := f.Stat(ctx, "out.csv"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat during write: got %v, want not exist", err)
		}
		for _, n := range Names(t, ctx, f, ".") {
			if n == "out.csv" {
				t.Errorf("out.csv listed while being written")
			} else if !strings.HasPrefix(n, ".out.csv.") || !strings.HasSuffix(n, ".part") {
				t.Errorf("unexpected temporary name %q", n)
			}
		}
		_, err := io.WriteString(w, strings.Repeat("y", 100<<10))
		return err
	})
	if err != nil {
		t.Fatalf("CreateAtomic: %v", err)
	}
	if got := Names(t, ctx, f, "."); !slices.Equal(got, []string{"out.csv"}) {
		t.Errorf("after write: got %q, want only out.csv (no temporary left)", got)
	}
	if got := Read(t, ctx, f, "out.csv"); len(got) != 200<<10 {
		t.Errorf("size: got %d, want %d", len(got), 200<<10)
	}
}

func testFailedWrite(t *testing.T, ctx context.Context, f folder.Folder) {
	boom := errors.New("generator failed")
	err := f.CreateAtomic(ctx, "x.csv", func(w io.Writer) error {
		_, _ = io.WriteString(w, "partial")
		return boom
	})
	wantErr(t, "CreateAtomic with failing writer", err, boom)
	if got := Names(t, ctx, f, "."); len(got) != 0 {
		t.Errorf("after failed write: got %q, want an empty folder", got)
	}
}

func testCreateOntoExisting(t *testing.T, ctx context.Context, f folder.Folder) {
	Write(t, ctx, f, "a.csv", "old")
	err := f.CreateAtomic(ctx, "a.csv", func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	})
	wantErr(t, "CreateAtomic onto existing", err, fs.ErrExist)
	if got := Read(t, ctx, f, "a.csv"); got != "old" {
		t.Errorf("target changed: got %q, want old", got)
	}
	if got := Names(t, ctx, f, "."); !slices.Equal(got, []string{"a.csv"}) {
		t.Errorf("got %q, want only a.csv (temporary removed)", got)
	}
}

func testRenameOntoExisting(t *testing.T, ctx context.Context, f folder.Folder) {
	Write(t, ctx, f, "src.csv", "source")
	Write(t, ctx, f, "dst.csv", "target")
	err := f.Rename(ctx, "src.csv", "dst.csv")
	wantErr(t, "Rename onto existing", err, fs.ErrExist)
	if got := Read(t, ctx, f, "dst.csv"); got != "target" {
		t.Errorf("target changed: got %q", got)
	}
	if got := Read(t, ctx, f, "src.csv"); got != "source" {
		t.Errorf("source changed: got %q", got)
	}
	if err := f.Rename(ctx, "src.csv", "new.csv"); err != nil {
		t.Fatalf("Rename to a free name: %v", err)
	}
	if got := Names(t, ctx, f, "."); !slices.Equal(got, []string{"dst.csv", "new.csv"}) {
		t.Errorf("after rename: got %q", got)
	}
}

func testRenameAcrossDirs(t *testing.T, ctx context.Context, f folder.Folder) {
	for _, d := range []string{"processing", "processed"} {
		if err := f.MkdirAll(ctx, d); err != nil {
			t.Fatalf("MkdirAll(%s): %v", d, err)
		}
	}
	Write(t, ctx, f, "ORDERS.csv", "o")
	if err := f.Rename(ctx, "ORDERS.csv", "processing/ORDERS.csv"); err != nil {
		t.Fatalf("claim rename: %v", err)
	}
	Write(t, ctx, f, "processed/ORDERS.csv", "earlier")
	err := f.Rename(ctx, "processing/ORDERS.csv", "processed/ORDERS.csv")
	wantErr(t, "Rename onto existing in another dir", err, fs.ErrExist)
	if err := f.Rename(ctx, "processing/ORDERS.csv", "processed/ORDERS.1.csv"); err != nil {
		t.Fatalf("Rename: %v", err)
	}
	if got := Names(t, ctx, f, "processed"); !slices.Equal(got, []string{"ORDERS.1.csv", "ORDERS.csv"}) {
		t.Errorf("processed: got %q", got)
	}
	if err := f.Rename(ctx, "processed/ORDERS.csv", "missing-dir/ORDERS.csv"); err == nil {
		t.Errorf("Rename into a missing directory: no error")
	}
}

func testReplace(t *testing.T, ctx context.Context, f folder.Folder) {
	Write(t, ctx, f, "new", "fresh")
	Write(t, ctx, f, "cur", "stale")
	if err := f.Replace(ctx, "new", "cur"); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	if got := Read(t, ctx, f, "cur"); got != "fresh" {
		t.Errorf("got %q, want fresh", got)
	}
	if got := Names(t, ctx, f, "."); !slices.Equal(got, []string{"cur"}) {
		t.Errorf("after replace: got %q, want only cur", got)
	}
	Write(t, ctx, f, "other", "x")
	if err := f.Replace(ctx, "other", "free"); err != nil {
		t.Fatalf("Replace onto a free name: %v", err)
	}
	wantErr(t, "Replace from missing", f.Replace(ctx, "missing", "cur"), fs.ErrNotExist)
	if got := Read(t, ctx, f, "cur"); got != "fresh" {
		t.Errorf("failed replace changed target: got %q", got)
	}
}

func testNotFound(t *testing.T, ctx context.Context, f folder.Folder) {
	_, err := f.Stat(ctx, "nope.csv")
	wantErr(t, "Stat", err, fs.ErrNotExist)
	_, err = f.Open(ctx, "nope.csv")
	wantErr(t, "Open", err, fs.ErrNotExist)
	_, err = f.List(ctx, "nodir")
	wantErr(t, "List", err, fs.ErrNotExist)
	wantErr(t, "Remove", f.Remove(ctx, "nope.csv"), fs.ErrNotExist)
	wantErr(t, "Rename", f.Rename(ctx, "nope.csv", "b.csv"), fs.ErrNotExist)
	_, err = f.Stat(ctx, "nodir/nope.csv")
	wantErr(t, "Stat in missing dir", err, fs.ErrNotExist)
}

func testMkdirAll(t *testing.T, ctx context.Context, f folder.Folder) {
	for range 2 { // idempotent
		if err := f.MkdirAll(ctx, "a/b/c"); err != nil {
			t.Fatalf("MkdirAll: %v", err)
		}
	}
	for _, d := range []string{"a", "a/b", "a/b/c"} {
		if e, err := f.Stat(ctx, d); err != nil || !e.IsDir {
			t.Errorf("Stat(%s): got %+v, %v; want a directory", d, e, err)
		}
	}
	if err := f.MkdirAll(ctx, "."); err != nil {
		t.Errorf("MkdirAll(.): %v", err)
	}
	Write(t, ctx, f, "file", "x")
	if err := f.MkdirAll(ctx, "file/sub"); err == nil {
		t.Errorf("MkdirAll below a file: no error")
	}
}

func testUniqueName(t *testing.T, ctx context.Context, f folder.Folder) {
	if err := f.MkdirAll(ctx, "error"); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ base, want string }{
		{"ORDERS.csv", "error/ORDERS.csv"},
		{"ORDERS.csv", "error/ORDERS.1.csv"},
		{"ORDERS.csv", "error/ORDERS.2.csv"},
		{"README", "error/README"},
		{"README", "error/README.1"},
		{"a.report.csv", "error/a.report.csv"},
		{"a.report.csv", "error/a.report.1.csv"},
	}
	for _, tc := range tests {
		got, err := folder.UniqueName(ctx, f, "error", tc.base)
		if err != nil || got != tc.want {
			t.Fatalf("UniqueName(%s): got %q, %v; want %q", tc.base, got, err, tc.want)
		}
		Write(t, ctx, f, got, "x")
	}
	if _, err := folder.UniqueName(ctx, f, "error", "../x"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("UniqueName with a bad base: got %v, want invalid", err)
	}
}

func testRenameUnique(t *testing.T, ctx context.Context, f folder.Folder) {
	if err := f.MkdirAll(ctx, "done"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"done/X.csv", "done/X.1.csv"} {
		Write(t, ctx, f, "X.csv", fmt.Sprint(i))
		got, err := folder.RenameUnique(ctx, f, "X.csv", "done", "X.csv")
		if err != nil || got != want {
			t.Fatalf("RenameUnique #%d: got %q, %v; want %q", i, got, err, want)
		}
	}
	if got := Read(t, ctx, f, "done/X.csv"); got != "0" {
		t.Errorf("first file overwritten: got %q", got)
	}
}

func testRemove(t *testing.T, ctx context.Context, f folder.Folder) {
	Write(t, ctx, f, "gone.csv", "x")
	if err := f.Remove(ctx, "gone.csv"); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	_, err := f.Stat(ctx, "gone.csv")
	wantErr(t, "Stat after Remove", err, fs.ErrNotExist)
	if err := f.MkdirAll(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	if err := f.Remove(ctx, "empty"); err != nil {
		t.Errorf("Remove empty dir: %v", err)
	}
	if got := Names(t, ctx, f, "."); len(got) != 0 {
		t.Errorf("after removes: got %q", got)
	}
}

func testBadNames(t *testing.T, ctx context.Context, f folder.Folder) {
	Write(t, ctx, f, "ok.csv", "x")
	bad := []string{"../x", "/etc/passwd", "a/../../x", "..", "a\\b", "x\x00y", "a\nb", "tab\there", "del\x7f"}
	for _, name := range bad {
		t.Run(fmt.Sprintf("%q", name), func(t *testing.T) {
			_, err := f.Stat(ctx, name)
			wantErr(t, "Stat", err, fs.ErrInvalid)
			_, err = f.Open(ctx, name)
			wantErr(t, "Open", err, fs.ErrInvalid)
			_, err = f.List(ctx, name)
			wantErr(t, "List", err, fs.ErrInvalid)
			wantErr(t, "CreateAtomic", f.CreateAtomic(ctx, name, func(io.Writer) error { return nil }), fs.ErrInvalid)
			wantErr(t, "Rename from", f.Rename(ctx, name, "y"), fs.ErrInvalid)
			wantErr(t, "Rename to", f.Rename(ctx, "ok.csv", name), fs.ErrInvalid)
			wantErr(t, "Replace to", f.Replace(ctx, "ok.csv", name), fs.ErrInvalid)
			wantErr(t, "Remove", f.Remove(ctx, name), fs.ErrInvalid)
			wantErr(t, "MkdirAll", f.MkdirAll(ctx, name), fs.ErrInvalid)
			if !errors.Is(f.Remove(ctx, name), folder.ErrInvalidName) {
				t.Errorf("error does not match folder.ErrInvalidName")
			}
		})
	}
	if got := Names(t, ctx, f, "."); !slices.Equal(got, []string{"ok.csv"}) {
		t.Errorf("bad names changed the folder: got %q", got)
	}
}

func testNested(t *testing.T, ctx context.Context, f folder.Folder) {
	if err := f.MkdirAll(ctx, "in/sub"); err != nil {
		t.Fatal(err)
	}
	Write(t, ctx, f, "in/a.csv", "a")
	Write(t, ctx, f, "in/sub/b.csv", "bb")
	es, err := f.List(ctx, "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Name != "a.csv" || es[0].IsDir || es[1].Name != "sub" || !es[1].IsDir {
		t.Fatalf("List(in): got %+v", es)
	}
	if got := Read(t, ctx, f, "in/sub/b.csv"); got != "bb" {
		t.Errorf("got %q", got)
	}
	if got := Names(t, ctx, f, "in//sub/"); !slices.Equal(got, []string{"b.csv"}) {
		t.Errorf("List(in//sub/): got %q", got)
	}
	if _, err := f.Open(ctx, "in/sub"); err == nil {
		// Reading a directory must fail, at open or at read.
		r, _ := f.Open(ctx, "in/sub")
		if _, rerr := io.ReadAll(r); rerr == nil {
			t.Errorf("reading a directory: no error")
		}
		r.Close()
	}
}

func testLargeFile(t *testing.T, ctx context.Context, f folder.Folder) {
	// 320 KiB: pkg/sftp's in-memory backend sleeps 1µs per written byte.
	want := bytes.Repeat([]byte("0123456789abcdef"), 20<<10)
	err := f.CreateAtomic(ctx, "big.bin", func(w io.Writer) error {
		for i := 0; i < len(want); i += 1000 { // many small writes
			if _, err := w.Write(want[i:min(i+1000, len(want))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("CreateAtomic: %v", err)
	}
	if got := Read(t, ctx, f, "big.bin"); got != string(want) {
		t.Errorf("content differs: got %d bytes, want %d", len(got), len(want))
	}
}

func testConcurrent(t *testing.T, ctx context.Context, f folder.Folder) {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			name := fmt.Sprintf("f%02d.csv", i)
			if err := f.CreateAtomic(ctx, name, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "file %d\n", i)
				return err
			}); err != nil {
				errs <- err
				return
			}
			if _, err := f.Stat(ctx, name); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := Names(t, ctx, f, "."); len(got) != 16 {
		t.Errorf("got %d files, want 16", len(got))
	}
}

func testCancelled(t *testing.T, ctx context.Context, f folder.Folder) {
	Write(t, ctx, f, "a", "x")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.Stat(cctx, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Stat with cancelled context: got %v, want context.Canceled", err)
	}
	// The folder stays usable.
	if got := Read(t, ctx, f, "a"); got != "x" {
		t.Errorf("after cancel: got %q", got)
	}
}
