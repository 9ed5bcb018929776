package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"filebridge/internal/journal"
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

// termLine lets log lines and one progress line share a terminal: a log
// line clears the progress line, is written on a line of its own, and the
// progress line is drawn again below it, so that the two never run into
// each other. Bar is the progress bar's writer (it redraws its line after
// a carriage return), Logs the logger's.
type termLine struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	line     []byte // the progress line as last drawn, after its last '\r'
}

func newTermLine(w io.Writer) *termLine {
	return &termLine{w: w, terminal: isTerminal(w)}
}

// Terminal reports whether the shared writer is a terminal (isTerminal
// asks it).
func (t *termLine) Terminal() bool { return t.terminal }

func (t *termLine) Bar() io.Writer { return barWriter{t} }

func (t *termLine) Logs() io.Writer { return logWriter{t} }

type barWriter struct{ t *termLine }

func (b barWriter) Write(p []byte) (int, error) {
	t := b.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := bytes.LastIndexByte(p, '\r'); i >= 0 {
		t.line = append(t.line[:0], p[i+1:]...)
	} else {
		t.line = append(t.line, p...)
	}
	if len(bytes.TrimSpace(t.line)) == 0 {
		t.line = t.line[:0] // cleared
	}
	return t.w.Write(p)
}

type logWriter struct{ t *termLine }

// clearLine is a carriage return and ANSI "erase to the end of the line".
const clearLine = "\r\x1b[K"

func (l logWriter) Write(p []byte) (int, error) {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.line) == 0 {
		return t.w.Write(p)
	}
	var buf bytes.Buffer
	buf.WriteString(clearLine)
	buf.Write(p)
	if len(p) > 0 && p[len(p)-1] != '\n' {
		buf.WriteByte('\n')
	}
	buf.WriteByte('\r')
	buf.Write(t.line)
	if _, err := t.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Timing of the documents' progress line.
const (
	docProgressDelay = time.Second            // shown only for runs longer than this
	docProgressEvery = 250 * time.Millisecond // journal read this often
)

// docCounts returns how many documents of a file are settled and how many
// the file has (0 while it is not validated yet).
type docCounts func(ctx context.Context) (done, total int, err error)

// journalDocCounts reads the counts of the inbox's open file named name
// from the journal (its read connections never wait for the writer).
func journalDocCounts(db *journal.DB, inbox, name string) docCounts {
	var id int64
	return func(ctx context.Context) (int, int, error) {
		var f journal.File
		if id == 0 {
			open, err := db.OpenFiles(ctx, inbox)
			if err != nil {
				return 0, 0, err
			}
			for _, o := range open {
				if o.Name == name && o.ID > id {
					id, f = o.ID, o
				}
			}
			if id == 0 {
				return 0, 0, nil // not claimed yet
			}
		} else {
			var err error
			if f, err = db.File(ctx, id); err != nil {
				return 0, 0, err
			}
		}
		if f.DocsTotal == 0 {
			return 0, 0, nil
		}
		counts, err := db.DocumentCounts(ctx, id)
		if err != nil {
			return 0, 0, err
		}
		done := 0
		for r, n := range counts {
			if r.Final() {
				done += n
			}
		}
		return done, f.DocsTotal, nil
	}
}

// showDocProgress shows on w, when it is a terminal, a progress line of the
// documents of a file (done/total, documents per second, time left) once
// the run lasted docProgressDelay; the returned stop clears it. When w is
// not a terminal it writes nothing.
func showDocProgress(ctx context.Context, w *termLine, count docCounts) (stop func()) {
	if !w.Terminal() {
		return func() {}
	}
	return startDocProgress(ctx, w.Bar(), count)
}

// startDocProgress is showDocProgress on any writer. The counts are read
// from the start (so that the rate and the time left are right), the line
// is written once the run lasted docProgressDelay.
func startDocProgress(ctx context.Context, w io.Writer, count docCounts) (stop func()) {
	out := &laterWriter{w: w, from: time.Now().Add(docProgressDelay)}
	read := func(ctx context.Context) (int64, int64, error) {
		done, total, err := count(ctx)
		return int64(done), int64(total), err
	}
	return pollBar(ctx, docProgressEvery, read, func(total int64) *progressbar.ProgressBar {
		return progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(out),
			progressbar.OptionSetDescription("documents"),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("docs"),
			progressbar.OptionSetPredictTime(true),
		)
	})
}

// laterWriter drops what is written to it before from.
type laterWriter struct {
	w    io.Writer
	from time.Time
}

func (l *laterWriter) Write(b []byte) (int, error) {
	if time.Now().Before(l.from) {
		return len(b), nil
	}
	return l.w.Write(b)
}
