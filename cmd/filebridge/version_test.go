package main

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"command", []string{"version"}},
		{"flag", []string{"--version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := execute(t, rootCmd, false, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if !strings.HasPrefix(got, "filebridge ") || !strings.Contains(got, "revision ") || !strings.Contains(got, "go1.") {
				t.Errorf("output %q, want the version line with revision and Go version", got)
			}
		})
	}
}

func TestBuildInfoString(t *testing.T) {
	tests := []struct {
		b    buildInfo
		want string
	}{
		{buildInfo{Version: "dev", Go: "go1.26.0"}, "filebridge dev (revision unknown, go1.26.0)"},
		{buildInfo{Version: "v1.2.0", Revision: "abc123", Time: "2026-11-23T20:00:00Z", Go: "go1.26.0"},
			"filebridge v1.2.0 (revision abc123, committed 2026-11-23T20:00:00Z, go1.26.0)"},
		{buildInfo{Version: "dev", Revision: "abc123", Modified: true, Go: "go1.26.0"},
			"filebridge dev (revision abc123 with local changes, go1.26.0)"},
	}
	for _, tt := range tests {
		if got := tt.b.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
