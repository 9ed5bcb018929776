package folder_test

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"filebridge/internal/folder"
	"filebridge/internal/folder/foldertest"
)

// TestLocalLifecycleDirectoryOpens counts, through inotify, the opens of
// each directory while one file goes the inbox's way: claimed into
// processing/, read, its final names asked for, its report written and
// the file moved into processed/Y/M/D. Only the directories a rename
// names are opened, once per rename: no component of a path is walked.
func TestLocalLifecycleDirectoryOpens(t *testing.T) {
	dir := t.TempDir()
	day := "processed/2026/11/27"
	for _, d := range []string{"processing", day} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := openLocal(t, dir)
	ctx := t.Context()

	ino, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ino)
	watched := map[int32]string{}
	for _, d := range []string{".", "processing", "processed", "processed/2026", "processed/2026/11", day} {
		wd, err := unix.InotifyAddWatch(ino, filepath.Join(dir, d), unix.IN_OPEN)
		if err != nil {
			t.Fatal(err)
		}
		watched[int32(wd)] = d
	}

	if err := f.Rename(ctx, "a.csv", "processing/a.csv"); err != nil {
		t.Fatal(err)
	}
	if got := foldertest.Read(t, ctx, f, "processing/a.csv"); got != "x" {
		t.Fatalf("read %q", got)
	}
	for _, name := range []string{"a.csv", "a.report.csv"} {
		if _, err := f.Stat(ctx, day+"/"+name); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("Stat(%s): %v", name, err)
		}
	}
	if err := f.CreateAtomic(ctx, day+"/a.report.csv", func(w io.Writer) error { _, err := io.WriteString(w, "r"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := f.Rename(ctx, "processing/a.csv", day+"/a.csv"); err != nil {
		t.Fatal(err)
	}

	opens := map[string]int{}
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(ino, buf)
		if errors.Is(err, unix.EAGAIN) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			wd := int32(binary.NativeEndian.Uint32(b[0:]))
			mask := binary.NativeEndian.Uint32(b[4:])
			nameLen := binary.NativeEndian.Uint32(b[12:])
			// An open of the watched directory itself comes without a name.
			if mask&unix.IN_OPEN != 0 && mask&unix.IN_ISDIR != 0 && nameLen == 0 {
				opens[watched[wd]]++
			}
			b = b[unix.SizeofInotifyEvent+int(nameLen):]
		}
	}
	want := map[string]int{
		"processing": 2, // the claim's target, the move's source
		day:          2, // the report's rename and sync, the move's target
	}
	for _, d := range watched {
		if opens[d] != want[d] {
			t.Errorf("%s opened %d times, want %d", d, opens[d], want[d])
		}
	}
}

// TestLocalConformanceWithoutOpenat2: the walk every operation falls back
// to keeps the folder's behaviour.
func TestLocalConformanceWithoutOpenat2(t *testing.T) {
	folder.WithoutOpenat2(t)
	foldertest.RunConformance(t, func(t *testing.T) folder.Folder {
		return openLocal(t, t.TempDir())
	})
}
