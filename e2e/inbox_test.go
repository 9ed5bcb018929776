package e2e

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// Each edition's good orders sample and good suppliers/connections sample.
var (
	ordersSample  = map[string]string{"A": "ORDERS_20260316.csv", "B": "SALES_ORDERS_20260316.csv"}
	partnerSample = map[string]string{"A": "SUPPLIERS_20260302.csv", "B": "CONNECTIONS_20260302.csv"}
)

// sampleNames lists samples/<edition>/<kind> (CSV and XLSX only).
func sampleNames(t testing.TB, edition, kind string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(repoRoot, "samples", edition, kind))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if ext := strings.ToLower(filepath.Ext(e.Name())); ext == ".csv" || ext == ".xlsx" {
			out = append(out, e.Name())
		}
	}
	return out
}

// dropSamples copies samples into a staging folder, then renames them into
// the inbox together, so that one round sees them all.
func dropSamples(t testing.TB, edition, kind, inbox string, names []string) {
	t.Helper()
	stage := mkdir(t, filepath.Dir(inbox), "stage")
	for _, n := range names {
		copySample(t, edition, kind, n, stage, "")
	}
	for _, n := range names {
		if err := os.Rename(filepath.Join(stage, n), filepath.Join(inbox, n)); err != nil {
			t.Fatal(err)
		}
	}
}

// report is a parsed NAME.report.csv: its rows, header dropped.
type report [][]string

// readReport reads a report, detecting its delimiter from the header.
func readReport(t testing.TB, path string) report {
	t.Helper()
	data := bytes.TrimPrefix([]byte(readFile(t, path)), []byte("\ufeff"))
	r := csv.NewReader(bytes.NewReader(data))
	if len(data) > 3 && strings.HasPrefix(string(data), "row") {
		r.Comma = rune(data[3])
	}
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("reading report %s: %v", path, err)
	}
	if len(recs) == 0 || recs[0][0] != "row" {
		t.Fatalf("report %s has no header row, got %q", path, recs)
	}
	return recs[1:]
}

// results counts the report's documents by result.
func (r report) results() map[string]int {
	m := map[string]int{}
	for _, rec := range r {
		if len(rec) > 2 && rec[1] != "" {
			m[rec[2]]++
		}
	}
	return m
}

// keys lists the report's keys with the given result.
func (r report) keys(result string) []string {
	var out []string
	for _, rec := range r {
		if len(rec) > 2 && rec[1] != "" && rec[2] == result {
			out = append(out, rec[1])
		}
	}
	return out
}

// stem drops the extension: "A.csv" -> "A".
func stem(name string) string { return strings.TrimSuffix(name, filepath.Ext(name)) }

// findFile returns the path under dir (recursive) whose base name is name.
func findFile(t testing.TB, dir, name string) string {
	t.Helper()
	for _, p := range files(t, dir) {
		if filepath.Base(p) == name {
			return filepath.Join(dir, filepath.FromSlash(p))
		}
	}
	t.Fatalf("%s is not under %s; there are %q", name, dir, files(t, dir))
	return ""
}

// allIn waits until every name is a file somewhere under dir.
func allIn(t testing.TB, limit time.Duration, dir string, names []string) {
	t.Helper()
	waitFor(t, limit, "files in "+dir, func() bool {
		got := files(t, dir)
		for _, n := range names {
			if !has(got, n) {
				return false
			}
		}
		return true
	})
}

// partialFile builds an orders file for policy partial: every order of the
// good sample under a new number (SO-2026-Pnnnnn), and one more order whose
// quantity is negative. It returns the data, the good order numbers and the
// bad one.
func partialFile(t testing.TB, edition string) ([]byte, []string, string) {
	t.Helper()
	name := ordersSample[edition]
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix([]byte(readFile(t, filepath.Join(repoRoot, "samples", edition, "good", name))), []byte("\ufeff"))))
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(n string) int {
		for i, h := range recs[0] {
			if h == n {
				return i
			}
		}
		t.Fatalf("%s has no column %s", name, n)
		return -1
	}
	on, qty, sku := col("orderNumber"), col("quantity"), col("sku")
	seen := map[string]bool{}
	var good []string
	for _, rec := range recs[1:] {
		rec[on] = strings.Replace(rec[on], "SO-2026-", "SO-2026-P", 1)
		if !seen[rec[on]] {
			seen[rec[on]] = true
			good = append(good, rec[on])
		}
	}
	bad := append([]string(nil), recs[1]...)
	for i, v := range recs[1:] {
		if v[sku] != "" {
			bad = append([]string(nil), recs[1+i]...)
			break
		}
	}
	bad[on], bad[qty] = "SO-2026-PBAD01", "-1"
	recs = append(recs, bad)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.WriteAll(recs)
	return buf.Bytes(), good, "SO-2026-PBAD01"
}

// TestLocalInbox runs `filebridge run` on a local inbox of each edition:
// the good samples go to processed/ with their reports and every document
// created once; the bad samples (policy reject) go to error/ with reports,
// rejected rows and nothing submitted; a file under policy partial gets its
// valid orders created and only its bad rows rejected. /healthz and
// /metrics answer, and SIGTERM stops the daemon with exit code 0.
func TestLocalInbox(t *testing.T) {
	for _, ed := range []string{"A", "B"} {
		t.Run(ed, func(t *testing.T) {
			t.Parallel()
			s, dir, inbox := simAndInbox(t, ed)
			listen := testkit.FreeAddr(t)
			cfg := runConfig(t, dir, s, listen, inboxSpec{name: "erp", url: inbox})
			p := start(t, "run "+ed, "run", "--config", cfg)
			processed, errDir := filepath.Join(inbox, "processed"), filepath.Join(inbox, "error")

			good := sampleNames(t, ed, "good")
			dropSamples(t, ed, "good", inbox, good)
			allIn(t, 60*time.Second, processed, good)
			for _, n := range good {
				rep := readReport(t, findFile(t, processed, stem(n)+".report.csv"))
				res := rep.results()
				if res["created"] == 0 || len(res) != 1 {
					t.Errorf("report of %s: results %v, want only created", n, res)
				}
			}
			if got := files(t, errDir); len(got) > 0 {
				t.Errorf("good samples went to error/: %q", got)
			}
			orders := map[string]string{"A": "sales_orders", "B": "sales_orders"}[ed]
			s.onceEach(t, orders, "orderNumber")

			// Bad samples (reject) and a partial file.
			bad := sampleNames(t, ed, "bad")
			partial, goodOrders, badOrder := partialFile(t, ed)
			partialName := map[string]string{"A": "P_ORDERS_20260318.csv", "B": "P_SALES_ORDERS_20260318.csv"}[ed]
			dropSamples(t, ed, "bad", inbox, bad)
			writeAtomic(t, filepath.Join(inbox, partialName), partial)
			allIn(t, 60*time.Second, errDir, append(append([]string(nil), bad...), partialName))
			for _, n := range bad {
				rep := readReport(t, findFile(t, errDir, stem(n)+".report.csv"))
				if c := rep.results()["created"]; c > 0 {
					t.Errorf("report of %s (policy reject): %d documents created, want none", n, c)
				}
				if len(rep.keys("invalid")) > 0 && !has(files(t, errDir), stem(n)+".rejected.csv") {
					t.Errorf("%s has invalid rows but no %s.rejected.csv", n, stem(n))
				}
			}

			rep := readReport(t, findFile(t, errDir, stem(partialName)+".report.csv"))
			if got := rep.keys("created"); strings.Join(got, ",") != strings.Join(goodOrders, ",") {
				t.Errorf("partial file: created %q, want %q", got, goodOrders)
			}
			if got := rep.keys("invalid"); len(got) != 1 || got[0] != badOrder {
				t.Errorf("partial file: invalid %q, want [%s]", got, badOrder)
			}
			rej := readFile(t, findFile(t, errDir, stem(partialName)+".rejected.csv"))
			if lines := strings.Count(strings.TrimSpace(rej), "\n"); lines != 1 || !strings.Contains(rej, badOrder) {
				t.Errorf("partial file: rejected rows should be the header and the %s row, got:\n%s", badOrder, rej)
			}
			s.noRepeats(t)
			counts := s.keyCounts(t, orders, "orderNumber")
			for _, k := range goodOrders {
				if counts[k] != 1 {
					t.Errorf("partial file: order %s exists %d times on the portal, want 1", k, counts[k])
				}
			}
			if counts[badOrder] != 0 {
				t.Errorf("partial file: the invalid order %s reached the portal", badOrder)
			}

			checkEndpoints(t, listen)
			if code := p.stop(t, 25*time.Second); code != 0 {
				t.Errorf("run exited with %d after SIGTERM, want 0", code)
			}
			if left := files(t, filepath.Join(inbox, "processing")); len(left) > 0 {
				t.Errorf("files left in processing/: %q", left)
			}
		})
	}
}

// checkEndpoints reads /healthz (200, JSON naming the portal and inbox) and
// /metrics (the inbox, API and process metrics).
func checkEndpoints(t testing.TB, listen string) {
	t.Helper()
	fetch := func(path string) (int, string) {
		code, body, err := get("http://" + listen + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return code, body
	}
	code, body := fetch("/healthz")
	if code != http.StatusOK || !strings.Contains(body, `"main"`) || !strings.Contains(body, `"erp"`) {
		t.Errorf("/healthz: %d %s", code, body)
	}
	code, body = fetch("/metrics")
	for _, m := range []string{"filebridge_inbox_files_total", "filebridge_inbox_documents_total", "filebridge_inbox_queue_depth",
		"filebridge_api_request_duration_seconds", "filebridge_api_requests_total", "process_cpu_seconds_total",
		`filebridge_api_concurrency_limit{portal="main"}`, "filebridge_journal_writes_total", "filebridge_journal_commits_total"} {
		if code != http.StatusOK || !strings.Contains(body, m) {
			t.Errorf("/metrics (%d) lacks %s", code, m)
		}
	}
}

// TestUnmatchedFiles checks issue 8 point 8 on a daemon: a PDF and a JSON
// file that no route matches stay in the inbox, are logged once and
// listed on /healthz (unmatched = "leave", the default), an excluded file
// is left silently, and in an inbox with unmatched = "error" the PDF goes
// to error/; a link leading outside the inbox is listed once with its
// reason too; a file named like SKUs with a suppliers header fails with a
// hint naming the suppliers type.
func TestUnmatchedFiles(t *testing.T) {
	t.Parallel()
	s := startSim(t, "A")
	dir := t.TempDir()
	leave, strict := mkdir(t, dir, "leave"), mkdir(t, dir, "strict")
	listen := testkit.FreeAddr(t)
	cfg := runConfig(t, dir, s, listen,
		inboxSpec{name: "leave", url: leave, extra: `exclude = ["*.bak"]`},
		inboxSpec{name: "strict", url: strict, extra: `unmatched = "error"`})
	p := start(t, "run", "run", "--config", cfg)

	for _, n := range []string{"invoice.pdf", "order.json", "old.bak"} {
		writeAtomic(t, filepath.Join(leave, n), []byte("not a data file"))
	}
	writeAtomic(t, filepath.Join(strict, "invoice.pdf"), []byte("%PDF-1.4"))
	secret := filepath.Join(dir, "secret.csv")
	mustWrite(t, secret, "code,name,relationship\n")
	if err := os.Symlink(secret, filepath.Join(leave, "SUPPLIERS_LINK_20260302.csv")); err != nil {
		t.Fatal(err)
	}
	supp := readFile(t, filepath.Join(repoRoot, "samples", "A", "good", "SUPPLIERS_20260302.csv"))
	writeAtomic(t, filepath.Join(leave, "SKU_WRONG_20260302.csv"), []byte(supp))

	var health string
	waitFor(t, 30*time.Second, "/healthz to list the unmatched files", func() bool {
		_, health = healthz(listen)
		return strings.Contains(health, `"ignored"`) && strings.Contains(health, "invoice.pdf") && strings.Contains(health, "order.json") &&
			strings.Contains(health, "SUPPLIERS_LINK_20260302.csv")
	})
	if !strings.Contains(health, "leads outside the folder") {
		t.Errorf("/healthz does not say why the link is not taken:\n%s", health)
	}
	if !strings.Contains(health, "no route") || strings.Contains(health, "old.bak") {
		t.Errorf("/healthz should list invoice.pdf and order.json with their reason, not old.bak:\n%s", health)
	}
	allIn(t, 30*time.Second, filepath.Join(strict, "error"), []string{"invoice.pdf"})
	allIn(t, 30*time.Second, filepath.Join(leave, "error"), []string{"SKU_WRONG_20260302.report.csv"})
	rep := readFile(t, findFile(t, filepath.Join(leave, "error"), "SKU_WRONG_20260302.report.csv"))
	if !strings.Contains(rep, `header row is that of a ""suppliers"" file`) {
		t.Errorf("the report of SKU_WRONG has no hint naming the suppliers type:\n%s", rep)
	}
	roundsAfter(t, listen, "leave", time.Now(), 3) // more looks at the inbox: the files must still be logged once
	for _, n := range []string{"invoice.pdf", "order.json", "old.bak"} {
		if _, err := os.Stat(filepath.Join(leave, n)); err != nil {
			t.Errorf("%s was taken from the inbox: %v", n, err)
		}
	}
	out := p.out.String()
	for _, n := range []string{"invoice.pdf", "order.json", "SUPPLIERS_LINK_20260302.csv"} {
		if c := strings.Count(out, `"file in the inbox is not taken: no route of inbox \"leave\" matches its name`); c < 2 {
			t.Errorf("the unmatched files were not logged: %d lines", c)
		}
		lines := 0
		for line := range strings.SplitSeq(out, "\n") {
			if strings.Contains(line, "not taken") && strings.Contains(line, `"file":"`+n+`"`) {
				lines++
			}
		}
		if lines != 1 {
			t.Errorf("%s logged %d times, want once", n, lines)
		}
	}
	p.stopOK(t, "run")
}
