package inbox

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// jobOutcome is what became of one claimed file in a round.
type jobOutcome struct {
	started  bool
	deferred bool
	running  bool // left running in the background after its fair share
	res      FileResult
	err      error
}

// runJobs processes the round's sorted files level by level: the files of
// one dependency level run up to file_concurrency at a time, and a level
// starts once the one before it is through. A file whose dependencies are
// not finished (in any inbox of the portal) is deferred. After a failure
// that leaves a file for a retry, no new file starts; those running
// finish, and the round returns the retry error. With detach (Run), a
// level waits for its files only Options.FairShare once all of them
// started: files still running then go on in the background.
func (in *Inbox) runJobs(ctx, work context.Context, f folder.Folder, jobs []journal.File, res RoundResult, detach bool) (RoundResult, error) {
	waiting := res.Waiting
	done := 0
	for i := 0; i < len(jobs); {
		j := i + 1
		for j < len(jobs) && in.level(jobs[j]) == in.level(jobs[i]) {
			j++
		}
		outs := in.runLevel(ctx, work, f, jobs[i:j], detach)
		var firstErr error
		for k, o := range outs {
			row := jobs[i+k]
			switch {
			case o.deferred:
				res.Deferred++
			case o.running:
				res.Running++
			case !o.started:
				res.Retrying++
			case o.err != nil:
				res.Retrying++
				if firstErr == nil {
					firstErr = o.err
				}
			default:
				done++
				in.fileDone(row, o.res)
				if o.res.Held {
					res.Held++
				}
				res.Files = append(res.Files, o.res)
			}
		}
		i = j
		in.setQueue(waiting + len(jobs) - done)
		if firstErr != nil || ctx.Err() != nil {
			res.Retrying += len(jobs) - i // later levels not started
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			return res, in.retryLater(firstErr)
		}
	}
	return res, nil
}

// fileDone records that a file of a round finished (done, failed or held).
func (in *Inbox) fileDone(row journal.File, res FileResult) {
	in.mu.Lock()
	delete(in.deferLog, row.ID)
	in.mu.Unlock()
	in.order.finished(in.cfg.Name, row.ID, !res.Held) // a held file does not hold up the others
	if !res.Held {
		in.unhold(row.ID)
	}
}

// levelRun is the shared state of the files of one level while they run.
type levelRun struct {
	mu   sync.Mutex
	outs []jobOutcome
	done []bool
	left bool // the round went on: files still running finish on their own
}

// runLevel runs the files of one level, up to file_concurrency at once
// (less the files running in the background), small files four times as
// many and big files a quarter as many (see slots). With detach it waits
// Options.FairShare after the last start, then leaves the files still
// running to finish in the background (see finishedLater).
func (in *Inbox) runLevel(ctx, work context.Context, f folder.Folder, level []journal.File, detach bool) []jobOutcome {
	lr := &levelRun{outs: make([]jobOutcome, len(level)), done: make([]bool, len(level))}
	slots := in.fileSlots()
	var failed atomic.Bool
	var wg sync.WaitGroup
	for k, row := range level {
		if ctx.Err() != nil || failed.Load() {
			break
		}
		if b := in.order.blocker(in.level(row)); b != "" && in.level(row) != 99 {
			in.logDeferred(ctx, row, b)
			lr.outs[k].deferred = true
			continue
		}
		if !slots.acquire(ctx, row.Size) {
			continue
		}
		if failed.Load() {
			slots.release(row.Size)
			break
		}
		lr.outs[k].started = true
		wg.Add(1)
		in.background.Go(func() {
			defer wg.Done()
			defer slots.release(row.Size)
			fr, err := in.process(ctx, work, f, row, FileOptions{})
			lr.mu.Lock()
			if lr.left {
				lr.mu.Unlock()
				in.finishedLater(row, fr, err)
				return
			}
			lr.outs[k].res, lr.outs[k].err, lr.done[k] = fr, err, true
			lr.mu.Unlock()
			if err != nil {
				failed.Store(true)
			}
		})
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	if detach {
		in.waitFairShare(all)
	} else {
		<-all
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	lr.left = true
	for k := range lr.outs {
		if lr.outs[k].started && !lr.done[k] {
			lr.outs[k].running = true
			in.setRunning(level[k].ID, true)
			in.log.Info("file takes longer than its fair share: it goes on in the background while the inbox takes other files",
				"file", level[k].Name, "file_id", level[k].ID, "fair_share", in.opts.FairShare)
		}
	}
	return lr.outs
}

// waitFairShare waits for the files of a level of Run's round (all is
// closed when they are through) up to Options.FairShare, or until a file
// observed in the inbox meanwhile may settle (Run's alarm rings for that
// time): the files still running then go on in the background and the
// next round takes the new file, instead of the inbox taking its files
// one round after the other.
func (in *Inbox) waitFairShare(all <-chan struct{}) {
	a := in.ring
	fair := time.NewTimer(in.opts.FairShare)
	defer fair.Stop()
	settle := time.NewTimer(0)
	settle.Stop()
	defer settle.Stop()
	var at time.Time // the earliest time the alarm rang for
	for {
		select {
		case <-all:
		case <-fair.C:
		case <-settle.C:
		case <-a.ready():
			if t := a.take(); !t.IsZero() {
				at = earliest(at, t)
				settle.Reset(at.Sub(in.now()))
			}
			continue
		}
		break
	}
	if !at.IsZero() {
		a.post(at) // for Run's loop: the round at that time
	}
}

// finishedLater records the end of a file a round left running in the
// background, as runJobs does for the files it waited for.
func (in *Inbox) finishedLater(row journal.File, res FileResult, err error) {
	in.setRunning(row.ID, false)
	if err != nil {
		_ = in.retryLater(err) // the file stays in processing/; the next round after the backoff takes it again
		return
	}
	in.fileDone(row, res)
}

func (in *Inbox) setRunning(id int64, on bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !on {
		delete(in.running, id)
		return
	}
	if in.running == nil {
		in.running = map[int64]bool{}
	}
	in.running[id] = true
}

func (in *Inbox) runningCount() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.running)
}

// isRunning reports whether a round left the file running in the
// background.
func (in *Inbox) isRunning(id int64) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.running[id]
}

// logDeferred logs a deferred file: at info level the first time (or when
// what it waits for changed), at debug level in later rounds.
func (in *Inbox) logDeferred(ctx context.Context, row journal.File, blocker string) {
	in.mu.Lock()
	if in.deferLog == nil {
		in.deferLog = map[int64]string{}
	}
	seen := in.deferLog[row.ID] == blocker
	in.deferLog[row.ID] = blocker
	if len(in.deferLog) > 10000 {
		clear(in.deferLog) // bounded: at worst a file is logged at info level again
	}
	in.mu.Unlock()
	level := slog.LevelInfo
	if seen {
		level = slog.LevelDebug
	}
	in.log.Log(ctx, level, "file waits for a file it depends on", "file", row.Name, "type", row.DocType, "waits_for", blocker)
}

// smallFile and bigFile are the sizes that set a file's share of
// file_concurrency: a file under smallFile (one order, a few suppliers)
// holds next to no memory and takes a quarter of a slot; decoding a
// file of bigFile or more holds buffers and order groups, and only a
// quarter of file_concurrency of those run at once.
const (
	smallFile = 64 << 10
	bigFile   = 1 << 20
)

// slots bounds the files of a level that run at once. all holds quarter
// slots (file_concurrency of them make four times as many): four for a
// file, one for a small file; big bounds the big files among them. Many
// small files then go through four times file_concurrency at a time,
// which keeps the journal's group commits and the portal busy, while big
// files, whose memory counts, run a quarter as many at once.
// file_concurrency = 1 stays one file at a time: a small file takes a
// whole slot then (small is 4).
type slots struct {
	all, big *semaphore.Weighted
	small    int64 // quarters a small file takes
}

// fileSlots are the slots of a level: the inbox's pace (file_concurrency,
// grown while round trips are the limit) less the files running in the
// background, and a quarter of file_concurrency (at least one) less those
// for big files.
func (in *Inbox) fileSlots() slots {
	running := in.runningCount()
	s := slots{
		all:   semaphore.NewWeighted(int64(4 * max(in.pace.Width()-running, 1))),
		big:   semaphore.NewWeighted(int64(max(in.cfg.FileConcurrency/4-running, 1))),
		small: 1,
	}
	if in.cfg.FileConcurrency == 1 {
		s.small = 4
	}
	return s
}

func (s slots) quarters(size int64) int64 {
	if size < smallFile {
		return s.small
	}
	return 4
}

// acquire waits for the slot of a file of size bytes; false when ctx
// ended first (nothing is held then).
func (s slots) acquire(ctx context.Context, size int64) bool {
	q := s.quarters(size)
	if !take(ctx, s.all, q) {
		return false
	}
	if size >= bigFile && !take(ctx, s.big, 1) {
		s.all.Release(q)
		return false
	}
	return true
}

func (s slots) release(size int64) {
	if size >= bigFile {
		s.big.Release(1)
	}
	s.all.Release(s.quarters(size))
}

// take takes n of sem, at once when they are free (even once ctx ended),
// else when they free up before ctx ends.
func take(ctx context.Context, sem *semaphore.Weighted, n int64) bool {
	return sem.TryAcquire(n) || sem.Acquire(ctx, n) == nil
}
