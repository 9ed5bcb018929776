package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

func init() { rootCmd.AddCommand(newProcessCmd(), newReplayCmd()) }

// newProcessCmd builds `filebridge process`: one file through the inbound
// pipeline, now.
func newProcessCmd() *cobra.Command {
	var cfgPath, inboxName string
	var force bool
	cmd := &cobra.Command{
		Use:   "process --config FILE --inbox NAME [--force] FILE",
		Short: "Run one file through the inbound pipeline now",
		Long: `process takes one file through an inbox's pipeline now, without waiting for it to
settle: claim it into processing/, validate every row, submit its documents, write
NAME.report.csv (and NAME.rejected.csv when rows failed) and move it to
processed/YYYY/MM/DD/ or error/. It prints where the file went and why.

FILE is the name of a file in the inbox folder, or a path on this machine. A local
path outside the inbox is first copied into the inbox (under a free name if the
inbox already holds a different file of that name); the original is left alone.
A file whose content was already processed on the same portal (base URL and
company) is not submitted again: it goes to processed/ with a report naming the
earlier file. --force submits it anyway; documents already on the portal are
looked up by their key and reported "exists", never created twice.

Only one process owns a journal: while filebridge run owns it, process refuses
(exit 3) and says so; drop the file into the inbox folder instead.

Exit codes: 0 every document is in the portal (or the file is a duplicate);
1 rows or documents were rejected (see the report), the file is held in
processing/ for master data not on the portal yet (hold_missing), or the portal
refused the token; 2 usage or configuration error; 3 the portal, the folder or the journal
could not be reached (the file stays in processing/ and is retried by run or by
process with its name).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProcess(cmd, cfgPath, inboxName, args[0], inbox.FileOptions{Force: force})
		},
	}
	requireConfig(cmd, &cfgPath)
	cmd.Flags().StringVar(&inboxName, "inbox", "", "name of the inbox (required)")
	cmd.Flags().BoolVar(&force, "force", false, "submit the file even if its content was already processed on this portal")
	_ = cmd.MarkFlagRequired("inbox")
	return cmd
}

func runProcess(cmd *cobra.Command, cfgPath, inboxName, file string, opts inbox.FileOptions) error {
	ctx := cmd.Context()
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		return err
	}
	ic := cfg.Inbox(inboxName)
	if ic == nil {
		return withCode(exitUsage, fmt.Errorf("no inbox %q in %s: use one of %s", inboxName, cfg.File, orNone(inboxNames(cfg))))
	}
	// The log and the documents' progress line share stderr.
	term := newTermLine(cmd.ErrOrStderr())
	log := app.NewLogger(cfg.Log, term.Logs())
	lock, err := app.AcquireJournalLock(cfg)
	if err != nil {
		return lockRefusal(cfg, ic, file, err)
	}
	db, closeJournal, err := openLockedJournal(ctx, cfg, lock, log)
	if err != nil {
		return err
	}
	defer closeJournal()
	in, f, closeInbox, err := inboxHere(ctx, cfg, ic, db, log)
	if err != nil {
		return err
	}
	defer closeInbox()

	name, err := intoInbox(ctx, ic, f, file, log)
	if err != nil {
		return err
	}
	stop := showDocProgress(ctx, term, journalDocCounts(db, ic.Name, name))
	res, err := in.ProcessFileWith(ctx, name, opts)
	stop()
	return fileOutcome(cmd.OutOrStdout(), ic, res, err)
}

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
it is, unless it failed in itself (rows invalid in the file, file errors: fix
the file and drop it again); a processed or duplicate file, or such a failed
one, only with --force (it then skips the duplicate check). A replay that
succeeds resolves the failure (see files --state failed). Documents the first run created are looked up on the portal by
their key, never created twice. The journal keeps both runs and links them
("show" names the replay and the original).

The file is copied from error/ (or processed/) back into the inbox under its
name. While filebridge run owns the journal (or with --queue) the daemon picks
it up at its next poll; otherwise replay runs the pipeline itself, as "process"
does, and prints where the file went.

Exit codes: as process: 0 every document is in the portal; 1 rows or documents
were rejected again, or the file needs --force (it went through, or failed in
itself); 2 usage or configuration error;
3 the portal, the folder or the journal could not be reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, fl, args[0])
		},
	}
	requireConfig(cmd, &fl.cfgPath)
	cmd.Flags().BoolVar(&fl.force, "force", false, "replay a processed or duplicate file, or one that failed in itself, too")
	cmd.Flags().BoolVar(&fl.queue, "queue", false, "only put the file back for the running daemon, do not process it here")
	return cmd
}

func runReplay(cmd *cobra.Command, fl replayFlags, ref string) error {
	ctx := cmd.Context()
	w := cmd.OutOrStdout()
	cfg, err := loadConfig(fl.cfgPath)
	if err != nil {
		return err
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
	name, err := requeue(ctx, db, f, ic, file, fl.force)
	if err != nil {
		return err
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
	name, err := requeue(ctx, db, f, ic, file, fl.force)
	if err != nil {
		return err
	}
	who := "the running filebridge picks it up at its next poll"
	if !daemonOwns(cfg) {
		who = "no filebridge run owns this journal now, so it waits there until one starts (or replay it without --queue to process it here)"
	}
	fmt.Fprintf(w, "#%d %s (%s) is back in inbox %s as %s: %s; follow it with: filebridge show --config %s %s\n",
		file.ID, file.Name, file.State, ic.Name, name, who, fl.cfgPath, name)
	return nil
}

// daemonOwns reports whether a filebridge run may take a queued file: on
// SQLite, whether another process holds the journal's lock; on a shared
// PostgreSQL journal this process cannot tell, and says so as if one did.
func daemonOwns(cfg *config.Config) bool {
	lock, err := app.AcquireJournalLock(cfg)
	if err != nil || lock == nil {
		return true
	}
	_ = lock.Release()
	return false
}

// replayTarget finds the file and its inbox in the config.
func replayTarget(ctx context.Context, cfg *config.Config, db *journal.DB, ref string) (journal.File, *config.Inbox, error) {
	files, err := findFiles(ctx, db, ref)
	if err != nil {
		return journal.File{}, nil, err
	}
	file := files[0]
	ic := cfg.Inbox(file.Inbox)
	if ic == nil {
		return journal.File{}, nil, withCode(exitUsage, fmt.Errorf("#%d %s came from inbox %q, which %s no longer configures", file.ID, file.Name, file.Inbox, cfg.File))
	}
	return file, ic, nil
}

// requeue puts file back into its inbox for a replay (inbox.Requeue),
// with the exit code of its failure.
func requeue(ctx context.Context, db *journal.DB, f folder.Folder, ic *config.Inbox, file journal.File, force bool) (string, error) {
	name, err := inbox.Requeue(ctx, db, f, ic, file, force, "cli")
	switch {
	case errors.Is(err, inbox.ErrNeedsForce) || errors.Is(err, inbox.ErrFixFile):
		return "", withCode(exitInvalid, err)
	case errors.Is(err, context.Canceled):
		return "", withCode(exitUnreachable, err)
	case err != nil:
		return "", withCode(exitUsage, err)
	}
	return name, nil
}

// openLockedJournal opens cfg's journal, whose lock this process holds;
// closeAll closes it and then releases the lock. On failure the lock is
// released at once.
func openLockedJournal(ctx context.Context, cfg *config.Config, lock *journal.Lock, log *slog.Logger) (db *journal.DB, closeAll func(), err error) {
	release := func() {
		if rerr := lock.Release(); rerr != nil {
			log.Warn("releasing the journal lock", "error", rerr)
		}
	}
	db, err = app.OpenJournal(ctx, cfg)
	if err != nil {
		release()
		return nil, nil, withCode(exitUnreachable, err)
	}
	return db, func() {
		_ = db.Close()
		release()
	}, nil
}

// inboxHere builds the portal client and the inbox ic on db, for a
// command that processes a file in this process (process, replay), and
// opens the inbox's folder; closeAll releases them.
func inboxHere(ctx context.Context, cfg *config.Config, ic *config.Inbox, db *journal.DB, log *slog.Logger) (in *inbox.Inbox, f folder.Folder, closeAll func(), err error) {
	pc, err := app.NewPortal(cfg.Portal(ic.Portal), app.PortalOptions{Logger: log})
	if err != nil {
		return nil, nil, nil, withCode(exitUsage, err)
	}
	if err := app.BackfillPortal(ctx, db, ic.Name, pc, log); err != nil {
		pc.Close()
		return nil, nil, nil, withCode(exitUnreachable, err)
	}
	in, err = inbox.New(*ic, inbox.Deps{Journal: db, Portal: pc, Logger: log, Concurrency: app.InboxWorkers(cfg.Portal(ic.Portal)),
		Folder: app.FolderOptions(ic.Folder, ic.SFTP, ic.OperationTimeout.Duration, nil)})
	if err != nil {
		pc.Close()
		return nil, nil, nil, withCode(exitUsage, err)
	}
	closeAll = func() {
		_ = in.Close()
		pc.Close()
	}
	if f, err = in.Folder(ctx); err != nil {
		closeAll()
		return nil, nil, nil, withCode(exitUnreachable, err)
	}
	return in, f, closeAll, nil
}

// fileOutcome prints what became of a file processed here and turns it
// into the command's exit: 1 when it failed or is held for master data.
func fileOutcome(w io.Writer, ic *config.Inbox, res inbox.FileResult, err error) error {
	if err != nil {
		return processFailure(ic, res, err)
	}
	printResult(w, ic, res)
	if res.Held {
		return withCode(exitInvalid, fmt.Errorf("%s stays in %s, held for master data not on the portal yet; it is tried again by run, or by process with the file's name: %s",
			res.Name, ic.ProcessingDir, res.Message))
	}
	if res.State == journal.FileFailed {
		return withCode(exitInvalid, fmt.Errorf("%s: %s", res.Name, res.Message))
	}
	return nil
}

// lockRefusal explains why process cannot run while another filebridge
// (a daemon, usually) owns the journal: exit 3. process refuses rather
// than hand the file over, so that a file is only ever claimed and
// submitted by the journal's one owner.
func lockRefusal(cfg *config.Config, ic *config.Inbox, file string, err error) error {
	var le *journal.LockedError
	if !errors.As(err, &le) {
		return withCode(exitUnreachable, err)
	}
	owner := "another filebridge process"
	if le.PID > 0 {
		owner = fmt.Sprintf("another filebridge process (PID %d, usually `filebridge run`)", le.PID)
	}
	return withCode(exitUnreachable, fmt.Errorf("not processing %s: %s owns journal %s and processes the files of inbox %q itself: drop the file into %s and it is picked up there, or stop that process and run process again: %w",
		file, owner, cfg.Journal.Path, ic.Name, ic.Folder, err))
}

// intoInbox returns the inbox name of FILE: a name already in the inbox,
// or a local path, copied into the inbox first unless it is already there.
func intoInbox(ctx context.Context, ic *config.Inbox, f folder.Folder, file string, log *slog.Logger) (string, error) {
	st, statErr := os.Stat(file)
	local := statErr == nil && st.Mode().IsRegular()
	if !local {
		if strings.ContainsAny(file, `/\`) {
			if statErr == nil {
				return "", withCode(exitUsage, fmt.Errorf("%s is not a regular file", file))
			}
			return "", withCode(exitUsage, fmt.Errorf("reading %s: %w", file, statErr))
		}
		return file, nil // a name in the inbox
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", withCode(exitUsage, err)
	}
	base := filepath.Base(abs)
	if !ic.Folder.IsSFTP() && filepath.Dir(abs) == filepath.Clean(ic.Folder.Path) {
		return base, nil // already in the inbox
	}
	name, err := folder.UniqueName(ctx, f, ".", base)
	if err != nil {
		return "", withCode(exitUnreachable, err)
	}
	src, err := os.Open(abs)
	if err != nil {
		return "", withCode(exitUsage, err)
	}
	defer src.Close()
	if err := f.CreateAtomic(ctx, name, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	}); err != nil {
		return "", withCode(exitUnreachable, fmt.Errorf("copying %s into inbox %s: %w", file, ic.Name, err))
	}
	log.Info("copied the file into the inbox", "inbox", ic.Name, "from", abs, "name", name)
	return name, nil
}

// processFailure explains a file that did not finish, with its exit code.
func processFailure(ic *config.Inbox, res inbox.FileResult, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist) && !inbox.IsRetry(err):
		return withCode(exitUsage, err)
	case portal.IsAuth(err):
		return withCode(exitInvalid, fmt.Errorf("%s stays in %s: %s, then run process again with the file's name: %w",
			res.Name, ic.ProcessingDir, portal.Hint(err, ic.Portal), err))
	case inbox.IsRetry(err):
		if hint := portal.Hint(err, ic.Portal); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		return withCode(exitUnreachable, fmt.Errorf("%s stays in %s and is retried later (by run, or process with the file's name): %w",
			cmp.Or(res.Name, "the file"), ic.ProcessingDir, err))
	}
	return withCode(exitUnreachable, err)
}

// printResult says where the file went and why.
func printResult(w io.Writer, ic *config.Inbox, res inbox.FileResult) {
	fmt.Fprintf(w, "%s (%s, %d rows): %s\n", res.Name, cmp.Or(res.DocType, "unknown type"), res.Rows, res.Message)
	if res.FinalPath != "" {
		fmt.Fprintf(w, "  moved to    %s\n", inboxPath(ic, res.FinalPath))
	}
	if res.ReportPath != "" {
		fmt.Fprintf(w, "  report      %s\n", inboxPath(ic, res.ReportPath))
	}
	if res.RejectedPath != "" {
		fmt.Fprintf(w, "  rejected    %s (fix these rows and drop the file again)\n", inboxPath(ic, res.RejectedPath))
	}
}
