package inbox

import (
	"context"
	"errors"
	"fmt"
	"io"

	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// ErrNeedsForce refuses to replay a file that went through (processed or
// duplicate) unless forced.
var ErrNeedsForce = errors.New("the file went through")

// ErrFixFile refuses, unless forced, to replay a file that failed in
// itself (journal.File.FixFile): the same bytes fail the same way.
var ErrFixFile = errors.New("the file failed in itself")

// Requeue puts a file of the journal back into its inbox for another run:
// it records a replay request in the journal, then copies the file from
// where it ended (error/ or processed/) into the inbox folder under its
// name (a free variant of it when the inbox holds one). The run that
// claims it, the daemon's or ProcessFile's, is linked to the original; a
// forced replay skips the duplicate check. Documents the first run
// created are looked up by the portal client, never created twice.
// It returns the name the file was put back under.
func Requeue(ctx context.Context, db *journal.DB, f folder.Folder, ic *config.Inbox, file journal.File, force bool, by string) (string, error) {
	switch {
	case file.Inbox != ic.Name:
		return "", fmt.Errorf("replaying #%d %s: it belongs to inbox %q, not %q", file.ID, file.Name, file.Inbox, ic.Name)
	case file.State.Open():
		return "", fmt.Errorf("replaying #%d %s: it is still in %s (%s): it finishes by itself, or run process with its name", file.ID, file.Name, ic.ProcessingDir, file.State)
	case file.State != journal.FileFailed && !force:
		return "", fmt.Errorf("replaying #%d %s: %w (%s); replay it again with --force (the console: the force box) to submit it once more", file.ID, file.Name, ErrNeedsForce, file.State)
	case file.FixFile && !force:
		return "", fmt.Errorf("replaying #%d %s: %w (rows invalid in the file, or file errors): a replay fails the same way; fix the file and drop it again (or replay it with --force)", file.ID, file.Name, ErrFixFile)
	case file.FinalPath == "":
		return "", fmt.Errorf("replaying #%d %s: the journal does not say where the file went", file.ID, file.Name)
	}
	if _, err := f.Stat(ctx, file.FinalPath); err != nil {
		return "", fmt.Errorf("replaying #%d %s: the original is no longer at %s: %w", file.ID, file.Name, file.FinalPath, err)
	}
	name, err := folder.UniqueName(ctx, f, ".", file.Name)
	if err != nil {
		return "", fmt.Errorf("replaying #%d %s: %w", file.ID, file.Name, err)
	}
	id, err := db.RequestReplay(ctx, journal.Replay{Inbox: ic.Name, Name: name, OriginalID: file.ID, Force: force, By: by})
	if err != nil {
		return "", err
	}
	err = copyWithin(ctx, f, file.FinalPath, name)
	if err != nil {
		if cerr := db.CancelReplay(context.WithoutCancel(ctx), id); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return "", fmt.Errorf("replaying #%d %s: putting it back into the inbox as %s: %w", file.ID, file.Name, name, err)
	}
	return name, nil
}

func copyWithin(ctx context.Context, f folder.Folder, from, to string) error {
	src, err := f.Open(ctx, from)
	if err != nil {
		return err
	}
	defer src.Close()
	return f.CreateAtomic(ctx, to, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
}

// replayOf links a file being processed to the replay request it answers
// (the claim hook of Requeue), makes the portal client forget the codes it
// believed missing, and reports whether it is a replay and whether that
// replay was forced, so that the duplicate check is skipped.
func (in *Inbox) replayOf(ctx context.Context, row journal.File) (replay, force bool) {
	r, found, err := in.j.LinkReplay(ctx, row)
	if err != nil {
		in.log.Warn("could not link the file to its replay request; it runs as an ordinary file", "file", row.Name, "error", err)
		return false, false
	}
	if found {
		in.log.Info("replaying a file", "file", row.Name, "file_id", row.ID, "replay_of", r.OriginalID, "force", r.Force, "by", r.By)
		// A file is replayed because its master data was just fixed on
		// the portal (by the console, `replay --queue` or a clerk): codes
		// believed missing are asked for again.
		in.p.ForgetMisses()
	}
	return found, found && r.Force
}
