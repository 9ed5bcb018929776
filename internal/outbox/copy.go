package outbox

import (
	"bytes"
	"compress/gzip"
)

// MaxCopy is the largest compressed copy kept: a bigger file is written
// but cannot be re-sent from the journal.
const MaxCopy = 16 << 20

// fileCopy compresses what is written to it, up to limit bytes.
type fileCopy struct {
	gz    bytes.Buffer
	zw    *gzip.Writer
	size  int64
	limit int
	over  bool
}

func newFileCopy(limit int) *fileCopy {
	c := &fileCopy{limit: limit}
	c.zw = gzip.NewWriter(&c.gz)
	return c
}

// Write compresses p; past the limit it stops keeping, but never fails the
// file's writing.
func (c *fileCopy) Write(p []byte) (int, error) {
	c.size += int64(len(p))
	if c.over {
		return len(p), nil
	}
	_, _ = c.zw.Write(p) // into memory: no error
	if c.gz.Len() > c.limit {
		c.over = true
		c.gz = bytes.Buffer{}
	}
	return len(p), nil
}

// close ends the compression and reports whether the copy is whole.
func (c *fileCopy) close() bool {
	if c.over {
		return false
	}
	_ = c.zw.Close()
	return c.gz.Len() <= c.limit
}
