package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
)

func init() { rootCmd.AddCommand(newReplayCmd()) }

type replayFlags struct {
	cfgPath      string
	force, queue bool
}

// newReplayCmd builds `filebridge replay FILE`.
func newReplayCmd() *cobra.Command {
	var fl replayFlags
	cmd := &cobra.Command{
		Use:   "replay --config FILE [--force] [--queue] ID|NAME",
		Short: "Put a failed file back through the pipeline (after the data was fixed on the portal)",
		Long: `replay puts a file of the journal (its id as "files" lists it, or its name: the
newest of that name) back through its inbox's pipeline, typically after a clerk
created the missing SKU or supplier on the portal. A failed file is replayed as
it is; a processed or duplicate file only with --force (it then skips the
duplicate check). Documents the first run created are looked up on the portal by
their key, never created twice. The journal keeps both runs and links them
("show" names the replay and the original).

The file is copied from error/ (or processed/) back into the inbox under its
name. While filebridge run owns the journal (or with --queue) the daemon picks
it up at its next poll; otherwise replay runs the pipeline itself, as "process"
does, and prints where the file went.

Exit codes: as process: 0 every document is in the portal; 1 rows or documents
were rejected again, or the file needs --force; 2 usage or configuration error;
3 the portal, the folder or the journal could not be reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, fl, args[0])
		},
	}
	requireConfig(cmd, &fl.cfgPath)
	cmd.Flags().BoolVar(&fl.force, "force", false, "replay a processed or duplicate file too")
	cmd.Flags().BoolVar(&fl.queue, "queue", false, "only put the file back for the running daemon, do not process it here")
	return cmd
}

func runReplay(cmd *cobra.Command, fl replayFlags, ref string) error {
	ctx := cmd.Context()
	w := cmd.OutOrStdout()
	cfg, err := config.Load(fl.cfgPath)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if fl.queue {
		return replayQueued(ctx, cfg, fl, ref, w)
	}
	lock, err := app.AcquireJournalLock(cfg)
	if le := (*journal.LockedError)(nil); errors.As(err, &le) {
		// A daemon owns the journal: it takes the file from the inbox.
		return replayQueued(ctx, cfg, fl, ref, w)
	}
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	log := app.NewLogger(cfg.Log, cmd.ErrOrStderr())
	db, closeJournal, err := openLockedJournal(ctx, cfg, lock, log)
	if err != nil {
		return err
	}
	defer closeJournal()
	file, ic, err := replayTarget(ctx, cfg, db, ref)
	if err != nil {
		return err
	}
	in, f, closeInbox, err := inboxHere(ctx, cfg, ic, db, log)
	if err != nil {
		return err
	}
	defer closeInbox()
	name, err := inbox.Requeue(ctx, db, f, ic, file, fl.force, "cli")
	if err != nil {
		return withCode(requeueExit(err), err)
	}
	fmt.Fprintf(w, "replaying #%d %s (%s) as %s\n", file.ID, file.Name, file.State, name)
	res, err := in.ProcessFile(ctx, name)
	return fileOutcome(w, ic, res, err)
}

// replayQueued puts the file back for the running daemon, adding the
// replay request through a note handle (the daemon owns the journal).
func replayQueued(ctx context.Context, cfg *config.Config, fl replayFlags, ref string, w io.Writer) error {
	db, err := app.OpenJournalForNotes(ctx, cfg)
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	defer db.Close()
	file, ic, err := replayTarget(ctx, cfg, db, ref)
	if err != nil {
		return err
	}
	f, err := folder.Open(ctx, app.FolderOptions(ic.Folder, ic.SFTP, ic.OperationTimeout.Duration, nil))
	if err != nil {
		return withCode(exitUnreachable, fmt.Errorf("opening inbox %s: %w", ic.Name, err))
	}
	defer f.Close()
	name, err := inbox.Requeue(ctx, db, f, ic, file, fl.force, "cli")
	if err != nil {
		return withCode(requeueExit(err), err)
	}
	fmt.Fprintf(w, "#%d %s (%s) is back in inbox %s as %s: the running filebridge picks it up at its next poll; follow it with: filebridge show --config %s %s\n",
		file.ID, file.Name, file.State, ic.Name, name, fl.cfgPath, name)
	return nil
}

// replayTarget finds the file and its inbox in the config.
func replayTarget(ctx context.Context, cfg *config.Config, db *journal.DB, ref string) (journal.File, *config.Inbox, error) {
	files, err := db.FindFiles(ctx, ref)
	if err != nil {
		if isNotFound(err) {
			return journal.File{}, nil, withCode(exitUsage, err)
		}
		return journal.File{}, nil, withCode(exitUnreachable, err)
	}
	file := files[0]
	ic := cfg.Inbox(file.Inbox)
	if ic == nil {
		return journal.File{}, nil, withCode(exitUsage, fmt.Errorf("#%d %s came from inbox %q, which %s no longer configures", file.ID, file.Name, file.Inbox, cfg.File))
	}
	return file, ic, nil
}

func requeueExit(err error) int {
	if errors.Is(err, inbox.ErrNeedsForce) {
		return exitInvalid
	}
	if errors.Is(err, context.Canceled) {
		return exitUnreachable
	}
	return exitUsage
}
