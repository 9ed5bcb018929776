package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

var completionsOnce sync.Once

// complete runs the shell's completion request (`filebridge __complete
// ARGS...`) through the command tree and returns what it offers.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	completionsOnce.Do(func() { addCompletions(rootCmd) })
	resetTree(rootCmd)
	var out bytes.Buffer
	rootCmd.SetOut(&out)
	rootCmd.SetErr(&bytes.Buffer{})
	rootCmd.SetArgs(append([]string{"__complete"}, args...))
	t.Cleanup(func() { rootCmd.SetArgs(nil); rootCmd.SetOut(nil); rootCmd.SetErr(nil) })
	if err := rootCmd.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("__complete %q: %v", args, err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line != "" && !strings.HasPrefix(line, ":") {
			got = append(got, line)
		}
	}
	return got
}

func TestCompletion(t *testing.T) {
	cfg := journalEnv(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"inbox names", []string{"files", "--config", cfg, "--inbox", ""}, []string{"erp"}},
		{"inbox prefix", []string{"process", "--config", cfg, "--inbox", "x"}, nil},
		{"states", []string{"files", "--config", cfg, "--state", "d"}, []string{"done", "duplicate"}},
		{"show: newest files first", []string{"show", "--config", cfg, ""},
			[]string{"3\tSUPPLIERS_2.csv, duplicate", "2\tSUPPLIERS_BAD.csv, failed", "1\tSUPPLIERS_1.csv, done"}},
		{"replay: failed files", []string{"replay", "--config", cfg, ""}, []string{"2\tSUPPLIERS_BAD.csv, failed"}},
		{"replay --force: any file", []string{"replay", "--config", cfg, "--force", "1"}, []string{"1\tSUPPLIERS_1.csv, done"}},
		{"ack: open failures", []string{"ack", "--config", cfg, ""}, []string{"2\tSUPPLIERS_BAD.csv, failed"}},
		{"no config: the flag it needs", []string{"show", ""}, []string{"--config\tconfiguration file (required)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := complete(t, tc.args...)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("offered %q, want %q", got, tc.want)
			}
		})
	}
}
