package inbox

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// jobOutcome is what became of one claimed file in a round.
type jobOutcome struct {
	started  bool
	deferred bool
	res      FileResult
	err      error
}

// runJobs processes the round's sorted files level by level: the files of
// one dependency level run up to file_concurrency at a time, and a level
// starts once the one before it is through. A file whose dependencies are
// not finished (in any inbox of the portal) is deferred. After a failure
// that leaves a file for a retry, no new file starts; those running
// finish, and the round returns the retry error.
func (in *Inbox) runJobs(ctx, work context.Context, f folder.Folder, jobs []journal.File, res RoundResult) (RoundResult, error) {
	waiting := res.Waiting
	done := 0
	for i := 0; i < len(jobs); {
		j := i + 1
		for j < len(jobs) && in.level(jobs[j]) == in.level(jobs[i]) {
			j++
		}
		outs := in.runLevel(ctx, work, f, jobs[i:j])
		var firstErr error
		for k, o := range outs {
			row := jobs[i+k]
			switch {
			case o.deferred:
				res.Deferred++
			case !o.started:
				res.Retrying++
			case o.err != nil:
				res.Retrying++
				if firstErr == nil {
					firstErr = o.err
				}
			default:
				done++
				in.mu.Lock()
				delete(in.deferLog, row.ID)
				in.mu.Unlock()
				in.order.finished(in.cfg.Name, row.ID, !o.res.Held) // a held file does not hold up the others
				if o.res.Held {
					res.Held++
				} else {
					in.unhold(row.ID)
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

// runLevel runs the files of one level, up to file_concurrency at once.
func (in *Inbox) runLevel(ctx, work context.Context, f folder.Folder, level []journal.File) []jobOutcome {
	outs := make([]jobOutcome, len(level))
	limit := max(in.cfg.FileConcurrency, 1)
	sem := make(chan struct{}, limit)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for k, row := range level {
		if ctx.Err() != nil || failed.Load() {
			break
		}
		if b := in.order.blocker(in.level(row)); b != "" && in.level(row) != 99 {
			in.logDeferred(ctx, row, b)
			outs[k].deferred = true
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		if failed.Load() {
			<-sem
			break
		}
		outs[k].started = true
		wg.Go(func() {
			defer func() { <-sem }()
			fr, err := in.process(ctx, work, f, row, FileOptions{})
			outs[k].res, outs[k].err = fr, err
			if err != nil {
				failed.Store(true)
			}
		})
	}
	wg.Wait()
	return outs
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
