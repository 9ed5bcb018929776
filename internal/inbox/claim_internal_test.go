package inbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"filebridge/internal/folder"
)

// sizedFolder opens every name as data, with the size its reader's Stat
// gives: a file that changed after Open looked at it.
type sizedFolder struct {
	folder.Folder
	data []byte
	size int64
}

func (s sizedFolder) Open(context.Context, string) (io.ReadCloser, error) {
	return sizedReader{bytes.NewReader(s.data), s.size}, nil
}

type sizedReader struct {
	*bytes.Reader
	size int64
}

func (r sizedReader) Close() error { return nil }

func (r sizedReader) Stat() (fs.FileInfo, error) { return sizedInfo(r.size), nil }

type sizedInfo int64

func (s sizedInfo) Name() string       { return "f.csv" }
func (s sizedInfo) Size() int64        { return int64(s) }
func (s sizedInfo) Mode() fs.FileMode  { return 0o644 }
func (s sizedInfo) ModTime() time.Time { return time.Time{} }
func (s sizedInfo) IsDir() bool        { return false }
func (s sizedInfo) Sys() any           { return nil }

// TestOpenSourceReadsTheSizeOpenFound: a remote file is copied as long as
// Open found it (one read request on SFTP); one that is shorter by then
// is copied as it is; a big one is spooled whole.
func TestOpenSourceReadsTheSizeOpenFound(t *testing.T) {
	big := bytes.Repeat([]byte("x"), memSpool+10)
	tests := []struct {
		name string
		data []byte
		size int64
		want int
		mem  bool
	}{
		{"as found", []byte("code,name\nA,B\n"), 14, 14, true},
		{"empty", nil, 0, 0, true},
		{"shorter since", []byte("code,name\n"), 14, 10, true},
		{"longer since", []byte("code,name\nA,B\nC,D\n"), 14, 14, true},
		{"spooled", big, int64(len(big)), len(big), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := (&Inbox{}).openSource(t.Context(), sizedFolder{data: tt.data, size: tt.size}, "f.csv", true, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			got := make([]byte, src.size)
			if _, err := src.ReadAt(got, 0); err != nil && err != io.EOF {
				t.Fatal(err)
			}
			sum := sha256.Sum256(got)
			if int(src.size) != tt.want || !bytes.Equal(got, tt.data[:tt.want]) || src.sha != hex.EncodeToString(sum[:]) || src.mem != tt.mem {
				t.Errorf("copied %d bytes (in memory %v), want %d (%v); hash %s of %x", src.size, src.mem, tt.want, tt.mem, src.sha, sum)
			}
		})
	}
}

// TestKeptFilesBudget: a round keeps at most keptMax claimed local files
// open; one beyond is closed at once, and the round's end closes those
// it did not process.
func TestKeptFilesBudget(t *testing.T) {
	dir := t.TempDir()
	in := &Inbox{keptMax: 1}
	var srcs []*source
	for i := range 2 {
		p := filepath.Join(dir, fmt.Sprintf("F%d.csv", i))
		if err := os.WriteFile(p, []byte("a,b\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		src, err := readSource(fh, p, true, 0)
		if err != nil {
			t.Fatal(err)
		}
		in.keepSpooled(int64(i+1), src)
		srcs = append(srcs, src)
	}
	if srcs[0].closed || !srcs[1].closed || in.spooledFiles != 1 {
		t.Fatalf("closed %v, %v, %d kept open; want the first kept open, the second closed", srcs[0].closed, srcs[1].closed, in.spooledFiles)
	}
	in.dropSpooled()
	if !srcs[0].closed || in.spooledFiles != 0 || len(in.spooled) != 0 {
		t.Errorf("after the round: first closed %v, %d kept open; want it closed, none kept", srcs[0].closed, in.spooledFiles)
	}
}

// SetKeptMax sets how many claimed local files a round keeps open for
// their processing.
func (in *Inbox) SetKeptMax(n int) { in.keptMax = n }
