package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/journal"
)

func init() { rootCmd.AddCommand(newAckCmd()) }

type ackFlags struct{ cfgPath, note string }

// newAckCmd builds `filebridge ack ID|NAME`: a failure resolved by hand.
func newAckCmd() *cobra.Command {
	var fl ackFlags
	cmd := &cobra.Command{
		Use:   "ack --config FILE [--note TEXT] ID|NAME",
		Short: "Acknowledge a failed file: it leaves the open failures",
		Long: `ack resolves a failed file of the journal by hand (its id as "files" lists it,
or its name: the newest of that name): the failure was taken care of another
way (the order entered on the portal, the file not needed). It leaves the open
failures ("files --state failed", the console's Failed list); the journal
records who (this OS user), when and the --note. After error_retention its files
move out of error/ to error/resolved/YYYY/MM/.

A failure is also resolved without ack when its replay succeeds, or when later
files put every document it did not get into the portal (a corrected re-drop
under any name).

It works while filebridge run owns the journal.

Exit codes: 0 acknowledged; 1 the file did not fail, or is resolved already;
2 usage or configuration error, or no such file; 3 the journal could not be
reached.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAck(cmd.Context(), fl, args[0], osUser(), cmd.OutOrStdout())
		},
	}
	requireConfig(cmd, &fl.cfgPath)
	cmd.Flags().StringVar(&fl.note, "note", "", "how the failure was taken care of, kept in the journal")
	return cmd
}

// osUser is who runs the command, for the journal.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return cmp.Or(os.Getenv("USER"), "cli")
}

func runAck(ctx context.Context, fl ackFlags, ref, who string, w io.Writer) error {
	cfg, err := decodeCheckConfig(fl.cfgPath)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("config %s: %w", fl.cfgPath, err))
	}
	db, err := app.OpenJournalForNotes(ctx, cfg) // run may own it
	if err != nil {
		return withCode(exitUnreachable, err)
	}
	defer db.Close()
	files, err := findFiles(ctx, db, ref)
	if err != nil {
		return err
	}
	f, err := db.Acknowledge(ctx, files[0].ID, who, fl.note)
	switch {
	case errors.Is(err, journal.ErrNotFailed), errors.Is(err, journal.ErrResolved):
		return withCode(exitInvalid, fmt.Errorf("#%d %s: %w", files[0].ID, files[0].Name, err))
	case err != nil:
		return withCode(exitUnreachable, err)
	}
	fmt.Fprintf(w, "#%d %s: resolved, %s\n", f.ID, f.Name, f.Resolved)
	return nil
}
