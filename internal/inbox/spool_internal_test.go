package inbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"testing"

	"filebridge/internal/folder"
	"filebridge/internal/folder/sftptest"
)

// TestOpenSourceRemote: a remote file is spooled in memory up to memSpool
// bytes and into a temporary local file beyond, with the same content
// and SHA-256 either way; closing the source removes the temporary file.
func TestOpenSourceRemote(t *testing.T) {
	srv := sftptest.NewServer(t)
	ctx := t.Context()
	f, err := folder.Open(ctx, srv.Options("/in"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	c := srv.Client(t)
	if err := c.MkdirAll("/in"); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{0, 100, memSpool, memSpool + 1, 3*memSpool + 7} {
		data := bytes.Repeat([]byte("0123456789abcdef\n"), size/17+1)[:size]
		sftptest.WriteFile(t, c, "/in/F.csv", data)
		in := &Inbox{}
		src, err := in.openSource(ctx, f, "F.csv", true, 0)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		sum := sha256.Sum256(data)
		got, err := io.ReadAll(io.NewSectionReader(src, 0, src.size))
		if err != nil || !bytes.Equal(got, data) || src.size != int64(size) || src.sha != hex.EncodeToString(sum[:]) {
			t.Errorf("%d bytes: read %d bytes (err %v), size %d, sha %s; want the file's content and %x", size, len(got), err, src.size, src.sha, sum)
		}
		tmp, onDisk := src.ReaderAt.(*os.File)
		if onDisk != (size > memSpool) {
			t.Errorf("%d bytes: spooled to a local file = %v, want %v", size, onDisk, size > memSpool)
		}
		if err := src.Close(); err != nil {
			t.Errorf("%d bytes: closing: %v", size, err)
		}
		if onDisk {
			if _, err := os.Stat(tmp.Name()); !os.IsNotExist(err) {
				t.Errorf("%d bytes: the spool file is still there after Close: %v", size, err)
			}
		}
	}
}
