package inbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"slices"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// Several instances on one shared journal (PostgreSQL) take files from one
// inbox. A file is processed by exactly one of them:
//
//   - Claiming: the rename of the file into processing/ decides (a rename
//     that finds the file gone means another instance took it: skipped
//     silently), then the journal row is written with
//     journal.ClaimExclusive, which fails for a path that already has an
//     open row (whoever wrote it first holds the file).
//   - A file in processing/ without an open row is another instance's
//     claim between its rename and its row, or one left by a crash in
//     that window. An instance records it only once it has seen it without
//     a row for longer than the lease, and through ClaimExclusive again:
//     if the renaming instance writes its row meanwhile, one of the two
//     inserts fails and that instance lets the file go.
//   - Every claim carries a lease that its instance renews (the daemon's
//     KeepLeases). At every round an instance takes over the open files
//     whose lease ran out (journal.TakeOver: exactly one wins) and
//     resumes them from the journal; documents already sent are looked
//     up before any resend. A worker checks that it still holds its file
//     before each step that must happen once (sending a document, moving
//     the file out of processing/) and stops when it lost it.
//
// With a SQLite journal one instance owns the journal (its lock file):
// every open file is its own and nothing here applies.

// errLostFile stops the processing of a file another instance took over.
var errLostFile = errors.New("another instance took the file over: its lease ran out")

func (in *Inbox) shared() bool { return in.j.Shared() }

// mine keeps of the inbox's open files those this instance works on: on a
// shared journal the ones it holds, and those whose lease ran out that it
// takes over now.
func (in *Inbox) mine(ctx context.Context, rows []journal.File) ([]journal.File, error) {
	if !in.shared() || len(rows) == 0 {
		return rows, nil
	}
	leases, err := in.j.Leases(ctx, in.cfg.Name)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]journal.Lease, len(leases))
	for _, l := range leases {
		byID[l.FileID] = l
	}
	now := in.j.Now()
	out := rows[:0]
	for _, r := range rows {
		l, ok := byID[r.ID]
		switch {
		case !ok:
			continue // finished meanwhile
		case !l.Expired(now) && l.Owner == in.j.Instance():
		case !l.Expired(now):
			continue // another instance works on it
		default:
			won, err := in.j.TakeOver(ctx, r.ID)
			if err != nil {
				return nil, err
			}
			if !won {
				continue // another instance took it over first, or its holder renewed
			}
			if l.Owner != in.j.Instance() {
				in.log.Info("took over a file whose instance stopped renewing its lease: resuming it from the journal",
					"file", r.Name, "file_id", r.ID, "previous_instance", l.Owner, "lease_expired", l.Until)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// orphaned reports whether a file of processing/ without an open journal
// row is to be recorded by this instance: at once with a journal of its
// own, else once it was seen so for longer than the lease (the instance
// that renamed it writes its row well within that). present lists the
// paths of this listing's strays; the others are forgotten.
func (in *Inbox) orphaned(p string, e folder.Entry, present map[string]bool) bool {
	if !in.shared() {
		return true
	}
	present[p] = true
	if in.strays == nil {
		in.strays = map[string]look{}
	}
	now := in.j.Now()
	return now.Sub(lookAt(in.strays, p, e, now)) > in.j.Lease()
}

func (in *Inbox) forgetStrays(present map[string]bool) {
	maps.DeleteFunc(in.strays, func(p string, _ look) bool { return !present[p] })
}

// holds checks, before a step that must be done once, that this instance
// still holds the file; errLostFile when another one took it over.
func (fr *fileRun) holds(ctx context.Context) error {
	in := fr.in
	if !in.shared() || fr.row.ID == 0 {
		return nil
	}
	ok, err := in.j.Holds(ctx, fr.row.ID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s of inbox %q (file %d): %w", path.Base(fr.row.Path), in.cfg.Name, fr.row.ID, errLostFile)
	}
	return nil
}

// claimOrder returns the settled files in the order a round claims them,
// and how many it claims: with a journal of its own, all of them in
// listing order; on a shared journal only as many as it can start now
// (file_concurrency less the files running in the background), the files
// others depend on first and otherwise in a random order, so that the
// instances share the files out instead of all reaching for the same ones
// (the others stay in the inbox for the next round, which runs at once).
func (in *Inbox) claimOrder(settled []string) ([]string, int) {
	if !in.shared() {
		return settled, len(settled)
	}
	settled = slices.Clone(settled)
	rand.Shuffle(len(settled), func(i, j int) { settled[i], settled[j] = settled[j], settled[i] })
	slices.SortStableFunc(settled, func(a, b string) int { return cmp.Compare(in.rootOrder(a), in.rootOrder(b)) })
	return settled, max(in.cfg.FileConcurrency-in.runningCount(), 1)
}
