package inbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fsnotify/fsnotify"

	"filebridge/internal/folder"
)

// look is what one listing showed of a file, and since when.
type look struct {
	size  int64
	mtime time.Time
	since time.Time // when this size and mtime were first seen
}

// scan lists the inbox root and returns the files that are settled now:
// size and mtime unchanged across two looks settle apart, or, for a route
// with done_marker, NAME.done / NAME.ok present. waiting counts the others;
// next is when the earliest of them may settle (zero when none can settle
// by waiting, e.g. they wait for a marker).
func (in *Inbox) scan(ctx context.Context, f folder.Folder) (settled []string, waiting int, next time.Time, err error) {
	entries, err := f.List(ctx, ".")
	if err != nil {
		return nil, 0, time.Time{}, fmt.Errorf("listing inbox %q: %w", in.cfg.Name, err)
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		if !e.IsDir {
			names[e.Name] = true
		}
	}
	now := time.Now()
	settle := in.cfg.Settle.Duration
	in.mu.Lock()
	defer in.mu.Unlock()
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.IsDir || isTemp(e.Name) || isMarker(e.Name) {
			continue
		}
		present[e.Name] = true
		if r := in.route(e.Name); r != nil && r.DoneMarker {
			if markerOf(e.Name, names) != "" {
				settled = append(settled, e.Name)
			} else {
				waiting++
			}
			continue
		}
		if in.opts.SkipSettle || settle <= 0 {
			settled = append(settled, e.Name)
			continue
		}
		prev, ok := in.looks[e.Name]
		if !ok || prev.size != e.Size || !prev.mtime.Equal(e.ModTime) {
			in.looks[e.Name] = look{size: e.Size, mtime: e.ModTime, since: now}
			waiting++
			next = earliest(next, now.Add(settle))
			continue
		}
		if now.Sub(prev.since) >= settle {
			settled = append(settled, e.Name)
			continue
		}
		waiting++
		next = earliest(next, prev.since.Add(settle))
	}
	for name := range in.looks {
		if !present[name] {
			delete(in.looks, name)
		}
	}
	return settled, waiting, next, nil
}

// forget drops the settle state of a claimed file.
func (in *Inbox) forget(name string) {
	in.mu.Lock()
	delete(in.looks, name)
	in.mu.Unlock()
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// RunOnce runs one round: it resumes the files in processing/, looks at
// the inbox (waiting up to settle for files seen for the first time, unless
// Options.SkipSettle), claims every settled file and processes them all in
// dependency order. A file left in processing/ by a transient failure or a
// refused token counts in Retrying and ends the round; the error then
// matches IsRetry.
func (in *Inbox) RunOnce(ctx context.Context) (RoundResult, error) {
	f, err := in.folder(ctx)
	if err != nil {
		return RoundResult{}, &retryError{err: err}
	}
	settled, waiting, next, err := in.scan(ctx, f)
	if err != nil {
		return RoundResult{}, &retryError{err: err}
	}
	if !next.IsZero() {
		if err := sleepUntil(ctx, next); err != nil {
			return RoundResult{Waiting: waiting}, err
		}
		if settled, waiting, _, err = in.scan(ctx, f); err != nil {
			return RoundResult{}, &retryError{err: err}
		}
	}
	return in.round(ctx, f, settled, waiting)
}

// Run watches the inbox until ctx ends: it resumes processing/ at start,
// then runs a round at every poll interval, whenever a file may have
// settled, and shortly after file-system events (local folders). After a
// transient failure or a refused token, rounds wait for the backoff. Run
// returns nil when ctx ends; errors of a round are logged, not returned.
func (in *Inbox) Run(ctx context.Context) error {
	in.log.Info("watching inbox", "url", in.cfg.Folder.String(), "poll", in.cfg.Poll.Duration, "settle", in.cfg.Settle.Duration)
	events := in.watch(ctx)
	poll := in.cfg.Poll.Duration
	wake := time.Now()
	for {
		if err := waitWake(ctx, wake, events); err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		wake = in.tick(ctx, poll)
	}
}

// tick runs one round of Run and returns when to run the next.
func (in *Inbox) tick(ctx context.Context, poll time.Duration) time.Time {
	next := time.Now().Add(poll)
	if at := in.retryTime(); time.Now().Before(at) {
		return at
	}
	f, err := in.folder(ctx)
	if err != nil {
		return in.failed(ctx, err)
	}
	settled, waiting, settleAt, err := in.scan(ctx, f)
	if err != nil {
		return in.failed(ctx, err)
	}
	res, err := in.round(ctx, f, settled, waiting)
	switch {
	case ctx.Err() != nil:
		return next
	case IsRetry(err):
		return in.retryTime()
	case err != nil:
		in.log.Error("inbox round failed; retrying at the next poll", "error", err)
	}
	if res.Waiting > 0 && !settleAt.IsZero() {
		next = earliest(next, settleAt.Add(10*time.Millisecond))
	}
	return next
}

// failed logs a folder failure, backs off and returns when to try again.
func (in *Inbox) failed(ctx context.Context, err error) time.Time {
	if ctx.Err() != nil {
		return time.Now()
	}
	d := in.backOff()
	in.log.Warn("inbox folder unreachable; trying again later", "error", err, "retry_in", d)
	return in.retryTime()
}

// backOff lengthens the retry backoff (first retry_backoff, doubling up to
// retry_backoff_max) and returns it.
func (in *Inbox) backOff() time.Duration {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.backoff <= 0:
		in.backoff = in.cfg.RetryBackoff.Duration
	default:
		in.backoff = min(2*in.backoff, in.cfg.RetryBackoffMax.Duration)
	}
	in.retryAt = time.Now().Add(in.backoff)
	return in.backoff
}

// recovered resets the backoff after a file went through.
func (in *Inbox) recovered() {
	in.mu.Lock()
	in.backoff, in.retryAt = 0, time.Time{}
	in.mu.Unlock()
}

func (in *Inbox) retryTime() time.Time {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.retryAt
}

// watch returns file-system events of a local inbox as hints (nil channel
// for SFTP, or when the watcher cannot start: polling still works).
func (in *Inbox) watch(ctx context.Context) <-chan struct{} {
	if in.cfg.Folder.IsSFTP() {
		return nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		in.log.Warn("file-system events unavailable; relying on polling", "error", err)
		return nil
	}
	if err := w.Add(in.cfg.Folder.Path); err != nil {
		_ = w.Close()
		in.log.Warn("file-system events unavailable; relying on polling", "error", err)
		return nil
	}
	out := make(chan struct{}, 1)
	go func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) {
					continue
				}
				select {
				case out <- struct{}{}:
				default:
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				in.log.Debug("file-system watcher error", "error", err)
			}
		}
	}()
	return out
}

// eventDelay gathers a burst of file-system events into one look.
const eventDelay = 200 * time.Millisecond

// waitWake waits until wake, or until an event arrives (then a little
// longer), or ctx ends (then it returns ctx's error).
func waitWake(ctx context.Context, wake time.Time, events <-chan struct{}) error {
	t := time.NewTimer(time.Until(wake))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	case <-events:
		return sleepUntil(ctx, time.Now().Add(eventDelay))
	}
}

// sleepUntil waits until t or ctx's end.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

var errStop = errors.New("stop")
