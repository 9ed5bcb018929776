package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"filebridge/internal/portalsim"
)

// TestSimProfileFlags: --profile and --choice pick the simulator's
// switches, bad ones are usage errors, and --help lists every switch and
// profile.
func TestSimProfileFlags(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown profile", []string{"--profile", "nope"}, "use one of documented"},
		{"unknown switch", []string{"--choice", "nope=on"}, `simulator choice "nope" is unknown`},
		{"bad value", []string{"--choice", "item-reads=500"}, "use one of 404, 403, served"},
		{"no value", []string{"--choice", "item-reads"}, "write name=value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, code := runCmd(t, newSimCmd(), append([]string{"--listen", "127.0.0.1:0"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, exitUsage, tt.want)
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		out, _ := execute(t, newSimCmd(), false, "--help")
		for _, name := range append(portalsim.ChoiceNames(), portalsim.ProfileNames()...) {
			if !strings.Contains(out.String(), name) {
				t.Errorf("--help does not list %s", name)
			}
		}
	})
	t.Run("serves the profile with the flips", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		pr, pw := io.Pipe()
		cmd := newSimCmd()
		cmd.SetOut(pw)
		cmd.SetErr(io.Discard)
		cmd.SetArgs([]string{"--listen", "127.0.0.1:0", "--tick", "0", "--profile", "other-side", "--choice", "item-reads=served", "--choice", "hydra-next=off"})
		done := make(chan error, 1)
		go func() { done <- cmd.ExecuteContext(ctx); pw.Close() }()
		base, profile := "", ""
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "base_url = "); ok {
				base = strings.TrimSuffix(strings.Trim(v, `"`), "/api")
			}
			if v, ok := strings.CutPrefix(line, "profile  = "); ok {
				profile = v
			}
			if strings.HasPrefix(line, "the warehouse moves") {
				break
			}
		}
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		if profile != "other-side (item-reads=served, hydra-next=off)" {
			t.Errorf("profile line %q", profile)
		}
		res, err := http.Get(base + "/_sim/stats")
		if err != nil {
			t.Fatal(err)
		}
		var st portalsim.Stats
		err = json.NewDecoder(res.Body).Decode(&st)
		res.Body.Close()
		want := map[string]string{"item-reads": "served", "hydra-next": "off", "order-filter": "fulfillmentStatus.code", "moving-pages": "on"}
		for k, v := range want {
			if err != nil || st.Choices[k] != v {
				t.Errorf("stats: %v, choice %s = %q, want %q", err, k, st.Choices[k], v)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sim stopped with %v", err)
		}
	})
}
