package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// process is a filebridge subprocess.
type process struct {
	name    string
	cmd     *exec.Cmd
	out     *testkit.Buffer
	done    chan struct{}
	err     error
	started time.Time
}

// start runs the binary with args; the process is killed when the test
// ends, and its output logged when the test failed.
func start(t testing.TB, name string, args ...string) *process {
	t.Helper()
	return startEnv(t, name, nil, args...)
}

// startEnv is start with more environment variables ("K=V").
func startEnv(t testing.TB, name string, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	return startCmd(t, name, cmd)
}

// startCmd starts cmd as the process name, its output kept (and shown
// when the test fails), killed at the end of the test.
func startCmd(t testing.TB, name string, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{name: name, cmd: cmd, out: &testkit.Buffer{}, done: make(chan struct{}), started: time.Now()}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	running.Store(p, true)
	t.Cleanup(func() {
		running.Delete(p)
		p.kill()
		if t.Failed() {
			t.Logf("--- output of %s ---\n%s", name, tail(p.out.String(), 12000))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// kill sends SIGKILL and waits.
func (p *process) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// ready tells whether p logged its "filebridge running" line.
func (p *process) ready() bool {
	return strings.Contains(p.out.String(), "filebridge running")
}

// waitRunning waits up to limit for p's "filebridge running" log line.
func (p *process) waitRunning(t testing.TB, limit time.Duration) {
	t.Helper()
	waitFor(t, limit, "the daemon running", p.ready)
}

// stop sends SIGTERM and waits up to limit for the exit; it returns the
// exit code (-1 when it had to be killed, or died of the signal). A daemon
// started moments ago may not handle signals yet: stop first waits (up to
// 5s after the start) for its "filebridge running" log line.
func (p *process) stop(t testing.TB, limit time.Duration) int {
	t.Helper()
	for !p.exited() && time.Since(p.started) < 5*time.Second && !p.ready() {
		time.Sleep(10 * time.Millisecond)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		p.kill()
		t.Errorf("%s did not stop within %s of SIGTERM", p.name, limit)
		return -1
	}
}

// stopOK stops the process like stop, giving it 25s, and fails the test
// unless it exits 0; what names it in the message.
func (p *process) stopOK(t testing.TB, what string) {
	t.Helper()
	if code := p.stop(t, 25*time.Second); code != 0 {
		t.Errorf("%s exited with %d after SIGTERM", what, code)
	}
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// runCmd runs the binary to completion and returns its output and exit code.
func runCmd(t testing.TB, timeout time.Duration, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("filebridge %s did not finish within %s:\n%s", strings.Join(args, " "), timeout, out)
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running filebridge %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	return string(out), code
}

// get GETs url: its status code and body, or why it did not answer.
func get(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// healthz GETs /healthz of the daemon serving on listen: its status code
// and body (0 and "" when it does not answer).
func healthz(listen string) (int, string) {
	code, body, _ := get("http://" + listen + "/healthz")
	return code, body
}

// waitHealthz waits up to limit for /healthz at listen to answer code with
// a body holding want ("": any body), and returns that body.
func waitHealthz(t testing.TB, listen string, limit time.Duration, code int, want string) string {
	t.Helper()
	var body string
	waitFor(t, limit, fmt.Sprintf("/healthz to answer %d with %q", code, want), func() bool {
		var got int
		got, body = healthz(listen)
		return got == code && strings.Contains(body, want)
	})
	return body
}

// lookedAfter waits up to limit until /healthz at listen shows a finished
// round of the inbox that started after since: the daemon looked at the
// inbox after that moment. It returns when that round ended, and false
// when none came within limit.
func lookedAfter(listen, inbox string, since time.Time, limit time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(limit)
	for {
		_, body := healthz(listen)
		var h struct {
			Inboxes map[string]struct {
				LastRound *struct{ Started, Ended time.Time } `json:"last_round"`
			} `json:"inboxes"`
		}
		if json.Unmarshal([]byte(body), &h) == nil {
			if r := h.Inboxes[inbox].LastRound; r != nil && r.Started.After(since) {
				return r.Ended, true
			}
		}
		if time.Now().After(deadline) {
			return time.Time{}, false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// roundsAfter waits until the daemon at listen finished n rounds of the
// inbox one after the other, the first started after since: what a test
// observes before asserting that something was NOT done by them.
func roundsAfter(t testing.TB, listen, inbox string, since time.Time, n int) {
	t.Helper()
	for i := range n {
		ended, ok := lookedAfter(listen, inbox, since, 30*time.Second)
		if !ok {
			dumpStuck()
			t.Fatalf("inbox %s finished no round %d started after %s within 30s", inbox, i+1, since.Format(time.RFC3339Nano))
		}
		since = ended
	}
}

// running holds the daemons started by start, for dumpStuck.
var running sync.Map

// dumpStuck writes a goroutine dump of every running daemon into the file
// named by $E2E_DUMP (when set): it helps to find why a wait timed out.
func dumpStuck() {
	file := os.Getenv("E2E_DUMP")
	if file == "" {
		return
	}
	var all strings.Builder
	running.Range(func(k, _ any) bool {
		p := k.(*process)
		if !p.exited() {
			_ = p.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-p.done:
			case <-time.After(2 * time.Second):
			}
		}
		fmt.Fprintf(&all, "=== %s ===\n%s\n", p.name, p.out.String())
		return true
	})
	_ = os.WriteFile(file, []byte(all.String()), 0o644)
}

// waitFor polls cond every 50ms until it holds or the limit passes.
func waitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			dumpStuck()
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFiled waits up to limit until dir holds n files besides their
// reports.
func waitFiled(t testing.TB, limit time.Duration, dir string, n int) {
	t.Helper()
	waitFor(t, limit, fmt.Sprintf("%d files in %s", n, dir), func() bool {
		got := 0
		for _, f := range files(t, dir) {
			if !strings.HasSuffix(f, ".report.csv") {
				got++
			}
		}
		return got == n
	})
}

// files lists the regular files under dir (recursively), as slash paths
// relative to dir, sorted; a missing dir is empty.
func files(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing %s: %v", dir, err)
	}
	sort.Strings(out)
	return out
}

// baseNames are the final elements of paths.
func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p[strings.LastIndex(p, "/")+1:]
	}
	return out
}

// has reports whether some path ends with "/"+name or is name.
func has(paths []string, name string) bool {
	for _, p := range paths {
		if p == name || strings.HasSuffix(p, "/"+name) {
			return true
		}
	}
	return false
}

// copySample copies samples/<edition>/<kind>/<name> into dir under newName
// ("" keeps the name), writing it under a temporary name first.
func copySample(t testing.TB, edition, kind, name, dir, newName string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "samples", edition, kind, name))
	if err != nil {
		t.Fatal(err)
	}
	if newName == "" {
		newName = name
	}
	writeAtomic(t, filepath.Join(dir, newName), data)
}

// writeAtomic writes data under a .part name and renames it into place.
func writeAtomic(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".part")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mkdir creates the folder filepath.Join(elem...), parents and all, and
// returns its path.
func mkdir(t testing.TB, elem ...string) string {
	t.Helper()
	dir := filepath.Join(elem...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustWrite(t testing.TB, path, data string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
