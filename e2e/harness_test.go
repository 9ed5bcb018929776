package e2e

import (
	"bufio"
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

// running tells whether p logged its "filebridge running" line.
func (p *process) running() bool {
	return strings.Contains(p.out.String(), "filebridge running")
}

// waitRunning waits up to limit for p's "filebridge running" log line.
func (p *process) waitRunning(t testing.TB, limit time.Duration) {
	t.Helper()
	waitFor(t, limit, "the daemon running", p.running)
}

// stop sends SIGTERM and waits up to limit for the exit; it returns the
// exit code (-1 when it had to be killed, or died of the signal). A daemon
// started moments ago may not handle signals yet: stop first waits (up to
// 5s after the start) for its "filebridge running" log line.
func (p *process) stop(t testing.TB, limit time.Duration) int {
	t.Helper()
	for !p.exited() && time.Since(p.started) < 5*time.Second && !p.running() {
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

// sim is a `filebridge sim` process.
type sim struct {
	*process
	URL     string // http://127.0.0.1:port
	Base    string // URL + "/api"
	Token   string
	Edition string
}

// startSim starts a simulator of the edition on a free loopback port; the
// warehouse moves only on tick.
func startSim(t testing.TB, edition string, extra ...string) *sim {
	t.Helper()
	args := append([]string{"sim", "--listen", "127.0.0.1:0", "--edition", edition, "--tick", "0", "--seed", "7"}, extra...)
	p := &process{name: "sim " + edition, out: &testkit.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting the simulator: %v", err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("--- output of %s ---\n%s", p.name, tail(p.out.String(), 4000))
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(p.out, line)
			if v, ok := strings.CutPrefix(line, "base_url = "); ok {
				select {
				case found <- strings.Trim(v, `"`):
				default:
				}
			}
		}
		_, _ = io.Copy(p.out, stdout)
	}()
	select {
	case base := <-found:
		return &sim{process: p, Base: base, URL: strings.TrimSuffix(base, "/api"), Token: "demo-token", Edition: edition}
	case <-p.done:
		t.Fatalf("the simulator exited at start: %v\n%s", p.err, p.out.String())
	case <-time.After(15 * time.Second):
		t.Fatalf("the simulator printed no base_url within 15s:\n%s", p.out.String())
	}
	return nil
}

// simAndInbox starts a simulator like startSim and makes a test folder
// holding an empty inbox folder "in": the simulator, the folder and the
// inbox.
func simAndInbox(t testing.TB, edition string, extra ...string) (*sim, string, string) {
	t.Helper()
	s := startSim(t, edition, extra...)
	dir := t.TempDir()
	return s, dir, mkdir(t, dir, "in")
}

// tick moves the simulated warehouse on one step.
func (s *sim) tick(t testing.TB) {
	t.Helper()
	resp, err := http.Post(s.URL+"/_sim/tick", "application/json", nil)
	if err != nil {
		t.Fatalf("ticking the simulator: %v", err)
	}
	_ = resp.Body.Close()
}

// simStats is the part of GET /_sim/stats the tests read.
type simStats struct {
	Counts          map[string]int `json:"counts"`
	Requests        int            `json:"requests"`
	RepeatedCreates int            `json:"repeatedCreates"`
	// UndocumentedRequests counts the requests the API documents do not
	// show, Undocumented by operation.
	UndocumentedRequests int            `json:"undocumentedRequests"`
	Undocumented         map[string]int `json:"undocumented"`
	Faults               struct {
		Failed          int `json:"failed"`
		Throttled       int `json:"throttled"`
		Dropped         int `json:"dropped"`
		DroppedAfterDoc int `json:"droppedAfterCreate"`
	} `json:"faults"`
}

func (s *sim) stats(t testing.TB) simStats {
	t.Helper()
	var st simStats
	s.getJSON(t, s.URL+"/_sim/stats", &st, false)
	return st
}

// setLatency makes the simulator wait d before every API response
// (POST /_sim/faults).
func (s *sim) setLatency(t testing.TB, d time.Duration) {
	t.Helper()
	s.postFaults(t, fmt.Sprintf(`{"latency":%q}`, d))
}

// setFaults changes the injected faults (POST /_sim/faults).
func (s *sim) setFaults(t testing.TB, fail, throttle, drop float64) {
	t.Helper()
	s.postFaults(t, fmt.Sprintf(`{"failRate":%g,"throttleRate":%g,"dropRate":%g}`, fail, throttle, drop))
}

// postFaults posts body to /_sim/faults.
func (s *sim) postFaults(t testing.TB, body string) {
	t.Helper()
	resp, err := http.Post(s.URL+"/_sim/faults", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("setting faults: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("setting faults: %s", resp.Status)
	}
}

func (s *sim) getJSON(t testing.TB, url string, v any, auth bool) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if auth {
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("Accept", "application/ld+json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: decoding: %v", url, err)
	}
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

// keyCounts lists a resource and counts its documents by the given field
// (e.g. orderNumber, sku, code). Faults must be off.
func (s *sim) keyCounts(t testing.TB, resource, field string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, m := range s.listAll(t, resource) {
		counts[fmt.Sprint(m[field])]++
	}
	return counts
}

// listAll reads every document of a resource once, in pages of 10000 or
// of the simulator's own size when it ignores itemsPerPage. Under the
// moving-pages switch a page read moves a document: the pages are read
// again until every document the total announces was seen (by id).
func (s *sim) listAll(t testing.TB, resource string) []map[string]any {
	t.Helper()
	seen := map[string]bool{}
	var all []map[string]any
	for pass := 0; pass < 20; pass++ {
		total := 0
		for _, m := range s.listPass(t, resource, &total) {
			id := fmt.Sprint(m["@id"], m["id"])
			if !seen[id] {
				seen[id] = true
				all = append(all, m)
			}
		}
		if len(all) >= total {
			return all
		}
	}
	t.Fatalf("listing %s: %d documents seen in 20 passes", resource, len(all))
	return nil
}

// listPass reads the pages of a resource once, up to its total.
func (s *sim) listPass(t testing.TB, resource string, total *int) []map[string]any {
	t.Helper()
	var all []map[string]any
	for page := 1; ; page++ {
		var body map[string]json.RawMessage
		s.getJSON(t, fmt.Sprintf("%s/%s?itemsPerPage=10000&page=%d", s.Base, resource, page), &body, true)
		raw, ok := body["hydra:member"]
		if !ok {
			raw = body["member"]
		}
		var members []map[string]any
		if err := json.Unmarshal(raw, &members); err != nil {
			t.Fatalf("listing %s: %v", resource, err)
		}
		all = append(all, members...)
		rawTotal, ok := body["hydra:totalItems"]
		if !ok {
			rawTotal = body["totalItems"]
		}
		if err := json.Unmarshal(rawTotal, total); err != nil {
			t.Fatalf("listing %s: no total: %v", resource, err)
		}
		if len(members) == 0 || len(all) >= *total {
			return all
		}
	}
}

// noRepeats fails the test when the simulator refused a create as a
// repeat of a document it holds: the simulator never stores a key twice,
// so counting keys cannot show a document sent twice; only this count can.
func (s *sim) noRepeats(t testing.TB) {
	t.Helper()
	if r := s.stats(t).RepeatedCreates; r != 0 {
		t.Errorf("%d create(s) were sent twice and refused as already used, want 0", r)
	}
}

// onceEach is keyCounts, failing the test for each key the portal holds
// more than once, and for any create sent again (noRepeats).
func (s *sim) onceEach(t testing.TB, resource, field string) map[string]int {
	t.Helper()
	s.noRepeats(t)
	counts := s.keyCounts(t, resource, field)
	for k, n := range counts {
		if n != 1 {
			t.Errorf("%s %s exists %d times", resource, k, n)
		}
	}
	return counts
}

// ordersOnce checks that the simulator holds n orders, each once, and
// refused no create as a repeat.
func (s *sim) ordersOnce(t testing.TB, n int) {
	t.Helper()
	if counts := s.onceEach(t, "sales_orders", "orderNumber"); len(counts) != n {
		t.Errorf("the portal holds %d distinct orders, want %d", len(counts), n)
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
