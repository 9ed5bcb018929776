package main

import (
	"context"
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
	stop    func() // while a bar is drawn
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
	read := func(context.Context) (int64, int64, error) { return c.high.Load(), size, nil }
	p.stop = pollBar(context.Background(), 250*time.Millisecond, read, func(total int64) *progressbar.ProgressBar {
		return progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(name),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
		)
	})
	return c
}

// done stops the indicator and clears its line.
func (p *progress) done() {
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
}

// pollBar draws a progress bar from poll every period, made by newBar at
// the first reading that gives a total; stop reads once more, clears the
// line and returns once the drawing ended.
func pollBar(ctx context.Context, every time.Duration, poll func(context.Context) (done, total int64, err error), newBar func(total int64) *progressbar.ProgressBar) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		var bar *progressbar.ProgressBar
		for {
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			if done, total, err := poll(ctx); err == nil && total > 0 {
				if bar == nil {
					bar = newBar(total)
				}
				_ = bar.Set64(done)
			}
			if ctx.Err() != nil {
				if bar != nil {
					_ = bar.Clear()
				}
				return
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
