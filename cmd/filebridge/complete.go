package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/journal"
)

// Shell completion of values: the inbox and outbox names of the --config
// already on the command line, the export types that outbox has, the
// states of `files --state`, and the newest files of the journal for show
// and replay. A completion that cannot read the config or the journal
// offers nothing rather than failing the shell.

// addCompletions registers the value completions on every command of
// root that has the flag or argument they complete.
func addCompletions(root *cobra.Command) {
	walk(root, func(c *cobra.Command) {
		for flag, fn := range map[string]cobra.CompletionFunc{
			"inbox":  completeNames(inboxNames),
			"outbox": completeNames(outboxNames),
		} {
			if c.Flags().Lookup(flag) != nil {
				_ = c.RegisterFlagCompletionFunc(flag, fn)
			}
		}
		switch c.Name() {
		case "files":
			_ = c.RegisterFlagCompletionFunc("state", completeStates)
		case "show", "replay", "ack":
			c.ValidArgsFunction = completeFiles
		case "export":
			c.ValidArgsFunction = completeExportTypes
		}
	})
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// completionConfig decodes the --config of cmd without resolving secrets
// (a completion needs no token); nil when there is none or it is broken.
func completionConfig(cmd *cobra.Command) *config.Config {
	f := cmd.Flags().Lookup("config")
	if f == nil || f.Value.String() == "" {
		return nil
	}
	cfg, err := decodeCheckConfig(f.Value.String())
	if err != nil {
		return nil
	}
	return cfg
}

func completeNames(names func(*config.Config) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		cfg := completionConfig(cmd)
		if cfg == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return withPrefix(names(cfg), prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

func completeStates(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	states := []string{
		string(journal.FileClaimed), string(journal.FileSubmitting), string(journal.FileDone),
		string(journal.FileFailed), string(journal.FileDuplicate), stateHeld,
	}
	return withPrefix(states, prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeExportTypes offers the export types of --outbox (of every
// outbox while none is named).
func completeExportTypes(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	cfg := completionConfig(cmd)
	if cfg == nil || len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	name := cmd.Flags().Lookup("outbox").Value.String()
	var types []string
	for _, o := range cfg.Outboxes {
		for _, e := range o.Exports {
			if t := string(e.Type); (name == "" || o.Name == name) && !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	return withPrefix(types, prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeFiles offers the ids of the journal's newest files, each with
// its name and state as the description ("16\tORDERS_1.csv, failed").
func completeFiles(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	cfg := completionConfig(cmd)
	if cfg == nil || len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Second)
	defer cancel()
	db, err := app.OpenJournalReadOnly(ctx, cfg)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	filter := journal.FileFilter{Limit: 50}
	switch cmd.Name() {
	case "replay":
		filter.States = []journal.FileState{journal.FileFailed}
		if force, _ := cmd.Flags().GetBool("force"); force {
			filter.States = nil
		}
	case "ack": // the open failures
		filter.States, filter.Unresolved = []journal.FileState{journal.FileFailed}, true
	}
	files, err := db.Files(ctx, filter)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, f := range files {
		id := fmt.Sprint(f.ID)
		if strings.HasPrefix(id, prefix) {
			out = append(out, fmt.Sprintf("%s\t%s, %s", id, f.Name, f.State))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
}

// withPrefix keeps the values that start with prefix (values is reused).
func withPrefix(values []string, prefix string) []string {
	return slices.DeleteFunc(values, func(v string) bool { return !strings.HasPrefix(v, prefix) })
}
