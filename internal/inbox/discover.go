package inbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"filebridge/internal/backoff"
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
// by waiting, e.g. they wait for a marker). opened, when not nil, is the
// listing of the root the folder's opening made just before (openFolder),
// taken instead of listing it again.
func (in *Inbox) scan(ctx context.Context, f folder.Folder, opened []folder.Entry) (settled []string, waiting int, next time.Time, err error) {
	entries := opened
	if entries == nil {
		in.mu.Lock()
		in.beginListing()
		in.mu.Unlock()
		entries, err = f.List(ctx, ".")
	}
	if err != nil {
		in.order.looked(in.cfg.Name)
		return nil, 0, time.Time{}, fmt.Errorf("listing inbox %q: %w", in.cfg.Name, err)
	}
	root := map[string]int{}
	var detect []folder.Entry // files whose type only their header row tells
	defer func() {
		in.detectRootTypes(ctx, f, detect, root)
		in.order.setRoot(in.cfg.Name, root)
	}()
	names := make(map[string]time.Time, len(entries))
	listed := make(map[string]folder.Entry, len(entries))
	for _, e := range entries {
		if !e.IsDir {
			names[e.Name] = e.ModTime
			listed[e.Name] = e
		}
	}
	now := in.now()
	settle := in.cfg.Settle.Duration
	in.mu.Lock()
	defer in.mu.Unlock()
	in.listed = listed
	present := make(map[string]bool, len(entries))
	defer in.endListing()
	for _, e := range entries {
		if e.IsDir || isTemp(e.Name) || isMarker(e.Name) || in.unmatchedLeft(e.Name) {
			continue
		}
		present[e.Name] = true
		root[e.Name] = in.rootOrder(e.Name)
		if root[e.Name] == 0 {
			if k, ok := in.knownRootType(e); ok {
				root[e.Name] = k
			} else {
				detect = append(detect, e)
			}
		}
		if r := in.route(e.Name); r != nil && r.DoneMarker {
			if markerOf(e.Name, e.ModTime, names) != "" {
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
		if since := lookAt(in.looks, e.Name, e, now); now.Sub(since) >= settle {
			settled = append(settled, e.Name)
		} else {
			waiting++
			next = earliest(next, since.Add(settle))
		}
	}
	maps.DeleteFunc(in.looks, func(name string, _ look) bool { return !present[name] })
	maps.DeleteFunc(in.rootTypes, func(name string, _ rootType) bool { return !present[name] })
	return settled, waiting, next, nil
}

// lookAt records in looks a look at e (under key) taken at now, and
// returns since when its size and mtime are the same.
func lookAt(looks map[string]look, key string, e folder.Entry, now time.Time) time.Time {
	prev, ok := looks[key]
	if !ok || prev.size != e.Size || !prev.mtime.Equal(e.ModTime) {
		prev = look{size: e.Size, mtime: e.ModTime, since: now}
		looks[key] = prev
	}
	return prev.since
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

// observe takes a look at once at each name a file-system event was about:
// a new or changed file starts (or restarts) its settle wait now, a file
// gone is forgotten. It reports whether a round should run at once (a done
// marker appeared, or files need no settling) and when the earliest of the
// observed files may settle (zero: none).
func (in *Inbox) observe(ctx context.Context, names []string) (now bool, next time.Time) {
	f, err := in.folder(ctx)
	if err != nil {
		return true, time.Time{} // the round reports the failure and backs off
	}
	settle := in.cfg.Settle.Duration
	for _, name := range names {
		switch r := in.route(name); {
		case isTemp(name):
			continue
		case isMarker(name):
			now = true
			continue
		case r != nil && r.DoneMarker:
			continue // waits for its marker, not for settling
		case in.opts.SkipSettle || settle <= 0:
			now = true
			continue
		}
		e, err := f.Stat(ctx, name)
		seen := in.now()
		in.mu.Lock()
		if err != nil || e.IsDir {
			delete(in.looks, name) // gone (claimed, moved away) or a folder
			in.mu.Unlock()
			continue
		}
		since := lookAt(in.looks, name, e, seen)
		in.mu.Unlock()
		next = earliest(next, since.Add(settle))
	}
	return now, next
}

// Look lists the inbox once, so that the files it holds count for the
// dependency order of the portal's other inboxes (Order) before any of
// them runs a round; RunOnce does it itself.
func (in *Inbox) Look(ctx context.Context) error {
	f, root, err := in.openFolder(ctx)
	if err != nil {
		in.order.looked(in.cfg.Name)
		return err
	}
	_, _, _, err = in.scan(ctx, f, root)
	return err
}

// RunOnce runs one round: it resumes the files in processing/, looks at
// the inbox (waiting up to settle for files seen for the first time, unless
// Options.SkipSettle), claims every settled file (on a shared journal only
// those it can start: RoundResult.Left counts the others) and processes
// them all in dependency order. A file left in processing/ by a transient failure or a
// refused token counts in Retrying and ends the round; the error then
// matches IsRetry.
func (in *Inbox) RunOnce(ctx context.Context) (RoundResult, error) {
	f, root, err := in.openFolder(ctx)
	if err != nil {
		in.order.looked(in.cfg.Name)
		return RoundResult{}, in.folderError(&retryError{err: err})
	}
	settled, waiting, next, err := in.scan(ctx, f, root)
	if err != nil {
		return RoundResult{}, in.folderError(&retryError{err: err})
	}
	in.folderReached()
	if !next.IsZero() {
		if err := in.sleepUntil(ctx, next); err != nil {
			return RoundResult{Waiting: waiting}, err
		}
		if settled, waiting, _, err = in.scan(ctx, f, nil); err != nil {
			return RoundResult{}, in.folderError(&retryError{err: err})
		}
	}
	return in.round(ctx, ctx, f, settled, waiting, false)
}

// Run watches the inbox until ctx ends: it resumes processing/ at start,
// then runs a round at every poll interval and as soon as a file may have
// settled. On a local folder, file-system events are looked at as they
// come: the first look at a new or changed file is taken at once, and the
// round that claims it runs exactly settle later if nothing changed
// meanwhile. After a transient failure or a refused token, rounds wait for
// the backoff.
//
// When ctx ends, Run stops looking and starts no new file and no new
// document, but the portal requests already sent finish and their results
// are journaled, within Options.Grace (then they are cancelled: the
// journal keeps them "sending" and the next start looks them up). A file
// left unfinished stays in processing/ and resumes at the next start. Run
// returns nil when ctx ends; errors of a round are logged, not returned.
func (in *Inbox) Run(ctx context.Context) error {
	in.log.Info("watching inbox", "url", in.cfg.Folder.String(), "poll", in.cfg.Poll.Duration, "settle", in.cfg.Settle.Duration)
	work, release := in.workContext(ctx)
	defer release()
	// Files left running in the background by a round finish (their
	// requests in flight within the grace period) before Run returns.
	defer in.background.Wait()
	// Open the folder first: a missing local inbox folder is created
	// then, and can be watched.
	_, opened, err := in.openFolder(ctx)
	if err != nil {
		in.log.Debug("inbox folder not open yet; the first round retries", "error", err)
	}
	w := in.watcher
	if w == nil {
		w = NewWatcher(in.log)
	}
	alarm, unwatch, werr := in.watch(ctx, w)
	defer func() { unwatch() }()
	in.ring = alarm
	if werr != nil {
		in.log.Warn("file-system events unavailable for now; polling, and watching again after each round", "inbox_path", in.cfg.Folder.Path, "error", werr)
	}
	poll := in.cfg.Poll.Duration
	wake := in.now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-alarm.ready():
			at := alarm.take()
			if at.IsZero() || !at.Before(wake) {
				continue
			}
			wake = at
		case <-in.wake.c:
			// A file of the portal finished: files deferred behind it
			// may start now.
			if !in.hasDeferred() {
				continue
			}
			wake = in.now()
		case <-timer.C:
			wake = in.tick(ctx, work, poll, opened)
			opened = nil
			if werr != nil && ctx.Err() == nil {
				// The folder may exist now (created by the round, or by
				// someone else): watch it from now on.
				if alarm, unwatch, werr = in.watch(ctx, w); werr == nil {
					in.ring = alarm
					in.log.Info("watching the inbox folder for file-system events", "inbox_path", in.cfg.Folder.Path)
					wake = in.now()
				}
			}
		}
		timer.Reset(wake.Sub(in.now()))
	}
}

// workContext returns the context of the work Run has in flight: it is
// not cancelled with ctx but Options.Grace after it (release cancels it
// at once).
func (in *Inbox) workContext(ctx context.Context) (context.Context, context.CancelFunc) {
	work, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var grace *time.Timer
	stopAfter := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		grace = time.AfterFunc(in.opts.Grace, func() {
			cancel(fmt.Errorf("stopping inbox %q: the %s grace period expired with requests in flight: %w", in.cfg.Name, in.opts.Grace, context.DeadlineExceeded))
		})
	})
	return work, func() {
		stopAfter()
		mu.Lock()
		if grace != nil {
			grace.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
}

// tick runs one round of Run and returns when to run the next. ctx ends
// the looking and the starting of new work; work carries what is in
// flight. opened is the root listing of Run's opening of the folder just
// before (see scan), at its first round.
func (in *Inbox) tick(ctx, work context.Context, poll time.Duration, opened []folder.Entry) time.Time {
	next := in.now().Add(poll)
	if at := in.retryTime(); in.now().Before(at) {
		return at
	}
	f, root, err := in.openFolder(ctx)
	if err != nil {
		return in.failed(ctx, err)
	}
	if root == nil {
		root = opened
	}
	settled, waiting, settleAt, err := in.scan(ctx, f, root)
	if err != nil {
		return in.failed(ctx, err)
	}
	in.folderReached()
	res, err := in.round(ctx, work, f, settled, waiting, true)
	in.cleanLater(ctx, f)
	switch {
	case ctx.Err() != nil:
		return next
	case IsRetry(err):
		return in.retryTime()
	case err != nil:
		in.log.Error("inbox round failed; retrying at the next poll", "error", err)
	}
	if res.Waiting > 0 && !settleAt.IsZero() {
		next = earliest(next, settleAt)
	}
	if res.Left > 0 {
		next = in.now() // settled files wait in the inbox
	}
	return next
}

// failed logs a folder failure, backs off and returns when to try again.
func (in *Inbox) failed(ctx context.Context, err error) time.Time {
	in.order.looked(in.cfg.Name) // cannot tell what it holds: do not stop the other inboxes
	if ctx.Err() != nil {
		return in.now()
	}
	d := in.backOff()
	in.folderError(err)
	in.log.Warn("inbox folder unreachable; trying again later", "error", err, "retry_in", d)
	return in.retryTime()
}

// backOff lengthens the retry backoff (first retry_backoff, doubling up to
// retry_backoff_max) and returns it.
func (in *Inbox) backOff() time.Duration {
	in.mu.Lock()
	defer in.mu.Unlock()
	d := backoff.Backoff{Initial: in.cfg.RetryBackoff.Duration, Max: in.cfg.RetryBackoffMax.Duration}.Next(in.retries)
	in.retries++
	in.retryAt = in.now().Add(d)
	return d
}

func (in *Inbox) recovered() {
	in.mu.Lock()
	in.retries, in.retryAt = 0, time.Time{}
	in.mu.Unlock()
}

func (in *Inbox) retryTime() time.Time {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.retryAt
}

// hints are the names file-system events were about, gathered until the
// observer takes them.
type hints struct {
	signal chan struct{} // one pending signal at most

	mu    sync.Mutex
	names map[string]struct{}
	all   bool // events were lost: look at everything
}

// add records a name (all: the watcher lost events) and signals.
func (h *hints) add(name string, all bool) {
	h.mu.Lock()
	if all {
		h.all = true
	} else {
		h.names[name] = struct{}{}
	}
	h.mu.Unlock()
	poke(h.signal)
}

// take returns the names gathered since the last take, sorted, and whether
// the whole inbox should be looked at.
func (h *hints) take() (names []string, all bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for n := range h.names {
		names = append(names, n)
	}
	clear(h.names)
	all, h.all = h.all, false
	slices.Sort(names)
	return names, all
}

// alarm is the earliest time the Run loop should wake up at, as the
// observer of file-system events asks. A nil *alarm never rings.
type alarm struct {
	signal chan struct{} // one pending signal at most

	mu sync.Mutex
	at time.Time
}

// ready is signalled when a time was posted (nil channel: never).
func (a *alarm) ready() <-chan struct{} {
	if a == nil {
		return nil
	}
	return a.signal
}

// post asks for a wake-up at t (or earlier, if asked before).
func (a *alarm) post(t time.Time) {
	a.mu.Lock()
	a.at = earliest(a.at, t)
	a.mu.Unlock()
	poke(a.signal)
}

// poke signals ch unless a signal is pending already.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// take returns the earliest time posted since the last take (zero: none).
func (a *alarm) take() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.at
	a.at = time.Time{}
	return t
}

// watch watches a local inbox for file-system events, through the
// process's shared Watcher (Deps.Watcher; w when there is none), and looks
// at the files they are about as they come, even while a round runs
// (observe): the returned alarm rings with the time a round should run
// (nil for SFTP, or when the folder cannot be watched: err says why, and
// polling still works). The watching stops when ctx ends; wait returns
// once it has (the folder unwatched, no look at it under way).
func (in *Inbox) watch(ctx context.Context, w *Watcher) (a *alarm, wait func(), err error) {
	var wg sync.WaitGroup
	if in.cfg.Folder.IsSFTP() {
		return nil, wg.Wait, nil
	}
	h := &hints{signal: make(chan struct{}, 1), names: map[string]struct{}{}}
	unwatch, err := w.watch(in.cfg.Folder.Path, h)
	if err != nil {
		return nil, wg.Wait, err
	}
	a = &alarm{signal: make(chan struct{}, 1)}
	wg.Go(func() {
		defer unwatch()
		for {
			select {
			case <-ctx.Done():
				return
			case <-h.signal:
			}
			names, all := h.take()
			now, at := all, time.Time{}
			if !all {
				now, at = in.observe(ctx, names)
			}
			if now {
				at = in.now()
			}
			if !at.IsZero() {
				a.post(at)
			}
		}
	})
	return a, wg.Wait, nil
}

// sleepUntil waits until t of the inbox's clock, or ctx's end.
func (in *Inbox) sleepUntil(ctx context.Context, t time.Time) error {
	d := t.Sub(in.now())
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
