package inbox

import (
	"context"
	"errors"
	"fmt"

	"filebridge/internal/folder"
)

// checkJournal runs before a round: while the journal cannot be written
// nothing is claimed or submitted (a file claimed then could not be
// recorded). The inbox backs off and tries again, so it resumes by itself
// once the journal is writable again.
func (in *Inbox) checkJournal(ctx context.Context) error {
	err := in.j.CheckWritable(ctx)
	if err == nil {
		if in.health.JournalUp() {
			in.log.Info("journal writable again: inboxes resume", "journal", in.j.Path())
		}
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if in.health.JournalDown(err) {
		in.log.Error("journal not writable: every inbox pauses until it is; files wait where they are", "journal", in.j.Path(), "error", err)
	}
	return &retryError{err: fmt.Errorf("inbox %q paused: %w", in.cfg.Name, err)}
}

// folderTrouble records in Health a folder error that is not an ordinary
// outage: a host key that does not match is logged at ERROR as a possible
// attack (once), an unknown host key as a configuration problem.
func (in *Inbox) folderTrouble(err error) {
	switch {
	case errors.Is(err, folder.ErrHostKeyMismatch):
		if in.health.InboxTrouble(in.cfg.Name, "SFTP host key mismatch, possibly an attack: "+err.Error()) {
			in.log.Error("SFTP host key does not match: possibly an attack (man in the middle); nothing is read from or written to the folder until the key matches",
				"url", in.cfg.Folder.String(), "error", err)
		}
	case errors.Is(err, folder.ErrHostKeyUnknown):
		if in.health.InboxTrouble(in.cfg.Name, "SFTP host key unknown: "+err.Error()) {
			in.log.Error("SFTP host key unknown: add it to known_hosts", "url", in.cfg.Folder.String(), "error", err)
		}
	}
}

// folderFine clears an inbox's trouble after a round went through.
func (in *Inbox) folderFine() {
	if in.health.InboxFine(in.cfg.Name) {
		in.log.Info("inbox folder fine again", "url", in.cfg.Folder.String())
	}
}
