package inbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

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
// attack (once), an unknown host key as a configuration problem, a full
// disk (ENOSPC, EDQUOT) as an error too.
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
	case diskFull(err):
		if in.health.InboxTrouble(in.cfg.Name, folderFull+err.Error()) {
			in.log.Error("inbox folder full: files wait in processing/ until space is freed there", "url", in.cfg.Folder.String(), "error", err)
		}
	}
}

// Reasons of an inbox's trouble that a round going through clears.
const (
	folderFull = "inbox folder full (free space there; files wait in processing/): "
	folderDown = "inbox folder unreachable: "
)

// diskFull reports whether err says a file system (or a quota) is full.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// folderUnreachable records that the inbox folder could not be opened or
// listed (an SFTP server down, a local folder gone), unless the error is
// one folderTrouble names more precisely. The caller logs it.
func (in *Inbox) folderUnreachable(err error) {
	if errors.Is(err, folder.ErrHostKeyMismatch) || errors.Is(err, folder.ErrHostKeyUnknown) || diskFull(err) {
		in.folderTrouble(err)
		return
	}
	in.health.InboxTrouble(in.cfg.Name, folderDown+err.Error())
}

// folderReached clears an outage of the folder once it was listed again.
func (in *Inbox) folderReached() {
	if strings.HasPrefix(in.health.Inbox(in.cfg.Name).Reason, folderDown) && in.health.InboxFine(in.cfg.Name) {
		in.log.Info("inbox folder reachable again", "url", in.cfg.Folder.String())
	}
}

// folderFine clears an inbox's trouble after a round went through.
func (in *Inbox) folderFine() {
	if in.health.InboxFine(in.cfg.Name) {
		in.log.Info("inbox folder fine again", "url", in.cfg.Folder.String())
	}
}
