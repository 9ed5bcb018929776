package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"filebridge/internal/journal"
)

// TestConsoleWorkQueue: the Failed list shows the open failures with their
// reason; a failure whose rows are invalid in the file offers no replay
// but "fix the file and drop it again"; Acknowledge (CSRF-checked) records
// who and the note, and the failure leaves the list (state=failed&resolved=1
// shows it again, resolved).
func TestConsoleWorkQueue(t *testing.T) {
	e := newConsoleEnv(t, "")
	ctx := t.Context()
	// The browser's session cookie goes with each action (the CSRF token
	// is bound to it).
	noRedirect := &http.Client{Jar: e.browser.Jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page := func(path string) string {
		t.Helper()
		code, body := e.do(t, nil, "GET", path, nil, nil)
		if code != 200 {
			t.Fatalf("GET %s: %d:\n%s", path, code, body)
		}
		return body
	}
	filePage := fmt.Sprintf("/files/%d", e.failed)

	list := page("/files?state=failed")
	for _, want := range []string{"<th>Reason</th>", `<td class="reason" title="1 of 1 document(s) failed &lt;script&gt;">`, "SKU_BAD.csv", "Show the resolved ones too",
		`href="/files?resolved=1&amp;state=failed"`} {
		if !strings.Contains(list, want) {
			t.Errorf("failed list lacks %q:\n%s", want, list)
		}
	}
	body := page(filePage)
	for _, want := range []string{`id="replay"`, `id="ack"`, fmt.Sprintf(`action="/files/%d/ack"`, e.failed), `<dd id="open">open</dd>`} {
		if !strings.Contains(body, want) {
			t.Errorf("open failure's page lacks %q", want)
		}
	}
	// Rows invalid in the file: no replay, the advice instead.
	f, err := e.db.File(ctx, e.failed)
	if err != nil {
		t.Fatal(err)
	}
	f.FixFile = true
	if err := e.db.UpdateFile(ctx, f); err != nil {
		t.Fatal(err)
	}
	body = page(filePage)
	if strings.Contains(body, `id="replay"`) || !strings.Contains(body, `<strong id="fix-file">fix the file and drop it again</strong>`) || !strings.Contains(body, `id="ack"`) {
		t.Errorf("a file that failed in itself: want no replay, the advice and Acknowledge:\n%s", body)
	}

	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on the page:\n%s", body)
	}
	ackPath := filePage + "/ack"
	if code, _ := e.do(t, noRedirect, "POST", ackPath, url.Values{"note": {"entered by phone"}}, nil); code != http.StatusForbidden {
		t.Errorf("ack without the CSRF token: %d, want 403", code)
	}
	if code, body := e.do(t, noRedirect, "POST", ackPath, url.Values{"csrf": {m[1]}, "note": {"entered by phone"}}, nil); code != http.StatusSeeOther {
		t.Fatalf("ack: %d, want 303:\n%s", code, body)
	}
	f, err = e.db.File(ctx, e.failed)
	if err != nil || f.Resolved.Kind != journal.Acknowledged || f.Resolved.By != "console" || f.Resolved.Note != "entered by phone" {
		t.Fatalf("journal after ack: %+v, %v", f.Resolved, err)
	}
	body = page(filePage)
	if !strings.Contains(body, `<dd id="resolved">acknowledged by console at <time`) || !strings.Contains(body, ": entered by phone</dd>") ||
		strings.Contains(body, `id="ack"`) || strings.Contains(body, `id="replay"`) {
		t.Errorf("resolved failure's page: want the resolution, no Acknowledge nor Replay:\n%s", body)
	}
	if code, body := e.do(t, noRedirect, "POST", ackPath, url.Values{"csrf": {m[1]}}, nil); code != http.StatusConflict || !strings.Contains(body, "resolved already") {
		t.Errorf("second ack: %d, want 409 saying it is resolved:\n%s", code, body)
	}
	if list := page("/files?state=failed"); strings.Contains(list, "SKU_BAD.csv") || !strings.Contains(list, "No file matches.") {
		t.Errorf("the acknowledged failure is still in the Failed list:\n%s", list)
	}
	if list := page("/files?state=failed&resolved=1"); !strings.Contains(list, "SKU_BAD.csv") || !strings.Contains(list, `title="resolved by acknowledged">resolved</span>`) ||
		!strings.Contains(list, "Only the open ones") {
		t.Errorf("state=failed&resolved=1 lacks the resolved failure:\n%s", list)
	}
}
