package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"filebridge/internal/model"
	"filebridge/internal/templates"
)

func init() { rootCmd.AddCommand(newTemplatesCmd()) }

// newTemplatesCmd builds `filebridge templates`: write the blank CSV and
// XLSX files of every document type.
func newTemplatesCmd() *cobra.Command {
	var edition, out string
	cmd := &cobra.Command{
		Use:   "templates",
		Short: "Write a CSV and an XLSX template, and a fixed-width sample, for every document type",
		Long: `Write, for each inbound document type, a CSV template (the header row only; docs/columns.md
shows an example of every column) and an XLSX template (a "data" sheet to fill in, with code and
EAN columns formatted as text, an "example" sheet with one filled-in row, and a "columns" sheet
describing every column: required, type, limits, example). No template holds an example in the
rows filebridge reads, so a forgotten example row is never submitted. For fixed-width hosts,
NAME.fixed.txt is a sample file of the example row and NAME.fixed.toml the route (format = "fixed"
and its layout) that reads it.

With --edition the files go into --out; without it, both editions go into OUT/A and OUT/B.`,
		Example: `  filebridge templates --edition A --out ./templates
  filebridge templates --out ./templates`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return withCode(exitUsage, fmt.Errorf("--out is required: the folder to write the templates into"))
			}
			editions, dir := model.Editions, func(e model.Edition) string { return filepath.Join(out, string(e)) }
			if edition != "" {
				e, err := model.ParseEdition(edition)
				if err != nil {
					return withCode(exitUsage, fmt.Errorf("--edition: %w", err))
				}
				editions, dir = []model.Edition{e}, func(model.Edition) string { return out }
			}
			for _, e := range editions {
				paths, err := templates.Write(dir(e), e)
				if err != nil {
					return fmt.Errorf("writing edition %s templates: %w", e, err)
				}
				for _, p := range paths {
					fmt.Fprintln(cmd.OutOrStdout(), p)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&edition, "edition", "", "API edition, A or B (default: both, into OUT/A and OUT/B)")
	cmd.Flags().StringVar(&out, "out", "", "folder to write the templates into (required)")
	return cmd
}
