package main

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressMinSize is the size from which validate shows its progress.
const progressMinSize = 5 << 20

// progress shows how far the reading of a big file got (bytes, rate, time
// left), on stderr, only when stderr is a terminal: it never mixes into
// redirected output.
type progress struct {
	w       io.Writer
	enabled bool

	stop chan struct{}
	wg   sync.WaitGroup
}

// newProgress returns a progress indicator writing to w, enabled when w is
// a terminal.
func newProgress(w io.Writer) *progress {
	return &progress{w: w, enabled: isTerminal(w)}
}

// isTerminal reports whether w is a terminal, or a termLine sharing one.
func isTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ Terminal() bool }); ok {
		return t.Terminal()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
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
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(name),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
	)
	p.wg.Go(func() {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				_ = bar.Set64(c.high.Load())
				_ = bar.Clear()
				return
			case <-t.C:
				_ = bar.Set64(c.high.Load())
			}
		}
	})
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
