package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// progressMinSize is the size from which validate shows its progress.
const progressMinSize = 5 << 20

// progress shows how far the reading of a big file got, on stderr, only
// when stderr is a terminal: it never mixes into redirected output.
type progress struct {
	w       io.Writer
	enabled bool

	stop chan struct{}
	wg   sync.WaitGroup
}

// newProgress returns a progress indicator writing to w, enabled when w is
// a character device (a terminal).
func newProgress(w io.Writer) *progress {
	return &progress{w: w, enabled: isTerminal(w)}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// countingReaderAt records the furthest offset read.
type countingReaderAt struct {
	r    io.ReaderAt
	high atomic.Int64
}

func (c *countingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	for end := off + int64(n); ; {
		cur := c.high.Load()
		if end <= cur || c.high.CompareAndSwap(cur, end) {
			break
		}
	}
	return n, err
}

// track returns r, wrapped to report progress when the file is big enough
// and the indicator enabled; done must be called after reading.
func (p *progress) track(name string, r io.ReaderAt, size int64) io.ReaderAt {
	if !p.enabled || size < progressMinSize {
		return r
	}
	c := &countingReaderAt{r: r}
	p.stop = make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprintf(p.w, "\r\033[K")
				return
			case <-t.C:
				read := c.high.Load()
				fmt.Fprintf(p.w, "\r\033[K%s: %3d%% (%.1f of %.1f MB)", name, read*100/size, float64(read)/1e6, float64(size)/1e6)
			}
		}
	}()
	return c
}

// done stops the indicator and clears its line.
func (p *progress) done() {
	if p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
}
