package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

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
