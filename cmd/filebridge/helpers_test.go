package main

import (
	"bytes"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"filebridge/internal/portalsim"
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

// runCmd returns the standard output of cmd run with args, its error
// after "error: ", and its exit code.
func runCmd(t *testing.T, cmd *cobra.Command, args ...string) (string, int) {
	t.Helper()
	out, err := execute(t, cmd, false, args...)
	if err != nil {
		out.WriteString("error: " + err.Error())
	}
	return out.String(), exitCode(err)
}

// startSim serves a portal simulator with opts until the test ends; its
// base_url is srv.URL + "/api".
func startSim(t *testing.T, opts portalsim.Options) (*portalsim.Sim, *httptest.Server) {
	t.Helper()
	sim, err := portalsim.New(opts)
	if err != nil {
		t.Fatalf("portal simulator: %v", err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	return sim, srv
}

// writeFile writes data to path with perm and returns path.
func writeFile(t *testing.T, path, data string, perm os.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// missingInOrder looks for each of want in out after the one before and
// returns the first it lacks, with true; false when out has them all in
// that order.
func missingInOrder(out string, want []string) (string, bool) {
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			return w, true
		}
		rest = rest[i+len(w):]
	}
	return "", false
}
