// Command filebridge bridges file-based legacy systems with a logistics
// operator's customer-portal REST API. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes, as documented in the README.
const (
	exitOK          = 0
	exitInvalid     = 1 // the data or the portal said no
	exitUsage       = 2 // usage or configuration error
	exitUnreachable = 3 // could not reach a dependency
)

// exitError carries an exit code out of a command's RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so that main exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// rootCmd is the top of the command tree; every subcommand registers itself
// from its own file with an init function calling rootCmd.AddCommand.
var rootCmd = &cobra.Command{
	Use:           "filebridge",
	Short:         "Bridge CSV/XLSX file drops with the logistics customer-portal API",
	SilenceUsage:  true,
	SilenceErrors: true,
}

// requireConfig adds the --config flag of the commands that work on a
// configuration, into *path, and marks it required.
func requireConfig(cmd *cobra.Command, path *string) {
	cmd.Flags().StringVar(path, "config", "", "configuration file (required)")
	_ = cmd.MarkFlagRequired("config")
}

func main() {
	addCompletions(rootCmd)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := rootCmd.ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "filebridge:", err)
	}
	os.Exit(exitCode(err))
}

// exitCode is the exit status of a command's result.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Errors from cobra itself (unknown flag, missing argument) are usage errors.
	return exitUsage
}
