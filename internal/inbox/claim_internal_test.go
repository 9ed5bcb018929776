package inbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
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
