package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/spf13/cobra"
)

// execute runs cmd with args in process and returns its standard output
// (with its standard error when withStderr; else that is dropped) and its
// error; exitCode(err) is the status main would exit with.
func execute(t *testing.T, cmd *cobra.Command, withStderr bool, args ...string) (*bytes.Buffer, error) {
	t.Helper()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	if withStderr {
		cmd.SetErr(&out)
	}
	cmd.SetArgs(args)
	return &out, cmd.ExecuteContext(t.Context())
}
