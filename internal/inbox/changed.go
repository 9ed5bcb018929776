package inbox

import (
	"context"
	"fmt"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// A file may change after its claim: its writer paused longer than settle
// and went on writing (appending to the file now in processing/), or the
// file was rewritten in processing/ while filebridge was down. Such a file
// is never finished as it was read: it is read again whole once it settled
// (its size and modification time unchanged for settle), its documents
// already settled are not sent again (one whose rows changed is looked up
// and compared), those no longer in it are settled unsent, and the report
// says so.

// minResettle is the settle wait of a changed file when the inbox's settle
// is 0 (files are taken as soon as seen, or by done marker).
const minResettle = time.Second

// keepClaimLook records what the claim of a file saw of it (size and
// modification time), for its processing in this process.
func (in *Inbox) keepClaimLook(id int64, l look) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.claimLooks == nil {
		in.claimLooks = map[int64]look{}
	}
	in.claimLooks[id] = l
}

// takeClaimLook hands over what the claim of a file saw of it (ok false
// when this process did not claim it: a resume).
func (in *Inbox) takeClaimLook(id int64) (look, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	l, ok := in.claimLooks[id]
	delete(in.claimLooks, id)
	return l, ok
}

// changedSince reports whether the file in processing/ is no longer the
// size or modification time it had when it was read. A local file read
// in place is asked through its open handle, not its folder.
func (fr *fileRun) changedSince(ctx context.Context, l look) (bool, error) {
	var now look
	var err error
	if fr.src.file != nil {
		now, err = fr.src.look()
	} else {
		var e folder.Entry
		e, err = fr.f.Stat(ctx, fr.row.Path)
		now = look{size: e.Size, mtime: e.ModTime}
	}
	if err != nil {
		return false, fmt.Errorf("checking whether %s changed since it was read: %w", fr.row.Path, err)
	}
	return now.size != l.size || !now.mtime.Equal(l.mtime), nil
}

// reread waits until the file settled again, then opens it anew (hashed)
// as fr.src and records its new size and hash.
func (fr *fileRun) reread(ctx context.Context) error {
	in, row := fr.in, &fr.row
	settle := in.cfg.Settle.Duration
	if settle <= 0 {
		settle = minResettle
	}
	fr.log.Info("file changed after its claim: reading it again whole once it settles", "size_claimed", row.Size, "settle", settle)
	prev, err := fr.f.Stat(ctx, row.Path)
	for err == nil {
		if err := in.sleepUntil(fr.stop, in.now().Add(settle)); err != nil {
			return err
		}
		cur, serr := fr.f.Stat(ctx, row.Path)
		if serr == nil && cur.Size == prev.Size && cur.ModTime.Equal(prev.ModTime) {
			break
		}
		prev, err = cur, serr
	}
	if err != nil {
		return fmt.Errorf("waiting for %s to settle again: %w", row.Path, err)
	}
	src, err := in.openSource(ctx, fr.f, row.Path, true, 0)
	if err != nil {
		return err
	}
	_ = fr.src.Close()
	fr.src = src
	from := row.Size
	fr.changed, fr.problems = true, nil
	row.Size, row.SHA256 = src.size, src.sha
	if err := in.j.UpdateFile(ctx, *row); err != nil {
		return err
	}
	fr.changeNote = fmt.Sprintf("the file changed after it was claimed (%d bytes then, %d now; was its writer not done?): it was read again whole once it had not changed for %s; documents already in the portal were not sent again",
		from, src.size, settle)
	return nil
}

// settleGone settles unsent the documents an earlier reading of a changed
// file recorded and its last reading no longer has: the file would never
// finish with them open.
func (fr *fileRun) settleGone(ctx context.Context) error {
	if !fr.changed || fr.keys == nil {
		return nil
	}
	docs, err := fr.in.j.Documents(ctx, fr.row.ID)
	if err != nil {
		return err
	}
	var gone []journal.Document
	var sent, unsent []string
	for _, d := range docs {
		if d.Result.Final() || fr.keys[d.Key] {
			continue
		}
		if d.Result == journal.ResultSending {
			d.Result, d.Message = journal.ResultFailed, sentGone
			sent = append(sent, d.Key)
		} else {
			d.Result, d.Message = journal.ResultSkipped, unsentGone
			unsent = append(unsent, d.Key)
		}
		gone = append(gone, d)
	}
	if len(gone) == 0 {
		return nil
	}
	if len(sent) > 0 {
		fr.notes = append(fr.notes, fmt.Sprintf("%s: %s", shortList(sent), sentGone))
	}
	if len(unsent) > 0 {
		fr.notes = append(fr.notes, fmt.Sprintf("%s: %s", shortList(unsent), unsentGone))
	}
	return fr.in.j.SetResults(ctx, fr.row.ID, gone)
}

// The messages of documents an earlier reading of a changed file recorded
// and its last reading no longer has.
const (
	sentGone   = "sent before the file changed, and no longer in it: check on the portal whether it exists"
	unsentGone = "not submitted: no longer in the file, which changed after its claim"
)
