package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages and shell completions into DIR (used by make man)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeManAndCompletion(cmd.Root(), args[0])
		},
	})
}

// writeManAndCompletion writes DIR/man1/filebridge*.1 from the command
// tree, and DIR/completion/filebridge.{bash,zsh,fish}.
func writeManAndCompletion(root *cobra.Command, dir string) error {
	manDir := filepath.Join(dir, "man1")
	compDir := filepath.Join(dir, "completion")
	for _, d := range []string{manDir, compDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return withCode(exitUnreachable, fmt.Errorf("creating %s: %w", d, err))
		}
	}
	root.DisableAutoGenTag = true
	// No Title: each page is titled after its command (FILEBRIDGE-RUN(1), ...).
	hdr := &doc.GenManHeader{Section: "1", Source: "filebridge " + readBuildInfo().Version, Manual: "filebridge manual"}
	if err := doc.GenManTree(root, hdr, manDir); err != nil {
		return withCode(exitUnreachable, fmt.Errorf("writing the man pages into %s: %w", manDir, err))
	}
	for _, c := range []struct {
		file string
		gen  func(string) error
	}{
		{"filebridge.bash", func(p string) error { return root.GenBashCompletionFileV2(p, true) }},
		{"filebridge.zsh", root.GenZshCompletionFile},
		{"filebridge.fish", func(p string) error { return root.GenFishCompletionFile(p, true) }},
	} {
		if err := c.gen(filepath.Join(compDir, c.file)); err != nil {
			return withCode(exitUnreachable, fmt.Errorf("writing %s: %w", c.file, err))
		}
	}
	return nil
}
