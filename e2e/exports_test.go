package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// withOutbox adds the outbox "out" (folder outDir) with the given exports,
// each on a yearly schedule, to the config at path.
func withOutbox(t testing.TB, path, outDir string, types ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(readFile(t, path))
	fmt.Fprintf(&b, "\n[[outboxes]]\nname = \"out\"\nportal = \"main\"\nurl = %q\n", outDir)
	for _, typ := range types {
		fmt.Fprintf(&b, "\n  [[outboxes.exports]]\n  type = %q\n  schedule = \"0 0 1 1 *\"\n  filename = \"{type}_{seq}.csv\"\n", typ)
	}
	mustWrite(t, path, b.String())
}

// TestExportWhileRunning checks issue 25's "export stock while run runs
// writes the file (exit 0)": `export` hands the run to the daemon that owns
// the journal over server.listen, waits for it and prints the file and its
// rows; --since goes along. Without server.listen it exits 3 and says how
// to enable it.
func TestExportWhileRunning(t *testing.T) {
	t.Parallel()
	s := startSim(t, "B", "--preload", "4")
	dir := t.TempDir()
	listen := testkit.FreeAddr(t)
	cfg := runConfig(t, dir, s, listen)
	outDir := mkdir(t, dir, "out")
	withOutbox(t, cfg, outDir, "stock", "items")
	p := start(t, "run", "run", "--config", cfg)
	p.waitRunning(t, 15*time.Second)
	pid := strconv.Itoa(p.cmd.Process.Pid)

	out, code := runCmd(t, 60*time.Second, "export", "--config", cfg, "--outbox", "out", "stock")
	if code != 0 {
		t.Fatalf("export stock while run runs: exit %d, want 0:\n%s", code, out)
	}
	m := wroteFile.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "(4 rows; run by filebridge run, PID "+pid+")") {
		t.Fatalf("export stock names no file written by the daemon with its 4 rows:\n%s", out)
	}
	body, err := os.ReadFile(filepath.Join(outDir, m[1]))
	if err != nil {
		t.Fatalf("the file export printed: %v", err)
	}
	if lines := strings.Count(strings.TrimSpace(string(body)), "\n"); lines != 4 {
		t.Errorf("%s holds %d rows, want 4:\n%s", m[1], lines, body)
	}

	// The cursor is the daemon's: a first items run exports the 4 variants,
	// a second nothing, and --since the 4 again without moving the cursor.
	for _, step := range []struct {
		args []string
		want string
	}{
		{nil, "(4 rows;"},
		{nil, "nothing to export"},
		{[]string{"--since", "2020-01-01"}, "(4 rows;"},
		{nil, "nothing to export"},
	} {
		args := append([]string{"export", "--config", cfg, "--outbox", "out", "items"}, step.args...)
		out, code := runCmd(t, 60*time.Second, args...)
		if code != 0 || !strings.Contains(out, step.want) {
			t.Errorf("%s: exit %d, want 0 and %q:\n%s", strings.Join(args, " "), code, step.want, out)
		}
	}
	if out, code := runCmd(t, 30*time.Second, "export", "--config", cfg, "--outbox", "out", "items", "--since", "someday"); code != 2 {
		t.Errorf("a bad --since: exit %d, want 2:\n%s", code, out)
	}
	if got := files(t, outDir); len(got) != 3 {
		t.Errorf("the outbox holds %q, want the stock file and two items files", got)
	}

	// The same daemon configuration without server.listen: nothing to
	// hand the run to.
	noListen := filepath.Join(dir, "nolisten.toml")
	mustWrite(t, noListen, strings.Replace(readFile(t, cfg), fmt.Sprintf("listen = %q", listen), `listen = ""`, 1))
	out, code = runCmd(t, 30*time.Second, "export", "--config", noListen, "--outbox", "out", "stock")
	if code != 3 {
		t.Errorf("export with server.listen \"\" while run runs: exit %d, want 3:\n%s", code, out)
	}
	for _, want := range []string{"PID " + pid, `server.listen is ""`, "[server] listen = "} {
		if !strings.Contains(out, want) {
			t.Errorf("export with server.listen \"\": the message lacks %q:\n%s", want, out)
		}
	}
	p.stopOK(t, "run")
}
