package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
	listen := freeAddr(t)
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
	time.Sleep(time.Second) // a few more polls (200ms): the files must still be logged once
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
