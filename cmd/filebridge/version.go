package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=..."; without
// it the module version from the build info is used, and "dev" otherwise.
var version = "dev"

// buildInfo is what `filebridge version` prints.
type buildInfo struct {
	Version  string // release version, or "dev"
	Revision string // VCS revision (short), "" when the build did not stamp it
	Modified bool   // the work tree had uncommitted changes
	Time     string // VCS commit time (RFC 3339), "" when unknown
	Go       string
}

// readBuildInfo collects the version, VCS revision and build date from
// debug.ReadBuildInfo (stamped by `go build` in a git checkout, unless
// -buildvcs=false).
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if b.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
			if len(b.Revision) > 12 {
				b.Revision = b.Revision[:12]
			}
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is one line: "filebridge dev (revision abc123, committed 2026-11-23T20:00:00Z, go1.26.0)".
func (b buildInfo) String() string {
	rev := "revision unknown"
	if b.Revision != "" {
		rev = "revision " + b.Revision
		if b.Modified {
			rev += " with local changes"
		}
	}
	parts := []string{rev}
	if b.Time != "" {
		// vcs.time is the commit's time, not the build's: say so.
		parts = append(parts, "committed "+b.Time)
	}
	parts = append(parts, b.Go)
	return fmt.Sprintf("filebridge %s (%s)", b.Version, strings.Join(parts, ", "))
}

func init() {
	rootCmd.Version = readBuildInfo().String()
	rootCmd.SetVersionTemplate("{{.Version}}\n")
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the filebridge version, VCS revision and commit date",
		Long: `version prints the release version ("dev" for a build from a checkout), the VCS
revision and commit date stamped by go build, and the Go version. filebridge
--version prints the same line.`,
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), readBuildInfo().String())
		},
	})
}
