package formats

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// signalReader counts ReadAt calls and closes second at the first one
// from readSize on: the file's second buffer.
type signalReader struct {
	*bytes.Reader
	reads  atomic.Int64
	once   sync.Once
	second chan struct{}
}

func (r *signalReader) ReadAt(p []byte, off int64) (int, error) {
	r.reads.Add(1)
	if off >= readSize {
		r.once.Do(func() { close(r.second) })
	}
	return r.Reader.ReadAt(p, off)
}

// TestCSVReadsAhead: while the first document of a CSV file is being
// handed on, the file's next rows are read (a second buffer of the file is
// asked for, from readSize on): reading and checking overlap. The rows are long enough for
// the first readSize bytes to end within the rows read ahead.
func TestCSVReadsAhead(t *testing.T) {
	note := strings.Repeat("n", 2*readSize/(aheadRows*(aheadBatches-1)))
	var b strings.Builder
	b.WriteString(skuHead + ",note\n")
	rows := 2 * readSize / len(note)
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "SKU-%d,Chair,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001,%s\n", i, note)
	}
	r := &signalReader{Reader: bytes.NewReader([]byte(b.String())), second: make(chan struct{})}
	docs := 0
	_, err := Decode(context.Background(), r, r.Size(), "S.csv", Options{Edition: B, Type: "skus"}, func(Doc) error {
		docs++
		if docs == 1 {
			select {
			case <-r.second:
			case <-time.After(10 * time.Second):
				return fmt.Errorf("the file was read %d times while its first document was handed on, want the next rows read", r.reads.Load())
			}
		}
		return nil
	})
	if err != nil || docs != rows {
		t.Fatalf("%d documents of %d: %v", docs, rows, err)
	}
}

// TestCSVReadAheadStops: when the documents are no longer wanted, Decode
// returns with the reading stopped: the file is not read after it.
func TestCSVReadAheadStops(t *testing.T) {
	var b strings.Builder
	b.WriteString(skuHead + "\n")
	for i := 0; i < 20*aheadRows; i++ {
		fmt.Fprintf(&b, "SKU-%d,Chair,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001\n", i)
	}
	stop := errors.New("enough")
	r := &signalReader{Reader: bytes.NewReader([]byte(b.String())), second: make(chan struct{})}
	docs := 0
	_, err := Decode(context.Background(), r, r.Size(), "S.csv", Options{Edition: B, Type: "skus"}, func(Doc) error {
		docs++
		return stop
	})
	reads := r.reads.Load()
	if !errors.Is(err, stop) || docs != 1 {
		t.Fatalf("%d documents, error %v; want 1 and %v", docs, err, stop)
	}
	// Decode has returned: the reading goroutine has too.
	if r.reads.Load() != reads {
		t.Errorf("the file was read after Decode returned")
	}
}
