package main

import (
	"context"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"filebridge/internal/journal"
)

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
