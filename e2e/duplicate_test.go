package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDuplicatePerPortal checks issue 8 point 5 with `process` and one
// journal, for both editions: the same content again on the same portal is
// a duplicate; once base_url points at another portal it is submitted
// there; `process --force` submits a known duplicate, finding the
// documents already on the portal instead of creating them twice.
func TestDuplicatePerPortal(t *testing.T) {
	t.Parallel()
	for _, ed := range []string{"A", "B"} {
		t.Run(ed, func(t *testing.T) {
			t.Parallel()
			sandbox, production := startSim(t, ed), startSim(t, ed)
			dir := t.TempDir()
			inbox := mkdir(t, dir, "in")
			cfg := runConfig(t, dir, sandbox, "", inboxSpec{name: "erp", url: inbox})
			prodCfg := filepath.Join(dir, "production.toml")
			mustWrite(t, prodCfg, strings.Replace(readFile(t, cfg), sandbox.Base, production.Base, 1))
			sample := filepath.Join(repoRoot, "samples", ed, "good", partnerSample[ed])
			process := func(config string, extra ...string) string {
				t.Helper()
				args := append([]string{"process", "--config", config, "--inbox", "erp"}, extra...)
				out, code := runCmd(t, 60*time.Second, append(args, sample)...)
				if code != 0 {
					t.Fatalf("filebridge %s: exit %d:\n%s", strings.Join(args, " "), code, out)
				}
				// The line that says what happened to the file.
				for line := range strings.SplitSeq(out, "\n") {
					if strings.HasPrefix(line, partnerSample[ed]+" (") {
						return line
					}
				}
				t.Fatalf("filebridge %s printed no result line:\n%s", strings.Join(args, " "), out)
				return ""
			}
			partners := func(s *sim) int { return s.stats(t).Counts["connections"] }

			process(cfg)
			created := partners(sandbox)
			if created == 0 {
				t.Fatalf("the first process created nothing on the sandbox")
			}
			if out := process(cfg); !strings.Contains(out, "duplicate") {
				t.Errorf("the same content on the same portal is not reported a duplicate:\n%s", out)
			}
			if n := partners(sandbox); n != created {
				t.Errorf("the duplicate changed the sandbox's partners from %d to %d", created, n)
			}

			if out := process(prodCfg); strings.Contains(out, "duplicate") {
				t.Errorf("the same content on another portal was reported a duplicate:\n%s", out)
			}
			if n := partners(production); n != created {
				t.Errorf("production holds %d partners after the file, want %d", n, created)
			}

			out := process(prodCfg, "--force")
			if strings.Contains(out, "duplicate") {
				t.Errorf("--force still reported a duplicate:\n%s", out)
			}
			if n := partners(production); n != created {
				t.Errorf("--force changed production's partners from %d to %d: documents created twice", created, n)
			}
			rep := readReport(t, findFile(t, filepath.Join(inbox, "processed"), stem(partnerSample[ed])+".3.report.csv"))
			if res := rep.results(); res["exists"] == 0 || res["created"] != 0 {
				t.Errorf("report of the forced file: %v, want every document \"exists\"", res)
			}
		})
	}
}
