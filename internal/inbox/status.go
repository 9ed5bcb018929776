package inbox

import (
	"context"
	"errors"
	"slices"
	"time"

	"filebridge/internal/journal"
)

// Status is what an inbox reports of itself, for /healthz: its last round,
// the files it has waiting, its retry backoff and its last error.
type Status struct {
	// RoundSince is when the round under way started (zero between
	// rounds).
	RoundSince time.Time
	// LastRound is the last finished round (zero before the first).
	LastRound RoundStatus
	// Queue counts the files waiting: seen in the inbox and not settled
	// yet, or claimed in processing/ and not finished.
	Queue int
	// Retrying counts the files the last round left in processing/ after
	// a transient failure or a refused token; NextRetry is when the next
	// round may run after a failure (zero: no backoff; it may be past
	// while the next round is due).
	Retrying  int
	NextRetry time.Time
	// LastError is the last error of a round or of the inbox folder, and
	// LastErrorAt when it happened; a later good round does not clear it
	// (LastRound.Error says whether the last round failed).
	LastError   string
	LastErrorAt time.Time
	// Held lists the files waiting in processing/ for master data not on
	// the portal yet, with the codes they wait for.
	Held []HeldFile
	// Ignored lists the entries of the inbox folder that are not taken
	// (no route matches, unsafe name, link leading outside), with why.
	Ignored []IgnoredFile
}

// RoundStatus sums up one finished round.
type RoundStatus struct {
	Start, End time.Time
	// Processed counts the files it finished in processed/ (done or
	// duplicate), Failed those it moved to error/, Retrying those it left
	// in processing/ for a retry.
	Processed, Failed, Retrying int
	// Error is why the round stopped early ("" when it did not).
	Error string
}

// Status returns the inbox's current status. It is safe to call while
// the inbox runs.
func (in *Inbox) Status() Status {
	in.mu.Lock()
	defer in.mu.Unlock()
	st := in.status
	st.NextRetry = in.retryAt
	for _, h := range in.held {
		st.Held = append(st.Held, h)
	}
	slices.SortFunc(st.Held, func(a, b HeldFile) int { return a.Since.Compare(b.Since) })
	st.Ignored = in.ignoredFiles()
	return st
}

func (in *Inbox) beginRound(start time.Time) {
	in.mu.Lock()
	in.status.RoundSince = start
	in.mu.Unlock()
}

func (in *Inbox) endRound(start time.Time, res RoundResult, err error) {
	rs := RoundStatus{Start: start, End: in.now(), Retrying: res.Retrying}
	for _, f := range res.Files {
		switch f.State {
		case journal.FileDone, journal.FileDuplicate:
			rs.Processed++
		case journal.FileFailed:
			rs.Failed++
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		rs.Error = err.Error()
		in.folderTrouble(err)
	} else if err == nil {
		in.folderFine()
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.status.RoundSince = time.Time{}
	in.status.LastRound = rs
	in.status.Retrying = res.Retrying
	if rs.Error != "" {
		in.status.LastError, in.status.LastErrorAt = rs.Error, rs.End
	}
}

// noteError records err as the inbox's last error and returns it.
func (in *Inbox) noteError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	in.folderTrouble(err)
	in.mu.Lock()
	in.status.LastError, in.status.LastErrorAt = err.Error(), in.now()
	in.mu.Unlock()
	return err
}

// folderError is noteError for a folder that could not be opened or
// listed: the inbox is degraded until it is listed again.
func (in *Inbox) folderError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	in.folderUnreachable(err)
	return in.noteError(err)
}

// setQueue records how many files wait (Status.Queue and the queue_depth
// metric).
func (in *Inbox) setQueue(n int) {
	in.metrics.queueDepth(in.cfg.Name, n)
	in.mu.Lock()
	in.status.Queue = n
	in.mu.Unlock()
}
